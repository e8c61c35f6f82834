package tandem.server.pipeline;

import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub;

/**
 * The replicas' acknowledgements and the ack policy: how far writes may be answered.
 *
 * <p>A write is applied once the primary's own journal holds it durably (so that a restarted store replays exactly
 * what was applied), and its answer is sent once its policy holds: {@code disk} needs nothing more; {@code disk+ram}
 * and {@code ram} need a replica that holds it in memory; {@code two-disks} a replica that made it durable. With too
 * few replicas the answer waits; the gate never weakens the policy, and it never fails a write that was journaled.
 * Other clients are served meanwhile and, as in Redis before {@code WAIT} returns, may read the write.
 *
 * <p>Slots are written by replication threads and read by the logic thread; an acknowledgement that releases what
 * the logic thread waits for wakes it.
 */
public final class ResponseGate {

    private final Runnable wake;
    private final Slot[] slots = new Slot[ReplicationHub.MAX_REPLICAS];
    private volatile AckPolicy policy = AckPolicy.DISK;
    private volatile long waitingFor = Long.MAX_VALUE;

    ResponseGate(Runnable wake) {
        this.wake = wake;
    }

    /** One replica's progress; -1 while not engaged. */
    final class Slot implements ReplicationHub.ReplicaSlot {
        final String id;
        final String protocol;
        final String address;
        volatile long inMemory = -1;
        volatile long acked = -1;

        Slot(String id, String protocol, String address) {
            this.id = id;
            this.protocol = protocol;
            this.address = address;
        }

        @Override
        public void seed(long sequence) {
            acked = sequence;
            inMemory = sequence;
            changed();
        }

        @Override
        public void ack(long inMemorySequence, long ackedSequence) {
            if (ackedSequence > acked) {
                acked = ackedSequence;
            }
            if (inMemorySequence > inMemory) {
                inMemory = inMemorySequence;
            }
            changed();
        }

        @Override
        public void detach() {
            synchronized (slots) {
                for (int i = 0; i < slots.length; i++) {
                    if (slots[i] == this) {
                        slots[i] = null;
                    }
                }
            }
        }
    }

    /** @return a free slot, or null when every one is taken */
    public ReplicationHub.ReplicaSlot attach(String id, String protocol, String address) {
        synchronized (slots) {
            for (int i = 0; i < slots.length; i++) {
                if (slots[i] == null) {
                    slots[i] = new Slot(id, protocol, address);
                    return slots[i];
                }
            }
            return null;
        }
    }

    public void policy(AckPolicy p) {
        policy = p;
        wake.run();
    }

    public AckPolicy policy() {
        return policy;
    }

    /** @return the number of replicas attached */
    public int attached() {
        int n = 0;
        for (Slot s : slots) {
            if (s != null) {
                n++;
            }
        }
        return n;
    }

    /** @return the last sequence that may be applied and answered, given the primary's durable sequence */
    long released(long localDurable) {
        AckPolicy p = policy;
        if (!p.needsReplica()) {
            return localDurable;
        }
        long best = 0;
        for (Slot s : slots) {
            if (s != null) {
                best = Math.max(best, p == AckPolicy.TWO_DISKS ? s.acked : s.inMemory);
            }
        }
        return Math.min(localDurable, best);
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
        long w = waitingFor;
        if (w != Long.MAX_VALUE) {
            // the logic thread re-evaluates with the journal's durable sequence; a spurious wake costs one round
            waitingFor = Long.MAX_VALUE;
            wake.run();
        }
    }
}
