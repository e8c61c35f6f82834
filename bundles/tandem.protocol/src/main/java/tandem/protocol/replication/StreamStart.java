package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * StreamStart, primary to replica: live or catch-up streaming begins, with the identity of the segment a fresh
 * replica creates its journal with and what the primary knows of the lineage's genesis.
 *
 * <pre>
 *  0     1               9               17                               49
 *  +-----+---------------+---------------+--------------------------------+
 *  | tag |start_sequence |segment_start_ |       anchor_hash (32)         |
 *  |0x10 |      u64      | sequence u64  |                                |
 *  +-----+---------------+---------------+--------------------------------+
 *  49              57   58   59              67                   75
 *  +---------------+----+----+---------------+--------------------+
 *  |     epoch     |ack_|gen_|genesis_entries|segment_start_offset|
 *  |      u64      |pol.|knwn|      u64      |        u64         |
 *  |               | u8 | u8 |               |                    |
 *  +---------------+----+----+---------------+--------------------+
 *  75                        95
 *  +-------------------------+
 *  | psync_replication_id 20 |   optional
 *  +-------------------------+
 * </pre>
 *
 * <ul>
 * <li>{@code start_sequence}: the resume point (the Handshake's {@code last_sequence}, or the snapshot's sequence
 * after a transfer); informational.</li>
 * <li>{@code segment_start_sequence}, {@code anchor_hash}, {@code segment_start_offset}: the header of the segment a
 * fresh replica creates (starting sequence, anchor, replication offset), so that its first segment is
 * byte-identical to the primary's.</li>
 * <li>{@code epoch}: the primary's fencing epoch, or the snapshot's after a transfer.</li>
 * <li>{@code ack_policy}: the policy's stable wire byte ({@code tandem.api.replication.AckPolicy#wire}).</li>
 * <li>{@code genesis_known}: 1 when {@code genesis_entries} is meaningful (the lineage's first segment has rotated
 * and is still retained), 0 otherwise; any non-zero byte reads as known.</li>
 * <li>{@code genesis_entries}: the number of entries in the lineage's first segment.</li>
 * <li>{@code psync_replication_id}: the id under which the primary's psync replicas hold their offsets (the 40 hex
 * digits of {@code master_replid} as 20 raw bytes), sent when the primary has one. The replica's journal is the
 * primary's at the same offsets, so the id names its history too; promoted, it keeps the id valid up to its
 * EpochBump and the primary's psync replicas continue from it. A primary that sends 75 bytes names none, and a
 * replica that reads only 75 bytes ignores the field (a longer payload is accepted, its tail ignored).</li>
 * </ul>
 */
public final class StreamStart {

    /** The payload without the optional psync id: what every StreamStart holds at least. */
    public static final int LENGTH = 75;
    /** The payload with the psync id. */
    public static final int LENGTH_WITH_PSYNC_ID = 95;
    public static final int PSYNC_ID_LENGTH = 20;
    public static final int START_SEQUENCE_OFFSET = 1;
    public static final int SEGMENT_START_SEQUENCE_OFFSET = 9;
    public static final int ANCHOR_HASH_OFFSET = 17;
    public static final int EPOCH_OFFSET = 49;
    public static final int ACK_POLICY_OFFSET = 57;
    public static final int GENESIS_KNOWN_OFFSET = 58;
    public static final int GENESIS_ENTRIES_OFFSET = 59;
    public static final int SEGMENT_START_OFFSET_OFFSET = 67;
    public static final int PSYNC_ID_OFFSET = 75;

    private StreamStart() {
    }

    public static void write(ByteBuffer dst, long startSequence, long segmentStartSequence, byte[] anchorHash,
            long epoch, byte ackPolicy, boolean genesisKnown, long genesisEntries, long segmentStartOffset) {
        write(dst, startSequence, segmentStartSequence, anchorHash, epoch, ackPolicy, genesisKnown, genesisEntries,
                segmentStartOffset, null);
    }

    /** @param psyncId the primary's psync id, {@value #PSYNC_ID_LENGTH} bytes, or null to name none */
    public static void write(ByteBuffer dst, long startSequence, long segmentStartSequence, byte[] anchorHash,
            long epoch, byte ackPolicy, boolean genesisKnown, long genesisEntries, long segmentStartOffset,
            byte[] psyncId) {
        Wire.requireLength(anchorHash, Frames.HASH_LENGTH, "anchor_hash");
        if (psyncId != null) {
            Wire.requireLength(psyncId, PSYNC_ID_LENGTH, "psync_replication_id");
        }
        int length = psyncId == null ? LENGTH : LENGTH_WITH_PSYNC_ID;
        int p = Wire.begin(dst, length, Frames.TAG_STREAM_START);
        Wire.putLong(dst, p + START_SEQUENCE_OFFSET, startSequence);
        Wire.putLong(dst, p + SEGMENT_START_SEQUENCE_OFFSET, segmentStartSequence);
        dst.put(p + ANCHOR_HASH_OFFSET, anchorHash);
        Wire.putLong(dst, p + EPOCH_OFFSET, epoch);
        dst.put(p + ACK_POLICY_OFFSET, ackPolicy);
        dst.put(p + GENESIS_KNOWN_OFFSET, (byte) (genesisKnown ? 1 : 0));
        Wire.putLong(dst, p + GENESIS_ENTRIES_OFFSET, genesisEntries);
        Wire.putLong(dst, p + SEGMENT_START_OFFSET_OFFSET, segmentStartOffset);
        if (psyncId != null) {
            dst.put(p + PSYNC_ID_OFFSET, psyncId);
        }
        Wire.end(dst, p, length);
    }

    public static byte[] frame(long startSequence, long segmentStartSequence, byte[] anchorHash, long epoch,
            byte ackPolicy, boolean genesisKnown, long genesisEntries, long segmentStartOffset) {
        return frame(startSequence, segmentStartSequence, anchorHash, epoch, ackPolicy, genesisKnown, genesisEntries,
                segmentStartOffset, null);
    }

    public static byte[] frame(long startSequence, long segmentStartSequence, byte[] anchorHash, long epoch,
            byte ackPolicy, boolean genesisKnown, long genesisEntries, long segmentStartOffset, byte[] psyncId) {
        return Wire.frame(psyncId == null ? LENGTH : LENGTH_WITH_PSYNC_ID, b -> write(b, startSequence,
                segmentStartSequence, anchorHash, epoch, ackPolicy, genesisKnown, genesisEntries, segmentStartOffset,
                psyncId));
    }

    /** @throws FrameException when {@code payload} is not a StreamStart of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_STREAM_START, LENGTH);
    }

    public static long startSequence(ByteBuffer payload) {
        return Wire.getLong(payload, START_SEQUENCE_OFFSET);
    }

    public static long segmentStartSequence(ByteBuffer payload) {
        return Wire.getLong(payload, SEGMENT_START_SEQUENCE_OFFSET);
    }

    /**
     * Copies the anchor hash into the first 32 bytes of {@code dst}.
     *
     * @return dst
     */
    public static byte[] anchorHash(ByteBuffer payload, byte[] dst) {
        return Wire.getBytes(payload, ANCHOR_HASH_OFFSET, dst, Frames.HASH_LENGTH);
    }

    public static byte[] anchorHash(ByteBuffer payload) {
        return anchorHash(payload, new byte[Frames.HASH_LENGTH]);
    }

    public static long epoch(ByteBuffer payload) {
        return Wire.getLong(payload, EPOCH_OFFSET);
    }

    /** @return the policy's wire byte, as {@code AckPolicy.fromWire} takes it */
    public static byte ackPolicy(ByteBuffer payload) {
        return Wire.getByte(payload, ACK_POLICY_OFFSET);
    }

    public static boolean genesisKnown(ByteBuffer payload) {
        return Wire.getByte(payload, GENESIS_KNOWN_OFFSET) != 0;
    }

    public static long genesisEntries(ByteBuffer payload) {
        return Wire.getLong(payload, GENESIS_ENTRIES_OFFSET);
    }

    public static long segmentStartOffset(ByteBuffer payload) {
        return Wire.getLong(payload, SEGMENT_START_OFFSET_OFFSET);
    }

    /**
     * @return the primary's psync id, {@value #PSYNC_ID_LENGTH} bytes, or null when the payload does not carry one
     *         (75 bytes) or carries zeros (Redis' rendering of no id)
     */
    public static byte[] psyncId(ByteBuffer payload) {
        if (payload.remaining() < LENGTH_WITH_PSYNC_ID) {
            return null;
        }
        byte[] id = Wire.getBytes(payload, PSYNC_ID_OFFSET, new byte[PSYNC_ID_LENGTH], PSYNC_ID_LENGTH);
        for (byte b : id) {
            if (b != 0) {
                return id;
            }
        }
        return null;
    }
}
