package tandem.replication;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub;

/** The server's side of replication, as a contract: records every call. */
final class TestHub implements ReplicationHub {

    final List<String> events = new CopyOnWriteArrayList<>();
    volatile boolean full;
    volatile AckPolicy policy = AckPolicy.DISK;
    volatile String upstream;
    volatile long appended;

    @Override
    public ReplicaSlot attach(String id, String protocol, String address, Runnable requestAck) {
        return attach(id, protocol, address);
    }

    @Override
    public ReplicaSlot attach(String id, String protocol, String address) {
        if (full) {
            events.add("refused " + protocol);
            return null;
        }
        events.add("attach " + protocol);
        return new ReplicaSlot() {
            @Override
            public void seed(long sequence) {
                events.add("seed " + sequence);
            }

            @Override
            public void ack(long inMemory, long acked) {
                events.add("ack " + inMemory + " " + acked);
            }

            @Override
            public void detach() {
                events.add("detach");
            }
        };
    }

    volatile String upstreamProtocol;

    @Override
    public void ackPolicy(AckPolicy p) {
        policy = p;
    }

    @Override
    public AckPolicy ackPolicy() {
        return policy;
    }

    @Override
    public void follow(String up, String protocol) {
        upstream = up;
        upstreamProtocol = up == null ? null : protocol;
        events.add("follow " + up);
    }

    @Override
    public String upstream() {
        return upstream;
    }

    @Override
    public String upstreamProtocol() {
        return upstreamProtocol;
    }

    @Override
    public void appended(long sequence) {
        appended = Math.max(appended, sequence);
        events.add("appended " + sequence);
    }

    @Override
    public tandem.api.server.ServerStatus frontend() {
        return null;
    }

    @Override
    public long appliedSequence() {
        return appended;
    }

    volatile String fence;
    /** What {@link #install} was given: the checkpoint's sequence, or -1. */
    volatile long installed = -1;

    /** A real store {@link #install} installs into, when a test sets one. */
    volatile tandem.api.store.Keyspace store;

    @Override
    public long install(java.nio.file.Path checkpoint, long sequence, byte[] chain) {
        tandem.api.store.Keyspace k = store;
        if (k != null) {
            k.install(checkpoint, sequence, chain);
        }
        installed = sequence;
        appended = sequence;
        events.add("install " + sequence);
        return sequence;
    }

    /** Thrown by {@link #lead} when a test sets it: a node core that cannot lead. */
    volatile RuntimeException leadFailure;

    @Override
    public long lead(long epoch) {
        if (leadFailure != null) {
            throw leadFailure;
        }
        events.add("lead " + epoch);
        upstream = null;
        return appended + 1;
    }

    @Override
    public void fence(String error) {
        fence = error;
        events.add("fence " + error);
    }

    @Override
    public String fence() {
        return fence;
    }
}
