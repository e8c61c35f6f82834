package tandem.server;

import java.net.InetAddress;
import java.util.Locale;

/**
 * The validated configuration of the RESP server. Every check names the property it refuses, so that an operator
 * who mistypes {@code etc/tandem.server.cfg} reads which line is wrong.
 */
record ServerSettings(int port, String bind, InetAddress bindAddress, int maxClients, int maxRequestSize,
        String transport, int ioThreads, String requirePass, int minReplicasToWrite,
        long minReplicasTimeoutMs) {

    static final String PID = "tandem.server";


    static ServerSettings of(RespServer.Config c) {
        int port = range("port", c.port(), 0, 65535);
        String bind = c.bind() == null ? "" : c.bind().trim();
        InetAddress address = literal(bind);
        int maxClients = range("max.clients", c.max_clients(), 1, 1_000_000);
        int maxRequest = range("max.request.size", c.max_request_size(), 1024, Integer.MAX_VALUE - 16);
        String transport = c.transport() == null ? "" : c.transport().trim().toLowerCase(Locale.ROOT);
        if (!transport.equals("auto") && !transport.equals("epoll") && !transport.equals("nio")) {
            throw invalid("transport", c.transport(), "must be auto, epoll or nio");
        }
        int ioThreads = range("io.threads", c.io_threads(), 1, 64);
        String pass = c.requirepass() == null || c.requirepass().isEmpty() ? null : c.requirepass();
        int minReplicas = range("min.replicas.to.write", c.min_replicas_to_write(), 0, 2);
        long timeout = c.min_replicas_timeout_ms();
        if (timeout < 0 || timeout > 86_400_000L) {
            throw invalid("min.replicas.timeout.ms", Long.toString(timeout), "must be between 0 and 86400000");
        }
        return new ServerSettings(port, bind, address, maxClients, maxRequest, transport, ioThreads,
                pass, minReplicas, timeout);
    }

    ServerSettings withMaxClients(int value) {
        return new ServerSettings(port, bind, bindAddress, value, maxRequestSize, transport, ioThreads,
                requirePass, minReplicasToWrite, minReplicasTimeoutMs);
    }

    ServerSettings withMaxRequestSize(int value) {
        return new ServerSettings(port, bind, bindAddress, maxClients, value, transport, ioThreads,
                requirePass, minReplicasToWrite, minReplicasTimeoutMs);
    }

    ServerSettings withRequirePass(String value) {
        return new ServerSettings(port, bind, bindAddress, maxClients, maxRequestSize, transport, ioThreads,
                value == null || value.isEmpty() ? null : value, minReplicasToWrite, minReplicasTimeoutMs);
    }

    ServerSettings withMinReplicas(int replicas, long timeoutMs) {
        return new ServerSettings(port, bind, bindAddress, maxClients, maxRequestSize, transport, ioThreads,
                requirePass, replicas, timeoutMs);
    }

    /** {@code requirepass} without the password, for logs. */
    @Override
    public String toString() {
        return "ServerSettings[port=" + port + ", bind=" + bind + ", maxClients=" + maxClients + ", requirepass="
                + (requirePass == null ? "none" : "set") + ", minReplicasToWrite=" + minReplicasToWrite + "]";
    }

    /** Parses an address literal without ever asking a resolver: a host name is refused, not looked up. */
    private static InetAddress literal(String bind) {
        try {
            return tandem.protocol.net.IpLiteral.parse(bind);
        } catch (IllegalArgumentException e) {
            throw invalid("bind", bind, e.getMessage());
        }
    }

    private static int range(String property, int value, int min, int max) {
        if (value < min || value > max) {
            throw invalid(property, Integer.toString(value), "must be between " + min + " and " + max);
        }
        return value;
    }

    private static IllegalArgumentException invalid(String property, String value, String why) {
        return new IllegalArgumentException(PID + ": " + property + "=" + value + " is invalid: " + why);
    }
}
