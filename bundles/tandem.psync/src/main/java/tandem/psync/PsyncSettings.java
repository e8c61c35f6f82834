package tandem.psync;

import java.net.InetAddress;
import java.nio.file.Path;

import tandem.protocol.config.PropertyCheck;

/** The validated configuration of PID {@value #PID}; every error names its property. */
record PsyncSettings(String replicaOfHost, int replicaOfPort, String masterUser, String masterAuth, int ackIntervalMs,
        int writeTimeoutMs, int maxLagFrames, int handshakeTimeoutMs, int reconnectMaxMs, Path stateDirectory) {

    static final String PID = "tandem.psync";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);

    /** @param home the node's home, absolute: the base of a relative or default state directory */
    static PsyncSettings of(PsyncComponent.Config c, Path home) {
        String[] hostPort = address(c.replicaof());
        return new PsyncSettings(hostPort == null ? null : hostPort[0],
                hostPort == null ? 0 : Integer.parseInt(hostPort[1]),
                c.masteruser() == null || c.masteruser().isEmpty() ? null : c.masteruser(),
                c.masterauth() == null || c.masterauth().isEmpty() ? null : c.masterauth(),
                CHECK.range("ack.interval.ms", c.ack_interval_ms(), 10, 60_000),
                CHECK.range("write.timeout.ms", c.write_timeout_ms(), 0, 600_000),
                CHECK.range("max.lag.frames", c.max_lag_frames(), 100, 10_000_000),
                CHECK.range("handshake.timeout.ms", c.handshake_timeout_ms(), 100, 600_000),
                CHECK.range("reconnect.max.ms", c.reconnect_max_ms(), 100, 600_000),
                directory(c.state_directory(), home));
    }

    /** @return {@code ip:port} of the primary followed, or null on a primary */
    String replicaOf() {
        if (replicaOfHost == null) {
            return null;
        }
        return (replicaOfHost.indexOf(':') >= 0 ? "[" + replicaOfHost + "]" : replicaOfHost) + ":" + replicaOfPort;
    }

    /** @return these settings following {@code address} ({@code IP:PORT}), or none with null or empty */
    PsyncSettings withReplicaOf(String address) {
        String[] hostPort = address(address);
        return new PsyncSettings(hostPort == null ? null : hostPort[0],
                hostPort == null ? 0 : Integer.parseInt(hostPort[1]), masterUser, masterAuth, ackIntervalMs,
                writeTimeoutMs,
                maxLagFrames, handshakeTimeoutMs, reconnectMaxMs, stateDirectory);
    }

    InetAddress replicaOfAddress() {
        return tandem.protocol.net.IpLiteral.parse(replicaOfHost);
    }

    /**
     * @return {@code [host, port]} of {@code IP:PORT} ({@code [v6]:PORT} too), or null for an empty one
     * @throws IllegalArgumentException naming {@code replicaof} when it is not an IP literal and a port
     */
    private static String[] address(String text) {
        try {
            return tandem.protocol.net.IpLiteral.hostPort(text);
        } catch (IllegalArgumentException e) {
            throw CHECK.invalid("replicaof", text.trim(), e.getMessage() + " (the primary's RESP port)");
        }
    }

    private static Path directory(String configured, Path home) {
        String d = configured == null ? "" : configured.trim();
        return d.isEmpty() ? home.resolve("data").resolve("psync") : home.resolve(d);
    }
}
