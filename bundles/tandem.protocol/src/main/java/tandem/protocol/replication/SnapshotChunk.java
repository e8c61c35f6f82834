package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * SnapshotChunk, primary to replica: the next raw bytes of the body announced by SnapshotBegin or SegmentSeedBegin.
 *
 * <pre>
 *  0     1                            1+N
 *  +-----+----------------------------+
 *  | tag |   data (N bytes, N &gt;= 0) |
 *  |0x14 |                            |
 *  +-----+----------------------------+
 * </pre>
 *
 * Unlike the fixed frames, every byte after the tag is data: there is no tail to ignore. N is bounded only by the
 * link's data-frame limit; senders use {@link Frames#SNAPSHOT_CHUNK}.
 */
public final class SnapshotChunk {

    /** The header: the tag alone. */
    public static final int LENGTH = 1;
    public static final int DATA_OFFSET = 1;

    private SnapshotChunk() {
    }

    /** Writes a chunk carrying {@code data}'s remaining bytes; {@code data}'s position does not move. */
    public static void write(ByteBuffer dst, ByteBuffer data) {
        int n = data.remaining();
        int p = Wire.begin(dst, LENGTH + n, Frames.TAG_SNAPSHOT_CHUNK);
        dst.put(p + DATA_OFFSET, data, data.position(), n);
        Wire.end(dst, p, LENGTH + n);
    }

    public static byte[] frame(ByteBuffer data) {
        return Wire.frame(LENGTH + data.remaining(), b -> write(b, data));
    }

    /** @throws FrameException when {@code payload} is empty or not a SnapshotChunk */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_SNAPSHOT_CHUNK, LENGTH);
    }

    /** @return the absolute index of the data's first byte */
    public static int dataOffset(ByteBuffer payload) {
        return payload.position() + DATA_OFFSET;
    }

    /** @return N, every byte after the tag up to the payload's limit */
    public static int dataLength(ByteBuffer payload) {
        return payload.remaining() - DATA_OFFSET;
    }
}
