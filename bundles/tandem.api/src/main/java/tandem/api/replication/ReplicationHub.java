package tandem.api.replication;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The node's side of replication, provided by the server. On a primary, replication protocols attach each replica
 * they serve and report its acknowledgements; the response gate answers a write once the ack policy holds for it.
 * On a replica, the protocol switches the node to follow its primary: client writes are refused with
 * {@code -READONLY}, no Tick is emitted, and what the protocol appends to the journal is applied once durable.
 */
@ProviderType
public interface ReplicationHub {

    /** The most replicas a primary serves, of every protocol together. */
    int MAX_REPLICAS = 2;

    /**
     * Takes one of the {@link #MAX_REPLICAS} replica slots.
     *
     * @param id       the replica's identity (a key fingerprint, a psync replica id)
     * @param protocol {@code journal} or {@code psync}
     * @param address  the peer's address, for status
     * @return the slot, or null when every slot is taken
     */
    ReplicaSlot attach(String id, String protocol, String address);

    /** Sets the policy the response gate enforces from now on; writes already waiting are re-evaluated. */
    void ackPolicy(AckPolicy policy);

    /** @return the policy the response gate enforces */
    AckPolicy ackPolicy();

    /**
     * Makes this node a replica (or a primary again with {@code upstream == null}). While following, client writes
     * are refused with {@code -READONLY You can't write against a read only replica.}
     *
     * @param upstream the primary's address, for status and errors
     */
    void follow(String upstream);

    /** @return the primary this node follows, or null when it is a primary */
    String upstream();

    /**
     * Tells the pipeline that the entries replication appended to the journal are durable up to {@code sequence}:
     * it applies them.
     */
    void appended(long sequence);

    /** @return the last sequence applied to the keyspace */
    long appliedSequence();

    /** One replica's progress on a primary; its methods may be called from any thread. */
    @ProviderType
    interface ReplicaSlot {

        /** Engages the slot at the sequence the replica already holds (both tracks). */
        void seed(long sequence);

        /**
         * Records an acknowledgement.
         *
         * @param inMemory the last sequence the replica accepted into its pipeline
         * @param acked    the last sequence it made durable
         */
        void ack(long inMemory, long acked);

        /** Releases the slot; the gate no longer counts this replica. */
        void detach();
    }
}
