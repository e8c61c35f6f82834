package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * SnapshotEnd, primary to replica: the body announced by SnapshotBegin or SegmentSeedBegin is complete.
 *
 * <pre>
 *  0     1         5
 *  +-----+---------+
 *  | tag | crc32c  |
 *  |0x15 |  u32    |
 *  +-----+---------+
 * </pre>
 *
 * {@code crc32c}: CRC-32C of the whole body, every chunk's data in order.
 */
public final class SnapshotEnd {

    public static final int LENGTH = 5;
    public static final int CRC32C_OFFSET = 1;

    private SnapshotEnd() {
    }

    /** @param crc32c the CRC as {@code (int) CRC32C.getValue()} */
    public static void write(ByteBuffer dst, int crc32c) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_SNAPSHOT_END);
        Wire.putInt(dst, p + CRC32C_OFFSET, crc32c);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(int crc32c) {
        return Wire.frame(LENGTH, b -> write(b, crc32c));
    }

    /** @throws FrameException when {@code payload} is not a SnapshotEnd of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_SNAPSHOT_END, LENGTH);
    }

    /** @return the CRC; compare with {@code (int) CRC32C.getValue()} */
    public static int crc32c(ByteBuffer payload) {
        return Wire.getInt(payload, CRC32C_OFFSET);
    }
}
