package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * AuthOk, primary to replica: the ChallengeResponse verified against an authorized key; the replica
 * sends its Handshake next.
 *
 * <pre>
 *  0     1
 *  +-----+
 *  | tag |
 *  |0x05 |
 *  +-----+
 * </pre>
 */
public final class AuthOk {

    public static final int LENGTH = 1;

    private AuthOk() {
    }

    public static void write(ByteBuffer dst) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_AUTH_OK);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame() {
        ByteBuffer b = ByteBuffer.allocate(Frames.LENGTH_PREFIX + LENGTH);
        write(b);
        return Wire.array(b);
    }

    /** @throws FrameException when {@code payload} is empty or not an AuthOk */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_AUTH_OK, LENGTH);
    }
}
