package tandem.node;

import tandem.api.node.Frontend;
import tandem.api.node.NodeClient;

/**
 * Tells the attached front end what the logic thread works on (its stall watchdog) and what ran (Redis' command
 * statistics and slow log): a refusal before a command ran is a rejected call; a run that answered an error is a
 * failed call; a transaction counts EXEC and each of its commands; a blocked command's later tries count once.
 */
final class Accounting {

    /** The front end attached, or null. */
    private volatile Frontend frontend;

    synchronized void attach(Frontend next) {
        frontend = next;
    }

    /** Detaches {@code f} when it is the front end attached. */
    synchronized void detach(Frontend f) {
        if (frontend == f) {
            frontend = null;
        }
    }

    Frontend frontend() {
        return frontend;
    }

    /** The logic thread starts on {@code what}; returns the front end told, for {@link #idle}. */
    Frontend busy(Object what) {
        Frontend f = frontend;
        if (f != null) {
            f.busy(what);
        }
        return f;
    }

    /** The logic thread is done with what it told {@code f} ({@link #busy}). */
    static void idle(Frontend f) {
        if (f != null) {
            f.idle();
        }
    }

    /** {@code p} ran in {@code durationNs}; {@code failed} when it answered an error. */
    static void ran(Frontend f, Pending p, long durationNs, boolean failed) {
        if (f == null || p.client() == null) {
            return;
        }
        NodeClient c = p.client().front;
        switch (p.kind()) {
            case IMMEDIATE -> {
                if (p.command() == null || p.immediate().equals("+QUEUED")) {
                    return;
                }
                if (p.immediate().startsWith("-")) {
                    f.rejected(c, p.command());
                } else {
                    f.executed(c, p.command(), durationNs, false);
                }
            }
            case TRANSACTION, READ_TRANSACTION -> f.executedTransaction(c, p.commands(), durationNs, failed);
            case READ, REFUSED, CONNECTION, WAIT -> f.executed(c, p.command(), durationNs, failed);
            case WRITE -> {
                if (!Blocked.isWoken(p.command())) { // a blocked command's later tries: counted once
                    f.executed(c, p.command(), durationNs, failed);
                }
            }
            default -> {
            }
        }
    }
}
