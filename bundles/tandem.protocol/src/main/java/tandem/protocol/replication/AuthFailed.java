package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * AuthFailed, primary to replica: the signature or the key was refused; the primary closes the link
 * after it.
 *
 * <pre>
 *  0     1
 *  +-----+
 *  | tag |
 *  |0x06 |
 *  +-----+
 * </pre>
 */
public final class AuthFailed {

    public static final int LENGTH = 1;

    private AuthFailed() {
    }

    public static void write(ByteBuffer dst) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_AUTH_FAILED);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame() {
        ByteBuffer b = ByteBuffer.allocate(Frames.LENGTH_PREFIX + LENGTH);
        write(b);
        return Wire.array(b);
    }

    /** @throws FrameException when {@code payload} is empty or not an AuthFailed */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_AUTH_FAILED, LENGTH);
    }
}
