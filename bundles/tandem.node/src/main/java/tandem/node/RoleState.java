package tandem.node;

/**
 * What the node is now: a primary or the follower of one, whether a replication protocol declared that yet, and the
 * fence client writes are refused with. {@link RoleControl} changes it; the parts of the logic thread read it. Any
 * thread may read.
 */
final class RoleState {

    /** The primary this node follows, or null on a primary. */
    private volatile String upstream;
    /**
     * False from a node's first start until a replication protocol declares its role: keyspace commands wait for it
     * (up to the pause window), so that a replica never journals a client's write.
     */
    private volatile boolean known = true;
    /** The error client writes are refused with (the restart fence), or null. */
    private volatile String fence;
    /** Set when the logic thread journals a client write; read and cleared when the node turns replica. */
    private volatile boolean tookClientWrites;

    String upstream() {
        return upstream;
    }

    boolean following() {
        return upstream != null;
    }

    void upstream(String primary) {
        upstream = primary;
    }

    boolean known() {
        return known;
    }

    void known(boolean declared) {
        known = declared;
    }

    String fence() {
        return fence;
    }

    void fence(String error) {
        fence = error;
    }

    /** The logic thread journaled a client write. */
    void tookClientWrite() {
        if (!tookClientWrites) {
            tookClientWrites = true;
        }
    }

    /** @return whether a client write was journaled since the last call (this node took writes as a primary) */
    boolean takeClientWrites() {
        boolean took = tookClientWrites;
        tookClientWrites = false;
        return took;
    }
}
