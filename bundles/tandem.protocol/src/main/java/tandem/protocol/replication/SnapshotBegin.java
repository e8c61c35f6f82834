package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * SnapshotBegin, primary to replica: a checkpoint stream of {@code snapshot_len} bytes follows in SnapshotChunk
 * frames, closed by SnapshotEnd.
 *
 * <pre>
 *  0     1               9               17                               49
 *  +-----+---------------+---------------+--------------------------------+
 *  | tag | snapshot_len  | snap_sequence |      snap_chain_hash (32)      |
 *  |0x13 |      u64      |      u64      |                                |
 *  +-----+---------------+---------------+--------------------------------+
 * </pre>
 *
 * {@code snapshot_len}: the checkpoint stream's length; {@code snap_sequence}: the checkpoint's applied sequence;
 * {@code snap_chain_hash}: the primary's chain value at that sequence.
 */
public final class SnapshotBegin {

    public static final int LENGTH = 49;
    public static final int SNAPSHOT_LEN_OFFSET = 1;
    public static final int SNAP_SEQUENCE_OFFSET = 9;
    public static final int SNAP_CHAIN_HASH_OFFSET = 17;

    private SnapshotBegin() {
    }

    public static void write(ByteBuffer dst, long snapshotLen, long snapSequence, byte[] snapChainHash) {
        Wire.requireLength(snapChainHash, Frames.HASH_LENGTH, "snap_chain_hash");
        int p = Wire.begin(dst, LENGTH, Frames.TAG_SNAPSHOT_BEGIN);
        Wire.putLong(dst, p + SNAPSHOT_LEN_OFFSET, snapshotLen);
        Wire.putLong(dst, p + SNAP_SEQUENCE_OFFSET, snapSequence);
        dst.put(p + SNAP_CHAIN_HASH_OFFSET, snapChainHash);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(long snapshotLen, long snapSequence, byte[] snapChainHash) {
        return Wire.frame(LENGTH, b -> write(b, snapshotLen, snapSequence, snapChainHash));
    }

    /** @throws FrameException when {@code payload} is not a SnapshotBegin of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_SNAPSHOT_BEGIN, LENGTH);
    }

    public static long snapshotLen(ByteBuffer payload) {
        return Wire.getLong(payload, SNAPSHOT_LEN_OFFSET);
    }

    public static long snapSequence(ByteBuffer payload) {
        return Wire.getLong(payload, SNAP_SEQUENCE_OFFSET);
    }

    /**
     * Copies the chain hash into the first 32 bytes of {@code dst}.
     *
     * @return dst
     */
    public static byte[] snapChainHash(ByteBuffer payload, byte[] dst) {
        return Wire.getBytes(payload, SNAP_CHAIN_HASH_OFFSET, dst, Frames.HASH_LENGTH);
    }

    public static byte[] snapChainHash(ByteBuffer payload) {
        return snapChainHash(payload, new byte[Frames.HASH_LENGTH]);
    }
}
