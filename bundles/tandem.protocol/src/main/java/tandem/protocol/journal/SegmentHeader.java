package tandem.protocol.journal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Flyweight over the header of a journal segment file, little-endian. Written once when the segment is created,
 * never modified.
 *
 * <pre>
 *  0        4     6     8                16                               48                 56      60      4096
 *  +--------+-----+-----+----------------+--------------------------------+------------------+-------+- - - -+
 *  | magic  | ver |sectr|starting_seq u64|        anchor (32 bytes)       |replication_offset|hdr_crc| zeros |
 *  |  u32   | u16 | u16 |                |                                |       u64        |  u32  |       |
 *  +--------+-----+-----+----------------+--------------------------------+------------------+-------+- - - -+
 * </pre>
 *
 * <ul>
 * <li>{@code magic} = 0x4A4F5552 (on disk {@code 52 55 4F 4A}); {@code format_version} = {@value #FORMAT_VERSION}
 * (melin's version 14 layout with {@code replication_offset} added, hence a new version; only 15 is read);
 * {@code sector_size} = 4096.</li>
 * <li>{@code starting_sequence}: the sequence of the segment's first entry (the segment may be empty).</li>
 * <li>{@code anchor}: a random 32-byte value for the first segment of a lineage (genesis), otherwise the
 * predecessor's tail chain value, which links the segments into one chain.</li>
 * <li>{@code replication_offset}: the psync replication offset before the segment's first entry (the FRPL bytes
 * of every complete command before it), so that an index of offsets can be rebuilt from the segments alone.</li>
 * <li>{@code header_crc}: CRC-32C of bytes 0..56.</li>
 * </ul>
 *
 * The header is zero-padded to {@value #SIZE} bytes; entries start at offset {@value #SIZE}.
 */
public final class SegmentHeader {

    /** The segment magic as a little-endian u32. */
    public static final int MAGIC = 0x4A4F5552;
    public static final int FORMAT_VERSION = 15;
    public static final int SECTOR_SIZE = 4096;
    /** The header's size on disk, padding included; entries start here. */
    public static final int SIZE = 4096;

    public static final int MAGIC_OFFSET = 0;
    public static final int FORMAT_VERSION_OFFSET = 4;
    public static final int SECTOR_SIZE_OFFSET = 6;
    public static final int STARTING_SEQUENCE_OFFSET = 8;
    public static final int ANCHOR_OFFSET = 16;
    public static final int ANCHOR_LENGTH = 32;
    public static final int REPLICATION_OFFSET_OFFSET = 48;
    public static final int HEADER_CRC_OFFSET = 56;
    /** The bytes that carry fields: everything before the zero padding. */
    public static final int MEANINGFUL_LENGTH = 60;

    private static final VarHandle U16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private ByteBuffer buffer;
    private int offset;

    /** Points this flyweight at the header that starts at absolute index {@code offset} of {@code buffer}. */
    public SegmentHeader wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public int magic() {
        return (int) U32.get(buffer, offset + MAGIC_OFFSET);
    }

    public int formatVersion() {
        return Short.toUnsignedInt((short) U16.get(buffer, offset + FORMAT_VERSION_OFFSET));
    }

    public int sectorSize() {
        return Short.toUnsignedInt((short) U16.get(buffer, offset + SECTOR_SIZE_OFFSET));
    }

    public long startingSequence() {
        return (long) U64.get(buffer, offset + STARTING_SEQUENCE_OFFSET);
    }

    /** @return a copy of the anchor */
    public byte[] anchor() {
        byte[] out = new byte[ANCHOR_LENGTH];
        buffer.get(offset + ANCHOR_OFFSET, out);
        return out;
    }

    public long replicationOffset() {
        return (long) U64.get(buffer, offset + REPLICATION_OFFSET_OFFSET);
    }

    public int headerCrc() {
        return (int) U32.get(buffer, offset + HEADER_CRC_OFFSET);
    }

    /**
     * Checks magic, format version and CRC of the {@value #MEANINGFUL_LENGTH} meaningful bytes.
     *
     * @return null when the header is valid, otherwise why not
     */
    public String check(CRC32C crc) {
        if (magic() != MAGIC) {
            return String.format("bad segment magic 0x%08X", magic());
        }
        if (formatVersion() != FORMAT_VERSION) {
            return "unsupported format version " + formatVersion() + " (only " + FORMAT_VERSION + " is read)";
        }
        if (headerCrc() != JournalEntry.crc(buffer, offset, HEADER_CRC_OFFSET, crc)) {
            return "header CRC mismatch";
        }
        return null;
    }

    /**
     * Writes a complete header, padding included ({@value #SIZE} bytes), at absolute index {@code offset}.
     *
     * @return {@value #SIZE}
     */
    public static int encode(ByteBuffer dst, int offset, long startingSequence, byte[] anchor, long replicationOffset,
            CRC32C crc) {
        if (anchor.length != ANCHOR_LENGTH) {
            throw new IllegalArgumentException("anchor of " + anchor.length + " bytes, must be " + ANCHOR_LENGTH);
        }
        if (offset < 0 || offset > dst.limit() - SIZE) {
            throw new IndexOutOfBoundsException("header at " + offset + " exceeds the buffer");
        }
        U32.set(dst, offset + MAGIC_OFFSET, MAGIC);
        U16.set(dst, offset + FORMAT_VERSION_OFFSET, (short) FORMAT_VERSION);
        U16.set(dst, offset + SECTOR_SIZE_OFFSET, (short) SECTOR_SIZE);
        U64.set(dst, offset + STARTING_SEQUENCE_OFFSET, startingSequence);
        dst.put(offset + ANCHOR_OFFSET, anchor);
        U64.set(dst, offset + REPLICATION_OFFSET_OFFSET, replicationOffset);
        U32.set(dst, offset + HEADER_CRC_OFFSET, JournalEntry.crc(dst, offset, HEADER_CRC_OFFSET, crc));
        for (int i = MEANINGFUL_LENGTH; i < SIZE; i++) {
            dst.put(offset + i, (byte) 0);
        }
        return SIZE;
    }
}
