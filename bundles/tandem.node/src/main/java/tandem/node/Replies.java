package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Set;
import java.util.function.BooleanSupplier;

import tandem.api.journal.Journal;
import tandem.api.node.Frontend;

/**
 * When replies leave: every client written to in a round is due at its end, unless its last write waits for the ack
 * policy; then its replies, that one and every later one, are held until the policy holds for it. Writes are applied
 * once durable here, like in Redis before {@code WAIT} returns; only the answers wait, so one waiting write never
 * stalls the other clients. Also measures each write's write-to-ack latency. The logic thread's alone.
 */
final class Replies {

    private static final Logger LOG = System.getLogger("tandem.node");

    private final ResponseGate gate;
    private final Inbox inbox;
    private final WriteAckLatency ackLatency = new WriteAckLatency();
    /** Clients written to this round. */
    private final Set<Client> touched = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Clients whose replies wait for the ack policy. */
    private final Set<Client> held = Collections.newSetFromMap(new IdentityHashMap<>());

    Replies(ResponseGate gate, Inbox inbox) {
        this.gate = gate;
        this.inbox = inbox;
    }

    /** {@code c} was written a reply this round. */
    void touched(Client c) {
        touched.add(c);
    }

    /** A client write was appended at {@code sequence}: its write-to-ack latency starts now. */
    void appended(long sequence) {
        ackLatency.appended(sequence, System.nanoTime());
    }

    /** The writes waiting for their ack will be answered otherwise (refused: their journal went away). */
    void forgetAcks() {
        ackLatency.clear();
    }

    WriteAckLatency ackLatency() {
        return ackLatency;
    }

    /** {@code c} went away. */
    void closed(Client c) {
        held.remove(c);
    }

    /**
     * A client's journaled write replied: from here on its replies wait until the ack policy holds for
     * {@code sequence}.
     */
    void gated(Client c, long sequence) {
        c.gatedSequence = sequence;
        c.gatedWrite = true;
    }

    /** A script that wrote nothing replied: its replies wait until what it read, up to {@code sequence}, may be. */
    void gatedRead(Client c, long sequence) {
        c.gatedSequence = sequence;
    }

    /** Marks where {@code c}'s replies that the ack policy may hold back begin, before its write replies. */
    void markHeld(Client c) {
        if (c.gatedSequence == 0) {
            c.heldMark = c.front.replyMark();
        }
    }

    /**
     * Holds back the replies of every connection whose last write the ack policy does not cover yet, and releases
     * those it now covers. A node that follows releases no write: one held there is a former primary's, which it
     * can no longer acknowledge, and its client is disconnected instead ({@link #disconnectHeld}); a script's read
     * is released as anywhere.
     *
     * @param following read after the policy: a primary turning replica declares its role before it relaxes its
     *                  ack policy to a replica's, so a round that reads the relaxed policy sees the role too. The
     *                  disconnection the turn posts may come a round later; released meanwhile, a write the resync
     *                  then discarded was answered OK (the split-brain test saw it)
     */
    long gate(Journal journal, BooleanSupplier following) {
        for (Client c : touched) {
            if (c.gatedSequence > 0) {
                held.add(c);
            }
        }
        if (held.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long durable = journal == null ? 0 : journal.durableSequence();
        long released = gate.released(durable);
        boolean follows = following.getAsBoolean();
        long lowest = Long.MAX_VALUE;
        for (Iterator<Client> it = held.iterator(); it.hasNext(); ) {
            Client c = it.next();
            if (follows && c.gatedWrite) {
                disconnect(c);
                it.remove();
                touched.remove(c); // due already
            } else if (c.gatedSequence <= released) {
                c.gatedSequence = 0;
                c.gatedWrite = false;
                it.remove();
                touched.add(c);
            } else {
                lowest = Math.min(lowest, c.gatedSequence);
            }
        }
        if (lowest != Long.MAX_VALUE && gate.await(lowest, durable)) {
            inbox.wake(); // released meanwhile: look again at once
        }
        return lowest;
    }

    /** Records the write-to-ack latency of the writes the gate now releases. */
    void measureAcks(Journal journal, boolean following) {
        if (!ackLatency.waiting() || journal == null) {
            return;
        }
        if (following) {
            ackLatency.clear(); // turned replica: what waited is answered by the role change
            return;
        }
        ackLatency.released(gate.released(journal.durableSequence()), gate.policy(), System.nanoTime());
    }

    /** Every touched client whose replies the ack policy does not hold back is due; the front end sends them. */
    void endRound(Frontend frontend) {
        for (Client c : touched) {
            if (!held.contains(c)) {
                c.front.due();
            }
        }
        touched.clear();
        if (frontend != null) {
            frontend.roundEnd();
        }
    }

    /** Sends every touched client's replies now: the node is going down. */
    void flushTouched() {
        for (Client c : touched) {
            c.front.flush();
        }
        touched.clear();
    }

    /**
     * This primary turns replica: a write whose reply the ack policy still holds back can no longer be acknowledged
     * here (the resync may discard it, or the new primary may hold it), so its client gets no answer but a closed
     * connection, the outcome unknown, as after a crash. Its reply and those after it are taken back first.
     */
    void disconnectHeld() {
        for (Client c : held) {
            disconnect(c);
        }
        held.clear();
    }

    private static void disconnect(Client c) {
        c.front.resetReply(c.heldMark);
        c.gatedSequence = 0;
        c.gatedWrite = false;
        c.front.closeAfterReply();
        c.front.due();
        LOG.log(Level.WARNING, "client {0} disconnected: this node became a replica before its write was "
                + "acknowledged; the outcome is unknown to it", c.front.id());
    }
}
