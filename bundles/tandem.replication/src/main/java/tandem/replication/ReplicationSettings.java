package tandem.replication;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import tandem.api.replication.AckPolicy;
import tandem.protocol.config.PropertyCheck;

/** The validated configuration of PID {@value #PID}; every error names its property. */
record ReplicationSettings(String bind, int port, String primaryHost, int primaryPort, String ackPolicy,
        int maxFrameBytes, int heartbeatMs, int handshakeTimeoutMs, int reconnectMaxMs, long ringMaxBytes,
        Path stateDirectory, List<String> transports) {

    static final String PID = "tandem.replication";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);

    /** @param home the node's home, absolute: the base of a relative or default state directory */
    static ReplicationSettings of(ReplicationComponent.Config c, Path home) {
        String bind = c.bind().trim();
        CHECK.ipLiteral("bind", bind);
        int port = CHECK.range("port", c.port(), 0, 65535);
        String[] hostPort = primary(c.primary());
        String primaryHost = hostPort == null ? null : hostPort[0];
        int primaryPort = hostPort == null ? 0 : Integer.parseInt(hostPort[1]);
        String policy = c.ack_policy().trim().toLowerCase(Locale.ROOT);
        if (!policy.equals("auto")) {
            try {
                AckPolicy.parse(policy);
            } catch (IllegalArgumentException e) {
                throw CHECK.invalid("ack.policy", c.ack_policy(), "must be auto, disk, disk+ram, two-disks or ram");
            }
        }
        int maxFrame = CHECK.range("max.frame.bytes", c.max_frame_bytes(), 128 * 1024, 64 * 1024 * 1024);
        int heartbeat = CHECK.range("heartbeat.ms", c.heartbeat_ms(), 10, 60_000);
        int handshake = CHECK.range("handshake.timeout.ms", c.handshake_timeout_ms(), 100, 600_000);
        int reconnect = CHECK.range("reconnect.max.ms", c.reconnect_max_ms(), 100, 600_000);
        long ring = c.ring_max_bytes();
        if (ring < 4L * maxFrame || ring > (1L << 34)) {
            throw CHECK.invalid("ring.max.bytes", Long.toString(ring),
                    "must be between 4 × max.frame.bytes and 16 GiB");
        }
        Path dir = directory(c.state_directory(), home);
        return new ReplicationSettings(bind, port, primaryHost, primaryPort, policy, maxFrame, heartbeat, handshake,
                reconnect, ring, dir, transports(c.transports()));
    }

    /**
     * @return {@code [host, port]} of a primary's address {@code IP:PORT} ({@code [v6]:PORT} too), or null for an
     *         empty one
     * @throws IllegalArgumentException naming the property when it is not an IP literal and a port
     */
    private static String[] primary(String text) {
        try {
            return tandem.protocol.net.IpLiteral.hostPort(text);
        } catch (IllegalArgumentException e) {
            throw CHECK.invalid("primary", text.trim(), e.getMessage());
        }
    }

    /** @return the transport names by preference: lower-case words, comma-separated, none twice, 1 to 8 */
    static List<String> transports(String text) {
        List<String> names = new ArrayList<>();
        for (String part : text.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (!name.matches("[a-z][a-z0-9-]{0,31}")) {
                throw CHECK.invalid("transports", text, "\"" + part.trim() + "\" is not a transport name");
            }
            if (names.contains(name)) {
                throw CHECK.invalid("transports", text, name + " is named twice");
            }
            names.add(name);
        }
        if (names.size() > 8) {
            throw CHECK.invalid("transports", text, "names more than 8 transports");
        }
        return List.copyOf(names);
    }

    /** @return these settings with another primary ({@code IP:PORT}, or empty/null for none) */
    ReplicationSettings withPrimary(String address) {
        String[] hostPort = primary(address);
        return new ReplicationSettings(bind, port, hostPort == null ? null : hostPort[0],
                hostPort == null ? 0 : Integer.parseInt(hostPort[1]), ackPolicy, maxFrameBytes, heartbeatMs,
                handshakeTimeoutMs, reconnectMaxMs, ringMaxBytes, stateDirectory, transports);
    }

    /** @return these settings with another ack policy (already validated) */
    ReplicationSettings withAckPolicy(String policy) {
        return new ReplicationSettings(bind, port, primaryHost, primaryPort, policy, maxFrameBytes, heartbeatMs,
                handshakeTimeoutMs, reconnectMaxMs, ringMaxBytes, stateDirectory, transports);
    }

    /** @return {@code ip:port} of the primary, or null on a primary */
    String primary() {
        if (primaryHost == null) {
            return null;
        }
        return (primaryHost.indexOf(':') >= 0 ? "[" + primaryHost + "]" : primaryHost) + ":" + primaryPort;
    }

    /** @return the policy to enforce, given whether any replica is registered */
    AckPolicy effectivePolicy(boolean registryEmpty) {
        if (ackPolicy.equals("auto")) {
            return registryEmpty ? AckPolicy.DISK : AckPolicy.DISK_RAM;
        }
        return AckPolicy.parse(ackPolicy);
    }

    private static Path directory(String configured, Path home) {
        String d = configured == null ? "" : configured.trim();
        return d.isEmpty() ? home.resolve("data").resolve("replication") : home.resolve(d);
    }
}
