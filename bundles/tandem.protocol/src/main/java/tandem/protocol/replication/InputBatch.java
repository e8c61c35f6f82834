package tandem.protocol.replication;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

import tandem.protocol.journal.JournalEntry;

/**
 * InputBatch, primary to replica: the data frame, journaled entries as slots, one frame per primary fsync batch (or
 * per catch-up read).
 *
 * <pre>
 *  0     1       3
 *  +-----+-------+--------+--------+- - - -+
 *  | tag | count | slot 0 | slot 1 |  ...  |   count slots, back to back
 *  |0x21 |  u16  |        |        |       |
 *  +-----+-------+--------+--------+- - - -+
 *
 *  slot:
 *  0       2               10              18              26              34  35                35+p
 *  +-------+---------------+---------------+---------------+---------------+---+-----------------+
 *  |length |   sequence    | timestamp_ns  |   key_hash    |  request_seq  |tag|   payload (p)   |
 *  | u16   |     u64       |     u64       |     u64       |     u64       |u8 |                 |
 *  +-------+---------------+---------------+---------------+---------------+---+-----------------+
 * </pre>
 *
 * {@code length} = 17 + p: like the journal entry's, it covers key_hash, request_seq, tag and payload, not the
 * sequence and timestamp. A slot is byte for byte a {@link JournalEntry} without its 2-byte magic and 4-byte CRC,
 * so the primary appends a slot by copying the entry's bytes and a replica journals one with
 * {@link JournalEntry#encodeSlot}. There is no per-slot CRC: the transport carries integrity.
 *
 * <p>Writing: {@link #writeHeader} then {@link #writeSlot} per slot; a writer that learns the count only at the end
 * writes the header last with the absolute {@link #writeHeader(ByteBuffer, int, int, int)}. Reading: a reusable
 * {@link Cursor}.
 */
public final class InputBatch {

    /** The header: tag and count. */
    public static final int LENGTH = 3;
    public static final int COUNT_OFFSET = 1;
    public static final int SLOTS_OFFSET = 3;
    /** The most slots one frame declares: the u16 count. */
    public static final int MAX_COUNT = 0xFFFF;

    public static final int SLOT_LENGTH_OFFSET = 0;
    public static final int SLOT_SEQUENCE_OFFSET = 2;
    public static final int SLOT_TIMESTAMP_OFFSET = 10;
    public static final int SLOT_KEY_HASH_OFFSET = 18;
    public static final int SLOT_REQUEST_SEQ_OFFSET = 26;
    public static final int SLOT_TAG_OFFSET = 34;
    public static final int SLOT_PAYLOAD_OFFSET = 35;
    /** Bytes of a slot that are not payload. */
    public static final int SLOT_HEADER = 35;
    /** A slot's {@code length} minus its payload: key_hash, request_seq, tag. */
    public static final int SLOT_LENGTH_BASE = JournalEntry.LENGTH_BASE;
    /** Bytes of a slot that its {@code length} does not cover: the length itself, sequence, timestamp. */
    static final int SLOT_UNCOUNTED = SLOT_HEADER - SLOT_LENGTH_BASE;
    /** The largest payload of one slot: the u16 {@code length} minus {@value #SLOT_LENGTH_BASE}. */
    public static final int MAX_SLOT_PAYLOAD = JournalEntry.MAX_PAYLOAD;

    private InputBatch() {
    }

    /**
     * Writes {@code [len][0x21][count]} at dst's position and advances past it; the slots follow.
     *
     * @param payloadBytes the sum of the slots' sizes ({@link #slotLength} each); the frame's len is 3 + that
     */
    public static void writeHeader(ByteBuffer dst, int payloadBytes, int count) {
        int at = dst.position();
        if (dst.remaining() < Frames.LENGTH_PREFIX + LENGTH) {
            throw new BufferOverflowException();
        }
        writeHeader(dst, at, payloadBytes, count);
        dst.position(at + Frames.LENGTH_PREFIX + LENGTH);
    }

    /**
     * Writes {@code [len][0x21][count]} at absolute index {@code index}, leaving dst's position alone: for a writer
     * that reserves the header, appends slots, then fills it in.
     */
    public static void writeHeader(ByteBuffer dst, int index, int payloadBytes, int count) {
        if (count < 0 || count > MAX_COUNT) {
            throw new IllegalArgumentException("count " + count + ": a batch holds 0.." + MAX_COUNT + " slots");
        }
        if (payloadBytes < 0 || payloadBytes > Integer.MAX_VALUE - LENGTH) {
            throw new IllegalArgumentException("slots of " + payloadBytes + " bytes");
        }
        if (index < 0 || index > dst.limit() - Frames.LENGTH_PREFIX - LENGTH) {
            throw new IndexOutOfBoundsException("InputBatch header at " + index + " exceeds the buffer");
        }
        Wire.putInt(dst, index, LENGTH + payloadBytes);
        dst.put(index + Frames.LENGTH_PREFIX, Frames.TAG_INPUT_BATCH);
        Wire.putShort(dst, index + Frames.LENGTH_PREFIX + COUNT_OFFSET, count);
    }

    /**
     * Writes one slot at dst's position and advances past it; {@code payload}'s remaining bytes are copied, its
     * position does not move.
     *
     * @throws IllegalArgumentException when the payload exceeds {@value #MAX_SLOT_PAYLOAD} bytes
     * @throws BufferOverflowException when the slot does not fit (nothing is written)
     */
    public static void writeSlot(ByteBuffer dst, long sequence, long timestampNs, long keyHash, long requestSeq,
            byte tag, ByteBuffer payload) {
        int n = payload.remaining();
        if (n > MAX_SLOT_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + n + " bytes: a slot holds 0.." + MAX_SLOT_PAYLOAD);
        }
        int at = dst.position();
        int size = slotLength(n);
        if (dst.remaining() < size) {
            throw new BufferOverflowException();
        }
        Wire.putShort(dst, at + SLOT_LENGTH_OFFSET, SLOT_LENGTH_BASE + n);
        Wire.putLong(dst, at + SLOT_SEQUENCE_OFFSET, sequence);
        Wire.putLong(dst, at + SLOT_TIMESTAMP_OFFSET, timestampNs);
        Wire.putLong(dst, at + SLOT_KEY_HASH_OFFSET, keyHash);
        Wire.putLong(dst, at + SLOT_REQUEST_SEQ_OFFSET, requestSeq);
        dst.put(at + SLOT_TAG_OFFSET, tag);
        dst.put(at + SLOT_PAYLOAD_OFFSET, payload, payload.position(), n);
        dst.position(at + size);
    }

    /** @return the size of a slot carrying {@code payloadLength} bytes: {@value #SLOT_HEADER} + payloadLength */
    public static int slotLength(int payloadLength) {
        return SLOT_HEADER + payloadLength;
    }

    /** @throws FrameException when {@code payload} is not an InputBatch with a complete header */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_INPUT_BATCH, LENGTH);
    }

    /** @return the declared slot count */
    public static int count(ByteBuffer payload) {
        return Wire.getUnsignedShort(payload, COUNT_OFFSET);
    }

    /**
     * Walks the slots of one InputBatch payload in place. Reusable: {@link #wrap} resets it, nothing is allocated or
     * copied. {@link #next} validates each slot before it becomes current, so the accessors never read outside the
     * payload. Bytes after the last declared slot are ignored, like the tail of any other frame.
     */
    public static final class Cursor {

        private ByteBuffer buffer;
        private int limit;
        private int count;
        private int index;
        private int slot;
        private int next;
        private int payloadLength;

        /**
         * Points the cursor before the first slot of {@code payload} (positioned at the tag; its position and limit
         * are read once and not changed).
         *
         * @throws FrameException when the header is not an InputBatch's
         */
        public Cursor wrap(ByteBuffer payload) {
            check(payload);
            buffer = payload;
            limit = payload.limit();
            count = InputBatch.count(payload);
            index = -1;
            slot = -1;
            next = payload.position() + SLOTS_OFFSET;
            payloadLength = 0;
            return this;
        }

        /**
         * Moves to the next slot.
         *
         * @return false once {@link #count} slots have been read
         * @throws FrameException when the slot's header is cut short, its length is below
         *                        {@value InputBatch#SLOT_LENGTH_BASE}, or it runs past the payload
         */
        public boolean next() {
            if (index + 1 >= count) {
                return false;
            }
            int i = index + 1;
            int remaining = limit - next;
            if (remaining < SLOT_HEADER) {
                throw new FrameException("InputBatch slot " + i + " of " + count + ": header needs " + SLOT_HEADER
                        + " bytes, " + remaining + " remain");
            }
            int length = Short.toUnsignedInt((short) Wire.U16.get(buffer, next + SLOT_LENGTH_OFFSET));
            if (length < SLOT_LENGTH_BASE) {
                throw new FrameException("InputBatch slot " + i + " declares length " + length + ", below "
                        + SLOT_LENGTH_BASE);
            }
            int size = length + SLOT_UNCOUNTED;
            if (size > remaining) {
                throw new FrameException("InputBatch slot " + i + " declares " + size + " bytes, " + remaining
                        + " remain");
            }
            index = i;
            slot = next;
            payloadLength = length - SLOT_LENGTH_BASE;
            next += size;
            return true;
        }

        /** @return the buffer wrapped, to hand a slot to {@link JournalEntry#encodeSlot} */
        public ByteBuffer buffer() {
            return buffer;
        }

        /** @return the declared slot count */
        public int count() {
            return count;
        }

        /** @return the current slot's 0-based index */
        public int index() {
            return index;
        }

        public long sequence() {
            return (long) Wire.U64.get(buffer, slot + SLOT_SEQUENCE_OFFSET);
        }

        public long timestampNs() {
            return (long) Wire.U64.get(buffer, slot + SLOT_TIMESTAMP_OFFSET);
        }

        public long keyHash() {
            return (long) Wire.U64.get(buffer, slot + SLOT_KEY_HASH_OFFSET);
        }

        public long requestSeq() {
            return (long) Wire.U64.get(buffer, slot + SLOT_REQUEST_SEQ_OFFSET);
        }

        public byte tag() {
            return buffer.get(slot + SLOT_TAG_OFFSET);
        }

        /** @return the absolute index of the current slot's payload */
        public int payloadOffset() {
            return slot + SLOT_PAYLOAD_OFFSET;
        }

        public int payloadLength() {
            return payloadLength;
        }

        /** @return the absolute index of the current slot's first byte (its u16 length) */
        public int slotOffset() {
            return slot;
        }

        /** @return the current slot's size, {@value InputBatch#SLOT_HEADER} + {@link #payloadLength} */
        public int slotLength() {
            return SLOT_HEADER + payloadLength;
        }
    }
}
