package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * NeedSnapshot, primary to replica: the replica's position is no longer in the retained journal; the
 * snapshot flow (SnapshotBegin, chunks, SnapshotEnd) follows.
 *
 * <pre>
 *  0     1
 *  +-----+
 *  | tag |
 *  |0x11 |
 *  +-----+
 * </pre>
 */
public final class NeedSnapshot {

    public static final int LENGTH = 1;

    private NeedSnapshot() {
    }

    public static void write(ByteBuffer dst) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_NEED_SNAPSHOT);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame() {
        ByteBuffer b = ByteBuffer.allocate(Frames.LENGTH_PREFIX + LENGTH);
        write(b);
        return Wire.array(b);
    }

    /** @throws FrameException when {@code payload} is empty or not a NeedSnapshot */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_NEED_SNAPSHOT, LENGTH);
    }
}
