package tandem.protocol.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * Turns an IP address literal into an {@link InetAddress} without ever asking a resolver: a node that blocks on DNS
 * while it binds or connects stalls, and a name that resolves differently another day silently changes the peer.
 * Every address a node is configured with (RESP bind, replication bind, a primary's address) goes through here.
 */
public final class IpLiteral {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private IpLiteral() {
    }

    /**
     * @param text an IPv4 literal ({@code 127.0.0.1}) or an IPv6 literal ({@code ::1}), without brackets
     * @throws IllegalArgumentException when it is not one; the message says why without naming the value, so that
     *                                  the caller can name the property ({@code "is not a valid IP address"})
     */
    public static InetAddress parse(String text) {
        String s = text == null ? "" : text.trim();
        try {
            if (IPV4.matcher(s).matches()) {
                String[] octets = s.split("\\.");
                byte[] bytes = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int octet = Integer.parseInt(octets[i]);
                    if (octet > 255) {
                        throw new IllegalArgumentException("is not a valid IP address");
                    }
                    bytes[i] = (byte) octet;
                }
                return InetAddress.getByAddress(bytes);
            }
            if (IPV6.matcher(s).matches()) {
                // bracketed: the JDK parses it as an IPv6 literal or refuses it, and never resolves it
                return InetAddress.getByName("[" + s + "]");
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("is not a valid IP address");
        }
        throw new IllegalArgumentException("must be an IPv4 or IPv6 address literal such as 127.0.0.1 or ::1; host "
                + "names are refused (no name lookup is done)");
    }

    /**
     * Splits {@code IP:PORT} ({@code [v6]:PORT} too) into the literal (without brackets) and the port, checking both.
     *
     * @return {@code [host, port]}, or null for an empty or blank text
     * @throws IllegalArgumentException saying why, without naming the value (the caller names the property)
     */
    public static String[] hostPort(String text) {
        String a = text == null ? "" : text.trim();
        if (a.isEmpty()) {
            return null;
        }
        int colon = a.lastIndexOf(':');
        if (colon <= 0 || colon == a.length() - 1) {
            throw new IllegalArgumentException("must be IP:PORT");
        }
        String host = a.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        parse(host);
        int port;
        try {
            port = Integer.parseInt(a.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be IP:PORT");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("the port must be between 1 and 65535");
        }
        return new String[] {host, Integer.toString(port)};
    }
}
