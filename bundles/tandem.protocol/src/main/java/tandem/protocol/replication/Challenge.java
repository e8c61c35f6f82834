package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * Challenge, primary to replica, first frame of a connection: a fresh nonce the replica signs.
 *
 * <pre>
 *  0     1                                33
 *  +-----+--------------------------------+
 *  | tag |          nonce (32)            |
 *  |0x03 |                                |
 *  +-----+--------------------------------+
 * </pre>
 */
public final class Challenge {

    public static final int LENGTH = 33;
    public static final int NONCE_OFFSET = 1;

    private Challenge() {
    }

    public static void write(ByteBuffer dst, byte[] nonce) {
        Wire.requireLength(nonce, Frames.HASH_LENGTH, "nonce");
        int p = Wire.begin(dst, LENGTH, Frames.TAG_CHALLENGE);
        dst.put(p + NONCE_OFFSET, nonce);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(byte[] nonce) {
        return Wire.frame(LENGTH, b -> write(b, nonce));
    }

    /** @throws FrameException when {@code payload} is not a Challenge of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_CHALLENGE, LENGTH);
    }

    /**
     * Copies the nonce into the first 32 bytes of {@code dst}.
     *
     * @return dst
     */
    public static byte[] nonce(ByteBuffer payload, byte[] dst) {
        return Wire.getBytes(payload, NONCE_OFFSET, dst, Frames.HASH_LENGTH);
    }

    public static byte[] nonce(ByteBuffer payload) {
        return nonce(payload, new byte[Frames.HASH_LENGTH]);
    }
}
