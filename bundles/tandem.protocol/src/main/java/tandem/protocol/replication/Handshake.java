package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * Handshake, replica to primary, first frame after AuthOk: the replica's durable position and what it knows of the
 * lineage.
 *
 * <pre>
 *  0     1               9                                41              49         51
 *  +-----+---------------+--------------------------------+---------------+----------+
 *  | tag | last_sequence |       chain_hash (32)          |     epoch     | protocol |
 *  |0x01 |      u64      |                                |      u64      | version  |
 *  |     |               |                                |               |   u16    |
 *  +-----+---------------+--------------------------------+---------------+----------+
 * </pre>
 *
 * {@code last_sequence}: the last durable journal sequence, 0 for a fresh replica; {@code chain_hash}: the chain
 * value there (zeros when fresh); {@code epoch}: the fencing epoch the replica has seen; {@code protocol_version}:
 * {@value Frames#PROTOCOL_VERSION}, last so that older, shorter handshakes still decode their prefix.
 */
public final class Handshake {

    public static final int LENGTH = 51;
    public static final int LAST_SEQUENCE_OFFSET = 1;
    public static final int CHAIN_HASH_OFFSET = 9;
    public static final int EPOCH_OFFSET = 41;
    public static final int PROTOCOL_VERSION_OFFSET = 49;

    private Handshake() {
    }

    /** Writes a Handshake announcing {@link Frames#PROTOCOL_VERSION}. */
    public static void write(ByteBuffer dst, long lastSequence, byte[] chainHash, long epoch) {
        write(dst, lastSequence, chainHash, epoch, Frames.PROTOCOL_VERSION);
    }

    /** Writes a Handshake announcing any version: tests of the primary's version check need a wrong one. */
    public static void write(ByteBuffer dst, long lastSequence, byte[] chainHash, long epoch, int protocolVersion) {
        Wire.requireLength(chainHash, Frames.HASH_LENGTH, "chain_hash");
        if (protocolVersion < 0 || protocolVersion > 0xFFFF) {
            throw new IllegalArgumentException("protocol_version " + protocolVersion + " does not fit a u16");
        }
        int p = Wire.begin(dst, LENGTH, Frames.TAG_HANDSHAKE);
        Wire.putLong(dst, p + LAST_SEQUENCE_OFFSET, lastSequence);
        dst.put(p + CHAIN_HASH_OFFSET, chainHash);
        Wire.putLong(dst, p + EPOCH_OFFSET, epoch);
        Wire.putShort(dst, p + PROTOCOL_VERSION_OFFSET, protocolVersion);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(long lastSequence, byte[] chainHash, long epoch) {
        return frame(lastSequence, chainHash, epoch, Frames.PROTOCOL_VERSION);
    }

    public static byte[] frame(long lastSequence, byte[] chainHash, long epoch, int protocolVersion) {
        return Wire.frame(LENGTH, b -> write(b, lastSequence, chainHash, epoch, protocolVersion));
    }

    /** @throws FrameException when {@code payload} is not a Handshake of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_HANDSHAKE, LENGTH);
    }

    public static long lastSequence(ByteBuffer payload) {
        return Wire.getLong(payload, LAST_SEQUENCE_OFFSET);
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

    public static long epoch(ByteBuffer payload) {
        return Wire.getLong(payload, EPOCH_OFFSET);
    }

    public static int protocolVersion(ByteBuffer payload) {
        return Wire.getUnsignedShort(payload, PROTOCOL_VERSION_OFFSET);
    }
}
