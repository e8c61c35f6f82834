package tandem.protocol.journal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Flyweight over one journal entry, little-endian, as it lies in a segment file (from offset 4096 on, back to back).
 *
 * <pre>
 *  0       2       4               12              20              28              36  37                37+p
 *  +-------+-------+---------------+---------------+---------------+---------------+---+-----------------+-------+
 *  | magic |length |   sequence    | timestamp_ns  |   key_hash    |  request_seq  |tag|  payload (p)    | crc32c|
 *  | u16   | u16   |     u64       |     u64       |     u64       |     u64       |u8 |                 |  u32  |
 *  +-------+-------+---------------+---------------+---------------+---------------+---+-----------------+-------+
 *          |&lt;------------------------------- slot (InputBatch, journal protocol) ---------------------&gt;|
 * </pre>
 *
 * <ul>
 * <li>{@code magic} = {@value #MAGIC_HEX} (on disk {@code 45 4A}); {@code 00 00} where an entry would start means
 * "end of data".</li>
 * <li>{@code length} = 17 + p: it covers {@code key_hash}, {@code request_seq}, {@code tag} and the payload, not the
 * sequence and timestamp (melin's definition, kept for byte compatibility). p is at most {@value #MAX_PAYLOAD}, so
 * {@code length} fits a u16.</li>
 * <li>{@code sequence}: dense from 1 within a lineage. {@code timestamp_ns}: "now" for the entry's apply,
 * non-negative. {@code key_hash}: FNV-1a 64 of the command's first key, 0 when none. {@code request_seq}: reserved,
 * always 0. {@code tag}: {@code tandem.api.journal.EntryTag}.</li>
 * <li>{@code crc32c}: CRC-32C (Castagnoli) of every preceding byte of the entry, magic included.</li>
 * </ul>
 *
 * Total size = 41 + p = 24 + {@code length}. The bytes from offset {@value #SLOT_OFFSET} up to the CRC are exactly
 * one slot of the InputBatch frame, so a replica that re-encodes a received slot writes the primary's bytes.
 *
 * <p>{@link #wrap} reads an entry in place; {@link #encode} writes one into a caller's buffer; neither allocates. A
 * {@link CRC32C} is passed in so that each thread reuses its own.
 */
public final class JournalEntry {

    /** The entry magic as a little-endian u16. */
    public static final int MAGIC = 0x4A45;
    static final String MAGIC_HEX = "0x4A45";

    public static final int MAGIC_OFFSET = 0;
    public static final int LENGTH_OFFSET = 2;
    public static final int SEQUENCE_OFFSET = 4;
    public static final int TIMESTAMP_OFFSET = 12;
    public static final int KEY_HASH_OFFSET = 20;
    public static final int REQUEST_SEQ_OFFSET = 28;
    public static final int TAG_OFFSET = 36;
    public static final int PAYLOAD_OFFSET = 37;

    /** Where the InputBatch slot starts inside an entry. */
    public static final int SLOT_OFFSET = LENGTH_OFFSET;
    /** Bytes of an entry that are not payload: 37 before it, the 4-byte CRC after. */
    public static final int OVERHEAD = PAYLOAD_OFFSET + 4;
    /** Bytes of a slot that are not payload. */
    public static final int SLOT_OVERHEAD = OVERHEAD - 6;
    /** {@code length} minus the payload: key_hash, request_seq, tag. */
    public static final int LENGTH_BASE = 17;
    /** The largest payload one entry holds: the u16 {@code length} minus {@value #LENGTH_BASE}. */
    public static final int MAX_PAYLOAD = 0xFFFF - LENGTH_BASE;
    /** The largest entry. */
    public static final int MAX_SIZE = OVERHEAD + MAX_PAYLOAD;

    /** {@link #check} result: {@code 00 00} where an entry would start (end of data). */
    public static final int END = -1;
    /** {@link #check} result: the entry runs past the limit (a torn write at the end of a file). */
    public static final int TRUNCATED = -2;
    /** {@link #check} result: the magic is neither the entry magic nor zero. */
    public static final int BAD_MAGIC = -3;
    /** {@link #check} result: {@code length} is below {@value #LENGTH_BASE}. */
    public static final int BAD_LENGTH = -4;
    /** {@link #check} result: the CRC does not match the bytes. */
    public static final int CRC_MISMATCH = -5;

    private static final VarHandle U16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private ByteBuffer buffer;
    private int offset;

    /** Points this flyweight at the entry that starts at absolute index {@code offset} of {@code buffer}. */
    public JournalEntry wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    public int offset() {
        return offset;
    }

    public int magic() {
        return Short.toUnsignedInt((short) U16.get(buffer, offset + MAGIC_OFFSET));
    }

    public int length() {
        return Short.toUnsignedInt((short) U16.get(buffer, offset + LENGTH_OFFSET));
    }

    public long sequence() {
        return (long) U64.get(buffer, offset + SEQUENCE_OFFSET);
    }

    public long timestampNs() {
        return (long) U64.get(buffer, offset + TIMESTAMP_OFFSET);
    }

    public long keyHash() {
        return (long) U64.get(buffer, offset + KEY_HASH_OFFSET);
    }

    public long requestSeq() {
        return (long) U64.get(buffer, offset + REQUEST_SEQ_OFFSET);
    }

    public byte tag() {
        return buffer.get(offset + TAG_OFFSET);
    }

    public int payloadLength() {
        return length() - LENGTH_BASE;
    }

    /** @return the absolute index of the payload's first byte */
    public int payloadOffset() {
        return offset + PAYLOAD_OFFSET;
    }

    /** @return the entry's total size on disk */
    public int size() {
        return length() + OVERHEAD - LENGTH_BASE;
    }

    public int crc() {
        return (int) U32.get(buffer, offset + size() - 4);
    }

    /** Copies the payload into {@code dst} at {@code dstOffset}. */
    public void payload(byte[] dst, int dstOffset) {
        buffer.get(payloadOffset(), dst, dstOffset, payloadLength());
    }

    /** @return a copy of the payload */
    public byte[] payload() {
        byte[] out = new byte[payloadLength()];
        payload(out, 0);
        return out;
    }

    /** @return the size of an entry carrying {@code payloadLength} bytes */
    public static int sizeOf(int payloadLength) {
        return OVERHEAD + payloadLength;
    }

    /**
     * Writes one entry at absolute index {@code offset} of {@code dst} ({@code request_seq} = 0).
     *
     * @return the entry's size
     * @throws IllegalArgumentException when the payload exceeds {@value #MAX_PAYLOAD} bytes
     * @throws IndexOutOfBoundsException when it does not fit {@code dst}
     */
    public static int encode(ByteBuffer dst, int offset, long sequence, long timestampNs, long keyHash, byte tag,
            byte[] payload, int payloadOffset, int payloadLength, CRC32C crc) {
        return encode(dst, offset, sequence, timestampNs, keyHash, 0L, tag, payload, payloadOffset, payloadLength,
                crc);
    }

    /**
     * Writes one entry with an explicit {@code request_seq}: Tandem always writes 0 (reserved), but melin's pinned
     * vectors carry one.
     *
     * @return the entry's size
     */
    public static int encode(ByteBuffer dst, int offset, long sequence, long timestampNs, long keyHash,
            long requestSeq, byte tag, byte[] payload, int payloadOffset, int payloadLength, CRC32C crc) {
        int size = header(dst, offset, sequence, timestampNs, keyHash, requestSeq, tag, payloadLength);
        dst.put(offset + PAYLOAD_OFFSET, payload, payloadOffset, payloadLength);
        return seal(dst, offset, size, crc);
    }

    /**
     * {@link #encode(ByteBuffer, int, long, long, long, long, byte, byte[], int, int, CRC32C)} with the payload
     * taken from absolute index {@code payloadOffset} of a buffer (a direct one too), whose position and limit are
     * left alone: an entry written straight from what a caller or a transport holds.
     *
     * @return the entry's size
     * @since 1.1
     */
    public static int encode(ByteBuffer dst, int offset, long sequence, long timestampNs, long keyHash,
            long requestSeq, byte tag, ByteBuffer payload, int payloadOffset, int payloadLength, CRC32C crc) {
        int size = header(dst, offset, sequence, timestampNs, keyHash, requestSeq, tag, payloadLength);
        dst.put(offset + PAYLOAD_OFFSET, payload, payloadOffset, payloadLength);
        return seal(dst, offset, size, crc);
    }

    /** Checks the sizes and writes everything before the payload. @return the entry's size */
    private static int header(ByteBuffer dst, int offset, long sequence, long timestampNs, long keyHash,
            long requestSeq, byte tag, int payloadLength) {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + payloadLength + " bytes: an entry holds 0.."
                    + MAX_PAYLOAD);
        }
        int size = sizeOf(payloadLength);
        if (offset < 0 || offset > dst.limit() - size) {
            throw new IndexOutOfBoundsException("entry of " + size + " bytes at " + offset + " exceeds the buffer");
        }
        U16.set(dst, offset + MAGIC_OFFSET, (short) MAGIC);
        U16.set(dst, offset + LENGTH_OFFSET, (short) (LENGTH_BASE + payloadLength));
        U64.set(dst, offset + SEQUENCE_OFFSET, sequence);
        U64.set(dst, offset + TIMESTAMP_OFFSET, timestampNs);
        U64.set(dst, offset + KEY_HASH_OFFSET, keyHash);
        U64.set(dst, offset + REQUEST_SEQ_OFFSET, requestSeq);
        dst.put(offset + TAG_OFFSET, tag);
        return size;
    }

    /** Writes the CRC of the {@code size - 4} bytes before it. @return {@code size} */
    private static int seal(ByteBuffer dst, int offset, int size, CRC32C crc) {
        U32.set(dst, offset + size - 4, crc(dst, offset, size - 4, crc));
        return size;
    }

    /**
     * Writes an entry from a received InputBatch slot: the magic, the slot's bytes as they are, the CRC.
     *
     * @param slotLength the slot's size, {@value #SLOT_OVERHEAD} + payload
     * @return the entry's size
     */
    public static int encodeSlot(ByteBuffer dst, int offset, ByteBuffer slot, int slotOffset, int slotLength,
            CRC32C crc) {
        int declared = Short.toUnsignedInt((short) U16.get(slot, slotOffset));
        if (slotLength < SLOT_OVERHEAD || declared != slotLength - SLOT_OVERHEAD + LENGTH_BASE) {
            throw new IllegalArgumentException("slot of " + slotLength + " bytes declares length " + declared);
        }
        int size = slotLength + 6;
        if (offset < 0 || offset > dst.limit() - size) {
            throw new IndexOutOfBoundsException("entry of " + size + " bytes at " + offset + " exceeds the buffer");
        }
        U16.set(dst, offset + MAGIC_OFFSET, (short) MAGIC);
        dst.put(offset + SLOT_OFFSET, slot, slotOffset, slotLength);
        return seal(dst, offset, size, crc);
    }

    /**
     * Validates the entry at absolute index {@code offset}, reading no byte at or past {@code limit}.
     *
     * @return the entry's size when its magic, length and CRC hold, otherwise {@link #END}, {@link #TRUNCATED},
     *         {@link #BAD_MAGIC}, {@link #BAD_LENGTH} or {@link #CRC_MISMATCH}
     */
    public static int check(ByteBuffer buffer, int offset, int limit, CRC32C crc) {
        if (limit - offset < 2) {
            // a lone trailing byte cannot start an entry: zero means padding, anything else a torn magic
            return limit - offset == 1 && buffer.get(offset) != 0 ? TRUNCATED : END;
        }
        int magic = Short.toUnsignedInt((short) U16.get(buffer, offset));
        if (magic == 0) {
            return END;
        }
        if (magic != MAGIC) {
            return BAD_MAGIC;
        }
        if (limit - offset < PAYLOAD_OFFSET) {
            return TRUNCATED;
        }
        int length = Short.toUnsignedInt((short) U16.get(buffer, offset + LENGTH_OFFSET));
        if (length < LENGTH_BASE) {
            return BAD_LENGTH;
        }
        int size = length + OVERHEAD - LENGTH_BASE;
        if (limit - offset < size) {
            return TRUNCATED;
        }
        int stored = (int) U32.get(buffer, offset + size - 4);
        return stored == crc(buffer, offset, size - 4, crc) ? size : CRC_MISMATCH;
    }

    /** @return a human-readable reason for a negative {@link #check} result */
    public static String reason(int checkResult) {
        return switch (checkResult) {
            case END -> "end of data";
            case TRUNCATED -> "entry truncated";
            case BAD_MAGIC -> "bad entry magic";
            case BAD_LENGTH -> "bad entry length";
            case CRC_MISMATCH -> "CRC mismatch";
            default -> "valid entry of " + checkResult + " bytes";
        };
    }

    /** CRC-32C of {@code length} bytes at absolute index {@code offset}, leaving the buffer's position alone. */
    static int crc(ByteBuffer buffer, int offset, int length, CRC32C crc) {
        crc.reset();
        if (buffer.hasArray()) {
            crc.update(buffer.array(), buffer.arrayOffset() + offset, length);
        } else {
            crc.update(buffer.slice(offset, length));
        }
        return (int) crc.getValue();
    }
}
