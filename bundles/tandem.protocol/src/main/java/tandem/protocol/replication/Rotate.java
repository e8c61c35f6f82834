package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * Rotate, primary to replica: the primary closed its segment after {@code boundary_seq}; the replica checks its own
 * chain there and rotates too.
 *
 * <pre>
 *  0     1               9                                41
 *  +-----+---------------+--------------------------------+
 *  | tag | boundary_seq  |        tail_hash (32)          |
 *  |0x16 |      u64      |                                |
 *  +-----+---------------+--------------------------------+
 * </pre>
 *
 * {@code boundary_seq}: the outgoing segment's last sequence; {@code tail_hash}: its tail chain value, which is the
 * new segment's anchor. Same layout as {@link ChainCheck}.
 */
public final class Rotate {

    public static final int LENGTH = 41;
    public static final int BOUNDARY_SEQ_OFFSET = 1;
    public static final int TAIL_HASH_OFFSET = 9;

    private Rotate() {
    }

    public static void write(ByteBuffer dst, long boundarySeq, byte[] tailHash) {
        Wire.requireLength(tailHash, Frames.HASH_LENGTH, "tail_hash");
        int p = Wire.begin(dst, LENGTH, Frames.TAG_ROTATE);
        Wire.putLong(dst, p + BOUNDARY_SEQ_OFFSET, boundarySeq);
        dst.put(p + TAIL_HASH_OFFSET, tailHash);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(long boundarySeq, byte[] tailHash) {
        return Wire.frame(LENGTH, b -> write(b, boundarySeq, tailHash));
    }

    /** @throws FrameException when {@code payload} is not a Rotate of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_ROTATE, LENGTH);
    }

    public static long boundarySeq(ByteBuffer payload) {
        return Wire.getLong(payload, BOUNDARY_SEQ_OFFSET);
    }

    /**
     * Copies the tail hash into the first 32 bytes of {@code dst}.
     *
     * @return dst
     */
    public static byte[] tailHash(ByteBuffer payload, byte[] dst) {
        return Wire.getBytes(payload, TAIL_HASH_OFFSET, dst, Frames.HASH_LENGTH);
    }

    public static byte[] tailHash(ByteBuffer payload) {
        return tailHash(payload, new byte[Frames.HASH_LENGTH]);
    }
}
