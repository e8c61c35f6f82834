package tandem.api.replication;

import org.osgi.annotation.versioning.ConsumerType;

/** Provided by each replication protocol; read by {@code INFO replication}, the shell and health. */
@ConsumerType
public interface ReplicationStatusSource {

    /** @return the protocol's current state */
    ReplicationStatus replicationStatus();
}
