package tandem.transport.tcp;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * Turns an IP address literal into an {@link InetAddress} without ever asking a resolver: a node that blocks on DNS
 * while it binds or reconnects stalls replication, and a name that resolves differently on another day silently
 * changes the peer. The approach is the RESP server's (tandem.server.ServerSettings).
 */
final class IpLiteral {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private IpLiteral() {
    }

    /**
     * @param what names the value in the error ({@code "bind address"}, {@code "host"})
     * @throws UnknownHostException when {@code text} is not an IPv4 or IPv6 literal; its message says so and names
     *                              the value
     */
    static InetAddress parse(String what, String text) throws UnknownHostException {
        String s = text == null ? "" : text.trim();
        if (IPV4.matcher(s).matches()) {
            String[] octets = s.split("\\.");
            byte[] bytes = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(octets[i]);
                if (octet > 255) {
                    throw new UnknownHostException(what + " '" + s + "' is not a valid IP address");
                }
                bytes[i] = (byte) octet;
            }
            return InetAddress.getByAddress(bytes);
        }
        if (IPV6.matcher(s).matches()) {
            try {
                // bracketed: the JDK parses it as an IPv6 literal or refuses it, and never resolves it
                return InetAddress.getByName("[" + s + "]");
            } catch (UnknownHostException e) {
                throw new UnknownHostException(what + " '" + s + "' is not a valid IP address");
            }
        }
        throw new UnknownHostException(what + " '" + s + "' must be an IPv4 or IPv6 address literal such as "
                + "127.0.0.1 or ::1; host names are refused (no name lookup is done)");
    }
}
