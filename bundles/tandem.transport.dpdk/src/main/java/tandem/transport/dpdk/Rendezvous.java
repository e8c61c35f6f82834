package tandem.transport.dpdk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/**
 * The control connection of a DPDK link: a unix socket on which the two ends agree on a data path, then hold open
 * for the link's life, so that either end learns at once when the other closes or dies (the kernel closes the
 * socket of a killed process; memif alone would only go quiet).
 *
 * <pre>
 *   replica -> primary   TANDEM-DPDK 1\n
 *   primary -> replica   OK &lt;epoch, 8 hex digits&gt; &lt;memif socket path&gt;\n      (the data path is open)
 *                     or ERR &lt;reason&gt;\n                                     (then the primary closes)
 * </pre>
 *
 * A line is ASCII and at most {@link #MAX_LINE} bytes; a longer one, or none within the deadline, fails the link.
 * Nothing else is ever sent on the socket: a byte after the exchange is a protocol error, end of stream is the
 * peer's close.
 */
final class Rendezvous {

    static final String HELLO = "TANDEM-DPDK 1";
    static final int MAX_LINE = 512;
    private static final long POLL_NANOS = 200_000;

    private Rendezvous() {
    }

    static void writeLine(SocketChannel ch, String line, long deadlineNanos) throws IOException {
        ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                if (System.nanoTime() - deadlineNanos > 0) {
                    throw new IOException("rendezvous: the peer does not read");
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
        }
    }

    /** Reads one line from a non-blocking channel, without its newline. */
    static String readLine(SocketChannel ch, long deadlineNanos) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(MAX_LINE);
        ByteBuffer one = ByteBuffer.allocate(1);
        while (true) {
            one.clear();
            int n = ch.read(one);
            if (n < 0) {
                throw new IOException("rendezvous: the peer closed the control socket");
            }
            if (n == 0) {
                if (System.nanoTime() - deadlineNanos > 0) {
                    throw new IOException("rendezvous: no answer in time");
                }
                LockSupport.parkNanos(POLL_NANOS);
                continue;
            }
            byte c = one.get(0);
            if (c == '\n') {
                b.flip();
                return StandardCharsets.US_ASCII.decode(b).toString();
            }
            if (c < 0x20 || c > 0x7E || !b.hasRemaining()) {
                throw new IOException("rendezvous: not a control line (a byte 0x"
                        + Integer.toHexString(c & 0xFF) + " or over " + MAX_LINE + " bytes)");
            }
            b.put(c);
        }
    }
}
