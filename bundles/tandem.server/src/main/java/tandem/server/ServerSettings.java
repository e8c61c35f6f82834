package tandem.server;

import java.net.InetAddress;
import java.util.Locale;

import tandem.protocol.config.PropertyCheck;

/**
 * The validated configuration of the RESP server. Every check names the property it refuses, so that an operator
 * who mistypes {@code etc/tandem.server.cfg} reads which line is wrong.
 */
record ServerSettings(int port, int tlsPort, String bind, InetAddress bindAddress, int maxClients, int maxRequestSize,
        String transport, int ioThreads, String requirePass, int minReplicasToWrite,
        long minReplicasTimeoutMs, java.nio.file.Path aclFile) {

    static final String PID = "tandem.server";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);

    static ServerSettings of(RespServer.Config c) {
        int port = CHECK.range("port", c.port(), -1, 65535);
        int tlsPort = CHECK.range("tls.port", c.tls_port(), -1, 65535);
        if (port >= 0 && port == tlsPort && port != 0) {
            throw CHECK.invalid("tls.port", Integer.toString(tlsPort), "is the plain port too");
        }
        if (port < 0 && tlsPort < 0) {
            throw CHECK.invalid("port", "-1", "with tls.port=-1 too the node would serve no client");
        }
        String bind = c.bind() == null ? "" : c.bind().trim();
        InetAddress address = CHECK.ipLiteral("bind", bind);
        int maxClients = CHECK.range("max.clients", c.max_clients(), 1, 1_000_000);
        int maxRequest = CHECK.range("max.request.size", c.max_request_size(), 1024, Integer.MAX_VALUE - 16);
        String transport = c.transport() == null ? "" : c.transport().trim().toLowerCase(Locale.ROOT);
        if (!transport.equals("auto") && !transport.equals("epoll") && !transport.equals("nio")) {
            throw CHECK.invalid("transport", c.transport(), "must be auto, epoll or nio");
        }
        int ioThreads = CHECK.range("io.threads", c.io_threads(), 1, 64);
        String pass = c.requirepass() == null || c.requirepass().isEmpty() ? null : c.requirepass();
        int minReplicas = CHECK.range("min.replicas.to.write", c.min_replicas_to_write(), 0, 2);
        long timeout = CHECK.range("min.replicas.timeout.ms", c.min_replicas_timeout_ms(), 0, 86_400_000L);
        return new ServerSettings(port, tlsPort, bind, address, maxClients, maxRequest, transport, ioThreads,
                pass, minReplicas, timeout, aclFile(c.aclfile()));
    }

    ServerSettings withTlsPort(int value) {
        return new ServerSettings(port, value, bind, bindAddress, maxClients, maxRequestSize, transport, ioThreads,
                requirePass, minReplicasToWrite, minReplicasTimeoutMs, aclFile);
    }

    ServerSettings withMaxClients(int value) {
        return new ServerSettings(port, tlsPort, bind, bindAddress, value, maxRequestSize, transport, ioThreads,
                requirePass, minReplicasToWrite, minReplicasTimeoutMs, aclFile);
    }

    ServerSettings withMaxRequestSize(int value) {
        return new ServerSettings(port, tlsPort, bind, bindAddress, maxClients, value, transport, ioThreads,
                requirePass, minReplicasToWrite, minReplicasTimeoutMs, aclFile);
    }

    ServerSettings withRequirePass(String value) {
        return new ServerSettings(port, tlsPort, bind, bindAddress, maxClients, maxRequestSize, transport, ioThreads,
                value == null || value.isEmpty() ? null : value, minReplicasToWrite, minReplicasTimeoutMs, aclFile);
    }

    ServerSettings withMinReplicas(int replicas, long timeoutMs) {
        return new ServerSettings(port, tlsPort, bind, bindAddress, maxClients, maxRequestSize, transport, ioThreads,
                requirePass, replicas, timeoutMs, aclFile);
    }

    /** @return the ACL file, absolute (a relative path is the node home's), or null when none is configured */
    private static java.nio.file.Path aclFile(String value) {
        String v = value == null ? "" : value.trim();
        if (v.isEmpty()) {
            return null;
        }
        try {
            String home = System.getProperty("tandem.home");
            java.nio.file.Path base = java.nio.file.Path.of(home == null ? System.getProperty("user.dir") : home);
            return base.resolve(v).toAbsolutePath().normalize();
        } catch (java.nio.file.InvalidPathException e) {
            throw CHECK.invalid("aclfile", v, "is not a valid path");
        }
    }

    /** {@code requirepass} without the password, for logs. */
    @Override
    public String toString() {
        return "ServerSettings[port=" + port + ", tlsPort=" + tlsPort + ", bind=" + bind + ", maxClients=" + maxClients + ", requirepass="
                + (requirePass == null ? "none" : "set") + ", minReplicasToWrite=" + minReplicasToWrite + "]";
    }
}
