package tandem.api.replication;

import org.osgi.annotation.versioning.ProviderType;

/** Operator actions on a replication protocol, for the shell. */
@ProviderType
public interface ReplicationControl {

    /** @return the protocol's name, {@code journal} or {@code psync} */
    String protocol();

    /**
     * Sets the ack policy and keeps it in the node's configuration.
     *
     * @param policy {@code disk}, {@code disk+ram}, {@code two-disks}, {@code ram}, or {@code auto} ({@code disk}
     *               while no replica is registered, {@code disk+ram} after)
     * @throws IllegalArgumentException naming the accepted values
     */
    void ackPolicy(String policy);

    /**
     * Removes a replica from the registry of replicas this primary has served (it no longer counts for retention
     * or the default policy); a connected replica stays connected and registers again.
     *
     * @return false when no such replica is registered
     */
    boolean forget(String id);

    /**
     * Promotion. On a replica: stops following once what it received is durable and applied, journals an
     * EpochBump for the next epoch as the first entry of its tenure, and becomes a primary that accepts client
     * writes and replicas; the role is kept in the node's configuration. On a primary fenced after a crash, with
     * {@code force}: lifts the fence.
     *
     * @param force promote even while the primary still streams to this replica; lift a primary's fence
     * @return what was done, for the operator
     * @throws IllegalStateException naming why it cannot be done
     * @throws InterruptedException  when interrupted while it waits for the journal or the pipeline
     */
    String promote(boolean force) throws InterruptedException;

    /**
     * Makes this node a replica of the primary at {@code address}, kept in the node's configuration. A node whose
     * history diverged from that primary's gets a snapshot; its own journal is archived as a lineage, never deleted.
     *
     * @param address the primary's {@code IP:PORT}
     * @return what was done, for the operator
     * @throws IllegalArgumentException when the address is not {@code IP:PORT}
     */
    String replicaOf(String address);
}
