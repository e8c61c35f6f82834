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
}
