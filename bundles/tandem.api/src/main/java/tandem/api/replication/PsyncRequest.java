package tandem.api.replication;

import java.util.Set;

/**
 * A replica's {@code PSYNC}, with what it announced before it on the same connection ({@code REPLCONF}).
 *
 * @param replicationId the replication id it asks to continue, or {@code ?} for a first attach
 * @param offset        the offset it holds (-1 with {@code ?})
 * @param address       the connection's peer {@code ip:port}
 * @param listeningPort the RESP port it announced ({@code REPLCONF listening-port}), 0 when none
 * @param capabilities  the {@code capa} tokens it announced, lower case
 * @param version       the version it announced ({@code REPLCONF tandem-version} or {@code frogdb-version}), or
 *                      null
 */
public record PsyncRequest(String replicationId, long offset, String address, int listeningPort,
        Set<String> capabilities, String version) {

    public PsyncRequest {
        capabilities = Set.copyOf(capabilities);
    }

    /** @return the replica's announced address, {@code ip:listening-port} (the peer's port when none announced) */
    public String announcedAddress() {
        int colon = address.lastIndexOf(':');
        String ip = colon < 0 ? address : address.substring(0, colon);
        return listeningPort > 0 ? ip + ":" + listeningPort : address;
    }
}
