package tandem.node;

import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub;

/**
 * The replicas' acknowledgements and the ack policy: how far writes may be answered.
 *
 * <p>A write is applied once the primary's own journal holds it durably, or, under {@code ram}, once a replica
 * holds it in memory (the store writes it to RocksDB only once it is durable here, so that a restarted store is
 * never ahead of its journal). Its answer is sent once its policy holds: {@code disk} needs the primary's journal;
 * {@code disk+ram} that and a replica that holds it in memory; {@code ram} only a replica that holds it in memory
 * (the primary's group commit continues behind it); {@code two-disks} the primary's journal and a replica that
 * made it durable. With too
 * few replicas the answer waits; the gate never weakens the policy, and it never fails a write that was journaled.
 * Other clients are served meanwhile and, as in Redis before {@code WAIT} returns, may read the write.
 *
 * <p>The ack policies count the journal protocol's replicas (the replicas a primary registers, DESIGN.md § Roles);
 * {@code WAIT} and {@code min-replicas-to-write} count every protocol's.
 *
 * <p>Slots are written by replication threads and read by the logic thread; an acknowledgement that releases what
 * the logic thread waits for wakes it.
 */
public final class ResponseGate {

    private final Runnable wake;
    private final Slot[] slots = new Slot[ReplicationHub.MAX_REPLICAS];
    private volatile AckPolicy policy = AckPolicy.DISK;
    private volatile long waitingFor = Long.MAX_VALUE;
    /** Set while a client waits in {@code WAIT}: then every acknowledgement wakes the logic thread. */
    private volatile boolean wakeOnEveryAck;
    /**
     * The highest sequence any replica, attached now or gone since, has shown it holds (in memory or durable): what
     * a demoted primary's split-brain audit starts after; -1 before any.
     */
    private final java.util.concurrent.atomic.AtomicLong highestHeld = new java.util.concurrent.atomic.AtomicLong(-1);
    /** The last acknowledgement of a replica that has detached since ({@code nanoTime}), 0 for none. */
    private volatile long lastDetachedAckNanos;

    ResponseGate(Runnable wake) {
        this.wake = wake;
    }

    /** One replica's progress; -1 while not engaged. */
    final class Slot implements ReplicationHub.ReplicaSlot {
        final String id;
        final String protocol;
        final String address;
        final Runnable requestAck;
        volatile long inMemory = -1;
        volatile long acked = -1;
        volatile long lastAckNanos;

        Slot(String id, String protocol, String address, Runnable requestAck) {
            this.id = id;
            this.protocol = protocol;
            this.address = address;
            this.requestAck = requestAck;
        }

        @Override
        public void seed(long sequence) {
            lastAckNanos = System.nanoTime(); // before acked: a reader that sees this slot engaged sees its time
            acked = sequence;
            inMemory = sequence;
            held(sequence);
            changed();
        }

        @Override
        public void ack(long inMemorySequence, long ackedSequence) {
            // Before acked: the quorum fence, on another thread, counted a first-engaged slot whose time was still 0
            // as an acknowledgement 'forever ago' and refused writes for a moment.
            lastAckNanos = System.nanoTime();
            if (ackedSequence > acked) {
                acked = ackedSequence;
            }
            if (inMemorySequence > inMemory) {
                inMemory = inMemorySequence;
            }
            held(Math.max(inMemorySequence, ackedSequence));
            changed();
        }

        boolean countsForPolicy() {
            return JOURNAL.equals(protocol);
        }

        @Override
        public void detach() {
            synchronized (slots) {
                if (acked >= 0 && (lastDetachedAckNanos == 0 || lastAckNanos - lastDetachedAckNanos > 0)) {
                    lastDetachedAckNanos = lastAckNanos; // the quorum fence's liveness outlives a reconnection
                }
                for (int i = 0; i < slots.length; i++) {
                    if (slots[i] == this) {
                        slots[i] = null;
                    }
                }
            }
        }
    }

    private static final String JOURNAL = "journal";

    private void held(long sequence) {
        if (sequence > highestHeld.get()) {
            highestHeld.accumulateAndGet(sequence, Math::max);
        }
    }

    /** @return the highest sequence any replica has shown it holds, -1 before any */
    long highestHeld() {
        return highestHeld.get();
    }

    /** {@link #attach(String, String, String, Runnable)} for a protocol whose replicas acknowledge on their own. */
    public ReplicationHub.ReplicaSlot attach(String id, String protocol, String address) {
        return attach(id, protocol, address, null);
    }

    /** @return a free slot, or null when every one is taken */
    public ReplicationHub.ReplicaSlot attach(String id, String protocol, String address, Runnable requestAck) {
        synchronized (slots) {
            for (int i = 0; i < slots.length; i++) {
                if (slots[i] == null) {
                    slots[i] = new Slot(id, protocol, address, requestAck);
                    return slots[i];
                }
            }
            return null;
        }
    }

    /** @return how many replicas, of every protocol, acknowledged {@code sequence} (and so everything before it) */
    int acknowledged(long sequence) {
        int n = 0;
        for (Slot s : slots) {
            if (s != null && s.acked >= sequence && s.acked >= 0) {
                n++;
            }
        }
        return n;
    }

    /**
     * @return how many replicas are good for {@code min-replicas-to-write}: engaged, and either holding everything
     *         durable here or acknowledged within {@code maxLagNanos} (0: no lag limit); a replica with nothing to
     *         acknowledge sends no acknowledgement, and is not late for that
     */
    int good(long localDurable, long maxLagNanos) {
        long now = System.nanoTime();
        int n = 0;
        for (Slot s : slots) {
            if (s == null || s.acked < 0) {
                continue;
            }
            if (maxLagNanos == 0 || s.acked >= localDurable || now - s.lastAckNanos < maxLagNanos) {
                n++;
            }
        }
        return n;
    }

    /** @return how many replicas are engaged (hold a position in this node's history) */
    int streaming() {
        int n = 0;
        for (Slot s : slots) {
            if (s != null && s.acked >= 0) {
                n++;
            }
        }
        return n;
    }

    /** @return nanoseconds since the last acknowledgement of any replica, engaged now or detached since */
    long sinceLastAckNanos() {
        long now = System.nanoTime();
        long since = lastDetachedAckNanos == 0 ? Long.MAX_VALUE : now - lastDetachedAckNanos;
        for (Slot s : slots) {
            if (s != null && s.acked >= 0) {
                since = Math.min(since, now - s.lastAckNanos);
            }
        }
        return since;
    }

    /** @return every engaged replica, {@code protocol id@address}, with the milliseconds since its last ack */
    java.util.Map<String, Long> ackAgesMillis() {
        long now = System.nanoTime();
        java.util.Map<String, Long> ages = new java.util.LinkedHashMap<>();
        for (Slot s : slots) {
            if (s != null && s.acked >= 0) {
                ages.put(s.protocol + " " + s.id + "@" + s.address, (now - s.lastAckNanos) / 1_000_000);
            }
        }
        return ages;
    }

    /** Asks every replica whose protocol acknowledges only from time to time for an acknowledgement now. */
    void requestAcks() {
        for (Slot s : slots) {
            if (s != null && s.requestAck != null) {
                s.requestAck.run();
            }
        }
    }

    /** While true, every acknowledgement wakes the logic thread (a client waits in {@code WAIT}). */
    void wakeOnEveryAck(boolean on) {
        wakeOnEveryAck = on;
    }

    public void policy(AckPolicy p) {
        policy = p;
        wake.run();
    }

    public AckPolicy policy() {
        return policy;
    }

    /** @return the number of replicas attached, of every protocol */
    public int attached() {
        int n = 0;
        for (Slot s : slots) {
            if (s != null) {
                n++;
            }
        }
        return n;
    }

    /** @return the last sequence that may be answered, given the primary's durable sequence */
    long released(long localDurable) {
        AckPolicy p = policy;
        if (!p.needsReplica()) {
            return localDurable;
        }
        long best = 0;
        for (Slot s : slots) {
            if (s != null && s.countsForPolicy()) {
                best = Math.max(best, p == AckPolicy.TWO_DISKS ? s.acked : s.inMemory);
            }
        }
        return p == AckPolicy.RAM ? best : Math.min(localDurable, best);
    }

    /** @return true under {@code ram} */
    boolean ram() {
        return policy == AckPolicy.RAM;
    }

    /**
     * @return true when, under {@code ram}, a replica holds {@code sequence} in memory: it may be applied before the
     *         primary's own journal makes it durable
     */
    boolean heldInMemory(long sequence) {
        if (policy != AckPolicy.RAM) {
            return false;
        }
        for (Slot s : slots) {
            if (s != null && s.countsForPolicy() && s.inMemory >= sequence) {
                return true;
            }
        }
        return false;
    }

    /**
     * Asks to be woken when {@code sequence} is released.
     *
     * @return true when it is released already (re-checked after registering, so no wake-up is lost)
     */
    boolean await(long sequence, long localDurable) {
        waitingFor = sequence;
        if (released(localDurable) >= sequence) {
            waitingFor = Long.MAX_VALUE;
            return true;
        }
        return false;
    }

    private void changed() {
        if (wakeOnEveryAck) {
            wake.run();
            return;
        }
        long w = waitingFor;
        if (w != Long.MAX_VALUE) {
            // the logic thread re-evaluates with the journal's durable sequence; a spurious wake costs one round
            waitingFor = Long.MAX_VALUE;
            wake.run();
        }
    }
}
