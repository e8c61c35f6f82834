package tandem.journal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import tandem.api.journal.DurabilityListener;
import tandem.api.journal.JournalStoppedException;

/**
 * What is durable, published: the durable sequence and the replication offset at it, the listeners told of each
 * advance, the waiters parked on one, and fail-stop — once a write or a sync failed, the durable sequence freezes
 * and every waiter, and every later append, gets {@link JournalStoppedException} with the reason.
 *
 * <p>The journal thread alone advances it; a history replaced wholesale (a lineage archived, a seed installed, a
 * primary adopted) resets it under the chain's lock, so that a chain point and the durable sequence change together.
 */
final class Durability {

    private static final Logger LOG = System.getLogger("tandem.journal");

    private final Path directory;
    private volatile long sequence;
    private volatile long offset;
    private volatile String stoppedReason;
    private volatile Throwable stopCause;
    private volatile boolean terminated;
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition advanced = waitLock.newCondition();
    private final CopyOnWriteArrayList<DurabilityListener> listeners = new CopyOnWriteArrayList<>();

    Durability(Path directory, long sequence, long offset) {
        this.directory = directory;
        this.sequence = sequence;
        this.offset = offset;
    }

    /** @return the last durable sequence */
    long sequence() {
        return sequence;
    }

    /** @return the replication offset after the last durable complete command */
    long offset() {
        return offset;
    }

    /** @return why the journal stopped, or null while it runs */
    String stoppedReason() {
        return stoppedReason;
    }

    /** Journal thread: a batch ending at {@code lastSequence} is durable. */
    void advanced(long lastSequence, long offsetAfter) {
        offset = offsetAfter;
        sequence = lastSequence;
        wake();
        for (DurabilityListener l : listeners) {
            l.durable(lastSequence);
        }
    }

    /** A new history is in place, durable up to {@code lastSequence}. Under the chain's lock, with its point. */
    void reset(long lastSequence, long offsetAfter) {
        offset = offsetAfter;
        sequence = lastSequence;
    }

    /** A write or a sync failed: nothing more becomes durable. */
    void failStop(Throwable e) {
        stopCause = e;
        stoppedReason = "journal " + directory + " stopped after a failed write or sync at durable sequence "
                + sequence + ": " + e;
        LOG.log(Level.ERROR, stoppedReason, e);
        for (DurabilityListener l : listeners) {
            l.stopped(stoppedReason);
        }
    }

    /** The journal thread ended (stopped or closed): waiters for what will never be durable are released. */
    void terminated() {
        terminated = true;
    }

    /** @throws JournalStoppedException once the journal stopped, or when it is {@code closing} */
    void checkRunning(boolean closing) {
        String reason = stoppedReason;
        if (reason != null) {
            throw new JournalStoppedException(reason, stopCause);
        }
        if (closing) {
            throw new JournalStoppedException("journal " + directory + " is closed", null);
        }
    }

    /** @return the failure that ends whatever still waits for the journal thread */
    JournalStoppedException stopped() {
        return new JournalStoppedException(stoppedReason != null ? stoppedReason : "journal " + directory
                + " is closed", stopCause);
    }

    void addListener(DurabilityListener listener) {
        listeners.addIfAbsent(listener);
        String reason = stoppedReason;
        if (reason != null) {
            listener.stopped(reason);
        }
    }

    void removeListener(DurabilityListener listener) {
        listeners.remove(listener);
    }

    void wake() {
        Locks.locked(waitLock, advanced::signalAll);
    }

    /** Waits until {@code target} is durable, as {@code strategy} says. */
    void await(long target, WaitStrategy strategy) throws InterruptedException {
        if (target <= sequence) {
            return;
        }
        switch (strategy) {
            case BLOCKING -> {
                waitLock.lockInterruptibly();
                try {
                    while (target > sequence) {
                        checkWaitable(target);
                        advanced.await();
                    }
                } finally {
                    waitLock.unlock();
                }
            }
            case SPIN_YIELD -> {
                int spins = 0;
                while (target > sequence) {
                    checkWaitable(target);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    if (++spins < 200) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield();
                    }
                }
            }
            case BUSY_SPIN -> {
                while (target > sequence) {
                    checkWaitable(target);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    Thread.onSpinWait();
                }
            }
        }
    }

    private void checkWaitable(long target) {
        // terminated first: a failed sync sets the reason before the journal thread ends, so a waiter that sees the
        // end also sees why (read the other way round, it could name a close instead of the failure)
        boolean ended = terminated;
        String reason = stoppedReason;
        if (reason != null) {
            throw new JournalStoppedException(reason, stopCause);
        }
        if (ended && target > sequence) {
            throw new JournalStoppedException("journal " + directory + " closed before sequence " + target
                    + " became durable", null);
        }
    }
}
