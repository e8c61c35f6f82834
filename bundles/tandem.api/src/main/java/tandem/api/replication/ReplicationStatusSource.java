package tandem.api.replication;

import org.osgi.annotation.versioning.ConsumerType;

/** Provided by each replication protocol; read by {@code INFO replication}, the shell and health. */
@ConsumerType
public interface ReplicationStatusSource {

    /** @return the protocol's current state */
    ReplicationStatus replicationStatus();

    /**
     * @return which transports the protocol uses and why it does not use the others it is configured to prefer
     *         (not installed, or unavailable with the transport's reason), or null when it has no transports
     * @since 1.4
     */
    default String transportStatus() {
        return null;
    }

    /**
     * @return the counters of the transports in use, one line per transport ({@code name: key=value, ...}), or
     *         null when none counts anything
     * @since 1.4
     */
    default String transportCounters() {
        return null;
    }
}
