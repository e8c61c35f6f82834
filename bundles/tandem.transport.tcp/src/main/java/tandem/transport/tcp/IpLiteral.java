package tandem.transport.tcp;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The transport's use of {@link tandem.protocol.net.IpLiteral}: an address that is not a literal is an
 * {@link UnknownHostException} (an I/O failure of {@code listen} or {@code connect}) naming the value.
 */
final class IpLiteral {

    private IpLiteral() {
    }

    /** @param what names the value in the error ({@code "bind address"}, {@code "host"}) */
    static InetAddress parse(String what, String text) throws UnknownHostException {
        try {
            return tandem.protocol.net.IpLiteral.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UnknownHostException(what + " '" + (text == null ? "" : text.trim()) + "' " + e.getMessage());
        }
    }
}
