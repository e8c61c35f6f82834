package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * ChainCheck, primary to replica, in the live stream only: the primary's chain value at {@code sequence}, which the
 * replica compares with its own once it has journaled that sequence.
 *
 * <pre>
 *  0     1               9                                41
 *  +-----+---------------+--------------------------------+
 *  | tag |   sequence    |        chain_hash (32)         |
 *  |0x17 |      u64      |                                |
 *  +-----+---------------+--------------------------------+
 * </pre>
 *
 * Same layout as {@link Rotate}.
 */
public final class ChainCheck {

    public static final int LENGTH = 41;
    public static final int SEQUENCE_OFFSET = 1;
    public static final int CHAIN_HASH_OFFSET = 9;

    private ChainCheck() {
    }

    public static void write(ByteBuffer dst, long sequence, byte[] chainHash) {
        Wire.requireLength(chainHash, Frames.HASH_LENGTH, "chain_hash");
        int p = Wire.begin(dst, LENGTH, Frames.TAG_CHAIN_CHECK);
        Wire.putLong(dst, p + SEQUENCE_OFFSET, sequence);
        dst.put(p + CHAIN_HASH_OFFSET, chainHash);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(long sequence, byte[] chainHash) {
        return Wire.frame(LENGTH, b -> write(b, sequence, chainHash));
    }

    /** @throws FrameException when {@code payload} is not a ChainCheck of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_CHAIN_CHECK, LENGTH);
    }

    public static long sequence(ByteBuffer payload) {
        return Wire.getLong(payload, SEQUENCE_OFFSET);
    }

    /**
     * Copies the chain hash into the first 32 bytes of {@code dst}.
     *
     * @return dst
     */
    public static byte[] chainHash(ByteBuffer payload, byte[] dst) {
        return Wire.getBytes(payload, CHAIN_HASH_OFFSET, dst, Frames.HASH_LENGTH);
    }

    public static byte[] chainHash(ByteBuffer payload) {
        return chainHash(payload, new byte[Frames.HASH_LENGTH]);
    }
}
