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

    /**
     * @return on a primary, one line per replica with the ack round trips measured since the previous call (from
     *         handing a batch to the transport to the replica's acknowledgement of it): count, p50, p99, p99.9
     *         and max in microseconds; null when there is nothing to report
     * @since 1.4
     */
    default String ackRoundTrip() {
        return null;
    }
}
