package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * HashMismatch, primary to replica: the replica's journal diverged from the primary's lineage; the
 * replica archives its lineage, then the snapshot flow follows.
 *
 * <pre>
 *  0     1
 *  +-----+
 *  | tag |
 *  |0x12 |
 *  +-----+
 * </pre>
 */
public final class HashMismatch {

    public static final int LENGTH = 1;

    private HashMismatch() {
    }

    public static void write(ByteBuffer dst) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_HASH_MISMATCH);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame() {
        ByteBuffer b = ByteBuffer.allocate(Frames.LENGTH_PREFIX + LENGTH);
        write(b);
        return Wire.array(b);
    }

    /** @throws FrameException when {@code payload} is empty or not a HashMismatch */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_HASH_MISMATCH, LENGTH);
    }
}
