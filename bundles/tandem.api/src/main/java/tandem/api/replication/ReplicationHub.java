package tandem.api.replication;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The node's side of replication, provided by the node core. On a primary, replication protocols attach each replica
 * they serve and report its acknowledgements; the response gate answers a write once the ack policy holds for it
 * (counting the journal protocol's replicas), and {@code WAIT} counts the replicas of every protocol.
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

    /**
     * {@link #attach(String, String, String)}, for a protocol whose replicas acknowledge only from time to time:
     * {@code requestAck} is called when a client waits for acknowledgements ({@code WAIT}), so that it can ask its
     * replica for one at once ({@code REPLCONF GETACK}).
     */
    ReplicaSlot attach(String id, String protocol, String address, Runnable requestAck);

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
    default void follow(String upstream) {
        follow(upstream, "journal");
    }

    /**
     * {@link #follow(String)} through a protocol: a node follows one primary through one protocol, and only that
     * protocol makes it a primary again.
     *
     * @param protocol {@code journal} or {@code psync}
     */
    void follow(String upstream, String protocol);

    /** @return the primary this node follows, or null when it is a primary */
    String upstream();

    /** @return the protocol through which this node follows its primary, or null when it is a primary */
    String upstreamProtocol();

    /**
     * Tells the pipeline that the entries replication appended to the journal are durable up to {@code sequence}:
     * it applies them.
     */
    void appended(long sequence);

    /**
     * @return the RESP front end attached to the node (its address is what a psync replica announces and what status
     *         reports), or null while none is attached
     */
    tandem.api.server.ServerStatus frontend();

    /** @return the last sequence applied to the keyspace */
    long appliedSequence();

    /**
     * Replica: replaces the keyspace by a checkpoint of the primary's store (a snapshot or full sync), on the logic
     * thread between applies, and returns once the store holds it. From then on the node applies nothing, and
     * answers keyspace commands with {@code -LOADING}, until the journal holds the checkpoint's history at
     * {@code sequence} (its chain value there equals {@code chain}); the caller installs that journal next. A crash
     * in between is safe: the store remembers its origin, and no journal of another history is replayed into it.
     *
     * @param checkpoint a complete, verified checkpoint directory on the store's file system (moved into place)
     * @param sequence   the applied sequence the checkpoint holds, or -1 to take whatever it holds
     * @return the applied sequence the store holds now
     * @throws IllegalStateException when no store is active or the store refused the checkpoint (then nothing
     *                               changed), naming why
     * @throws InterruptedException  when the caller is interrupted while it waits
     */
    long install(java.nio.file.Path checkpoint, long sequence, byte[] chain) throws InterruptedException;

    /**
     * Promotion of a replica: once everything its journal holds durably is applied, appends an EpochBump for
     * {@code epoch} (the first entry of this node's tenure as primary) and stops following: client writes are
     * accepted from then on.
     *
     * @return the EpochBump's sequence
     * @throws IllegalStateException when the node does not follow, or its store is not reconciled with its journal,
     *                               or the journal refuses the entry, naming why
     * @throws InterruptedException  when the caller is interrupted while it waits
     */
    long lead(long epoch) throws InterruptedException;

    /**
     * Refuses client writes, before they are sequenced, with {@code error} as the reply (without its leading
     * {@code -}; its first word is the error code), or accepts them again when {@code error} is null. Reads are
     * served either way.
     */
    void fence(String error);

    /** @return the error writes are refused with, or null while they are accepted */
    String fence();

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
