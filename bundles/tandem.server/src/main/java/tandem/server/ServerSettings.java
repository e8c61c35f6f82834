package tandem.server;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The validated configuration of the RESP server. Every check names the property it refuses, so that an operator
 * who mistypes {@code etc/tandem.server.cfg} reads which line is wrong.
 */
record ServerSettings(int port, String bind, InetAddress bindAddress, int maxClients, int maxRequestSize,
        String transport, int ioThreads, int pauseMaxMs) {

    static final String PID = "tandem.server";

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

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
        int pauseMaxMs = range("pause.max.ms", c.pause_max_ms(), 100, 600_000);
        return new ServerSettings(port, bind, address, maxClients, maxRequest, transport, ioThreads, pauseMaxMs);
    }

    ServerSettings withMaxClients(int value) {
        return new ServerSettings(port, bind, bindAddress, value, maxRequestSize, transport, ioThreads, pauseMaxMs);
    }

    ServerSettings withMaxRequestSize(int value) {
        return new ServerSettings(port, bind, bindAddress, maxClients, value, transport, ioThreads, pauseMaxMs);
    }

    /** Parses an address literal without ever asking a resolver: a host name is refused, not looked up. */
    private static InetAddress literal(String bind) {
        try {
            if (IPV4.matcher(bind).matches()) {
                String[] octets = bind.split("\\.");
                byte[] bytes = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int octet = Integer.parseInt(octets[i]);
                    if (octet > 255) {
                        throw invalid("bind", bind, "is not a valid IP address");
                    }
                    bytes[i] = (byte) octet;
                }
                return InetAddress.getByAddress(bytes);
            }
            if (IPV6.matcher(bind).matches()) {
                return InetAddress.getByName("[" + bind + "]"); // bracketed: parsed as an IPv6 literal or refused
            }
        } catch (UnknownHostException e) {
            throw invalid("bind", bind, "is not a valid IP address");
        }
        throw invalid("bind", bind, "must be an IPv4 or IPv6 address literal such as 127.0.0.1 or ::1");
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
