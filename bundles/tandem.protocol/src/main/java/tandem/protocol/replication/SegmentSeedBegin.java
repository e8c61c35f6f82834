package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * SegmentSeedBegin, primary to replica, after a snapshot: the raw prefix of the primary's segment that holds the
 * snapshot's next sequence follows in SnapshotChunk frames, closed by SnapshotEnd.
 *
 * <pre>
 *  0     1               9
 *  +-----+---------------+
 *  | tag |   seed_len    |
 *  |0x18 |      u64      |
 *  +-----+---------------+
 * </pre>
 *
 * {@code seed_len}: the prefix's length, segment header included.
 */
public final class SegmentSeedBegin {

    public static final int LENGTH = 9;
    public static final int SEED_LEN_OFFSET = 1;

    private SegmentSeedBegin() {
    }

    public static void write(ByteBuffer dst, long seedLen) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_SEGMENT_SEED_BEGIN);
        Wire.putLong(dst, p + SEED_LEN_OFFSET, seedLen);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(long seedLen) {
        return Wire.frame(LENGTH, b -> write(b, seedLen));
    }

    /** @throws FrameException when {@code payload} is not a SegmentSeedBegin of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_SEGMENT_SEED_BEGIN, LENGTH);
    }

    public static long seedLen(ByteBuffer payload) {
        return Wire.getLong(payload, SEED_LEN_OFFSET);
    }
}
