package tandem.api.replication;

import org.osgi.annotation.versioning.ProviderType;

/** The psync protocol's primary side, provided by {@code tandem.psync}; the server hands it every {@code PSYNC}. */
@ProviderType
public interface PsyncService {

    /**
     * Answers a {@code PSYNC}: writes {@code +FULLRESYNC <id> <offset>} or {@code +CONTINUE <id>} on {@code link}
     * and streams from then on; or refuses it with an {@code -ERR} line, and the connection stays a client.
     *
     * @return the session that receives what the replica sends next, or null when the request was refused
     */
    PsyncSession psync(PsyncRequest request, PsyncLink link);
}
