package tandem.shell.admin;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The framing of the local admin channel, shared by the node and {@code bin/tandem shell}.
 *
 * <pre>
 *  0        1                5
 *  +--------+----------------+------------------+
 *  | type u8| length u32 BE  | payload[length]  |
 *  +--------+----------------+------------------+
 * </pre>
 *
 * Client to node: {@link #COMMAND} (one Gogo command line, UTF-8). Node to client: {@link #OUT} and {@link #ERR}
 * (output bytes) and {@link #PROGRESS} (one line saying how far a long command got, UTF-8: a client on a terminal
 * shows the latest in place, any other drops it), then {@link #EXIT} with one byte, 0 when the command succeeded and
 * 1 when it failed. A payload longer than {@link #MAX_PAYLOAD} is refused before anything is allocated for it.
 *
 * <p>The admin channel is a plain Unix-domain socket rather than Gogo's telnetd so that access is decided by file
 * permissions (an owner-only directory) instead of an unauthenticated TCP port.
 */
public final class AdminFrames {

    public static final byte COMMAND = 'C';
    public static final byte OUT = 'O';
    public static final byte ERR = 'E';
    public static final byte EXIT = 'X';
    public static final byte PROGRESS = 'P';
    /** The session attribute under which a command finds where to report progress: a {@code Consumer<String>}. */
    public static final String PROGRESS_ATTRIBUTE = "tandem.progress";

    /** The largest payload either side accepts. */
    public static final int MAX_PAYLOAD = 1 << 20;

    private AdminFrames() {
    }

    /** Writes one frame; callers serialize writes. */
    public static void write(OutputStream out, byte type, byte[] payload, int offset, int length) throws IOException {
        byte[] header = {type, (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length};
        out.write(header);
        out.write(payload, offset, length);
        out.flush();
    }

    /** A frame read by {@link #read}. */
    public record Frame(byte type, byte[] payload) {
    }

    /** @return the next frame, or null at a clean end of stream */
    public static Frame read(DataInputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            return null;
        }
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            throw new IOException("admin channel: truncated frame header");
        }
        if (length < 0 || length > MAX_PAYLOAD) {
            throw new IOException("admin channel: frame of " + Integer.toUnsignedString(length)
                    + " bytes exceeds the limit of " + MAX_PAYLOAD);
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame((byte) type, payload);
    }
}
