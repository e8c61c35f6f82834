package tandem.protocol.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.protocol.replication.Bytes.hex;
import static tandem.protocol.replication.Bytes.run;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.protocol.journal.JournalEntry;

/** The InputBatch cursor against malformed slots, and slots against the journal entry codec. */
@Timeout(10)
class InputBatchTest {

    private static final int AT = 6;
    private final InputBatch.Cursor cursor = new InputBatch.Cursor();

    @Test
    void slotLayoutMatchesTheJournalEntry() {
        assertThat(InputBatch.SLOT_HEADER).isEqualTo(JournalEntry.SLOT_OVERHEAD).isEqualTo(35);
        assertThat(InputBatch.SLOT_LENGTH_BASE).isEqualTo(17);
        assertThat(InputBatch.SLOT_SEQUENCE_OFFSET)
                .isEqualTo(JournalEntry.SEQUENCE_OFFSET - JournalEntry.SLOT_OFFSET);
        assertThat(InputBatch.SLOT_TIMESTAMP_OFFSET)
                .isEqualTo(JournalEntry.TIMESTAMP_OFFSET - JournalEntry.SLOT_OFFSET);
        assertThat(InputBatch.SLOT_KEY_HASH_OFFSET).isEqualTo(JournalEntry.KEY_HASH_OFFSET - JournalEntry.SLOT_OFFSET);
        assertThat(InputBatch.SLOT_REQUEST_SEQ_OFFSET)
                .isEqualTo(JournalEntry.REQUEST_SEQ_OFFSET - JournalEntry.SLOT_OFFSET);
        assertThat(InputBatch.SLOT_TAG_OFFSET).isEqualTo(JournalEntry.TAG_OFFSET - JournalEntry.SLOT_OFFSET);
        assertThat(InputBatch.SLOT_PAYLOAD_OFFSET).isEqualTo(JournalEntry.PAYLOAD_OFFSET - JournalEntry.SLOT_OFFSET);
        assertThat(InputBatch.slotLength(0)).isEqualTo(35);
        assertThat(InputBatch.slotLength(300)).isEqualTo(335);
    }

    @Test
    void aSlotIsAJournalEntryWithoutMagicAndCrc() {
        Random rnd = new Random(0xC0DEC);
        CRC32C crc = new CRC32C();
        ByteBuffer entry = ByteBuffer.allocate(AT + JournalEntry.sizeOf(300));
        ByteBuffer slot = ByteBuffer.allocate(AT + InputBatch.slotLength(300) + 3);
        ByteBuffer back = ByteBuffer.allocate(JournalEntry.sizeOf(300));
        for (int i = 0; i < 500; i++) {
            long seq = rnd.nextLong();
            long ts = rnd.nextLong();
            long key = rnd.nextLong();
            long req = rnd.nextLong();
            byte tag = (byte) rnd.nextInt(256);
            byte[] payload = new byte[rnd.nextInt(301)];
            rnd.nextBytes(payload);
            int size = JournalEntry.encode(entry, AT, seq, ts, key, req, tag, payload, 0, payload.length, crc);

            slot.clear().order(rnd.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN).position(AT);
            InputBatch.writeSlot(slot, seq, ts, key, req, tag, ByteBuffer.wrap(payload));
            int slotLength = slot.position() - AT;
            assertThat(slotLength).isEqualTo(InputBatch.slotLength(payload.length)).isEqualTo(size - 6);
            assertThat(Bytes.slice(slot, AT, AT + slotLength)).isEqualTo(Bytes.slice(entry, AT + 2, AT + size - 4));

            // and back: a received slot journaled by the replica is the primary's entry
            ByteBuffer frame = ByteBuffer.allocate(7 + slotLength);
            InputBatch.writeHeader(frame, slotLength, 1);
            frame.put(Bytes.slice(slot, AT, AT + slotLength));
            cursor.wrap(frame.position(4));
            assertThat(cursor.next()).isTrue();
            int written = JournalEntry.encodeSlot(back, 0, cursor.buffer(), cursor.slotOffset(), cursor.slotLength(),
                    crc);
            assertThat(Bytes.slice(back, 0, written)).isEqualTo(Bytes.slice(entry, AT, AT + size));
        }
    }

    @Test
    void zeroSlotsIsValid() {
        assertThat(cursor.wrap(payload("0000")).next()).isFalse();
        assertThat(cursor.count()).isZero();
        assertThat(cursor.wrap(payload("0000 1900 ffff")).next()).as("bytes past zero slots are a tail").isFalse();
    }

    @Test
    void aTruncatedSlotHeaderNamesTheSlot() {
        // slot 0 complete (35 bytes, no payload), slot 1 cut after 20 bytes
        ByteBuffer p = payload("0200 " + slot(0) + hex(run(0x11, 20)));
        cursor.wrap(p);
        assertThat(cursor.next()).isTrue();
        assertThatThrownBy(cursor::next).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch slot 1 of 2: header needs 35 bytes, 20 remain");
    }

    @Test
    void aDeclaredLengthBelow17NamesTheSlot() {
        String bad = "1000" + slot(0).substring(4);
        cursor.wrap(payload("0300 " + slot(0) + slot(0) + bad));
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.next()).isTrue();
        assertThatThrownBy(cursor::next).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch slot 2 declares length 16, below 17");
        assertThatThrownBy(() -> cursor.wrap(payload("0100 0000" + slot(0).substring(4))).next())
                .isInstanceOf(FrameException.class).hasMessage("InputBatch slot 0 declares length 0, below 17");
    }

    @Test
    void aDeclaredLengthBeyondThePayloadNamesTheSlot() {
        // length 0xFFFF: a slot of 65553 bytes where 43 remain
        String huge = "ffff" + slot(8).substring(4);
        assertThatThrownBy(() -> cursor.wrap(payload("0100 " + huge)).next()).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch slot 0 declares 65553 bytes, 43 remain");
        // one byte short of its payload
        String cut = slot(8).substring(0, slot(8).length() - 2);
        cursor.wrap(payload("0200 " + slot(0) + cut));
        assertThat(cursor.next()).isTrue();
        assertThatThrownBy(cursor::next).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch slot 1 declares 43 bytes, 42 remain");
    }

    @Test
    void aCountLargerThanTheSlotsPresentIsCaughtByNext() {
        cursor.wrap(payload("0300 " + slot(0) + slot(8)));
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.next()).isTrue();
        assertThatThrownBy(cursor::next).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch slot 2 of 3: header needs 35 bytes, 0 remain");
    }

    @Test
    void bytesAfterTheLastSlotAreIgnored() {
        cursor.wrap(payload("0100 " + slot(8) + slot(8) + "ff"));
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.payloadLength()).isEqualTo(8);
        assertThat(cursor.next()).isFalse();
    }

    @Test
    void theCursorIsReusable() {
        cursor.wrap(payload("0200 " + slot(0) + slot(8)));
        assertThat(cursor.next()).isTrue();
        cursor.wrap(payload("0100 " + slot(8)));
        assertThat(cursor.index()).isEqualTo(-1);
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.index()).isZero();
        assertThat(cursor.payloadLength()).isEqualTo(8);
        assertThat(cursor.next()).isFalse();
    }

    @Test
    void wrapChecksTheHeader() {
        assertThatThrownBy(() -> cursor.wrap(payload("01"))).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch frame has 2 bytes, needs at least 3");
        ByteBuffer rotate = ByteBuffer.wrap(Rotate.frame(1, new byte[32])).position(4);
        assertThatThrownBy(() -> cursor.wrap(rotate)).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch frame expected, got Rotate (0x16)");
    }

    @Test
    void theHeaderCanBeWrittenAfterTheSlots() {
        ByteBuffer b = ByteBuffer.allocate(AT + 7 + 35 + 43).order(ByteOrder.BIG_ENDIAN).position(AT + 7);
        InputBatch.writeSlot(b, 1, 2, 3, 4, (byte) 3, ByteBuffer.allocate(0));
        InputBatch.writeSlot(b, 5, 6, 7, 8, (byte) 3, ByteBuffer.allocate(8));
        int end = b.position();
        InputBatch.writeHeader(b, AT, end - AT - 7, 2);
        assertThat(b.position()).isEqualTo(end);
        // len = 3 + 35 + 43 = 81 = 0x51
        assertThat(Bytes.slice(b, AT, AT + 7)).isEqualTo(hex("51000000 21 0200"));
        cursor.wrap(b.duplicate().position(AT + 4).limit(end));
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.sequence()).isEqualTo(5);
        assertThat(cursor.next()).isFalse();
    }

    @Test
    void writersRefuseWhatTheWireCannotCarry() {
        ByteBuffer b = ByteBuffer.allocate(70_000);
        assertThatThrownBy(() -> InputBatch.writeHeader(b, 0, 0x10000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputBatch.writeHeader(b, 0, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputBatch.writeHeader(b, -1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InputBatch.writeHeader(b, 69_994, 0, 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> InputBatch.writeSlot(b, 1, 1, 1, 1, (byte) 0x80,
                ByteBuffer.allocate(InputBatch.MAX_SLOT_PAYLOAD + 1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.position()).isZero();
        InputBatch.writeHeader(b, 0, InputBatch.MAX_COUNT);
        InputBatch.writeSlot(b, 1, 1, 1, 1, (byte) 0x80, ByteBuffer.allocate(InputBatch.MAX_SLOT_PAYLOAD));
        assertThat(Short.toUnsignedInt(b.getShort(7))).as("big-endian read of the LE length 0xFFFF").isEqualTo(0xFFFF);
        cursor.wrap(b.flip().position(4));
        assertThat(cursor.count()).isEqualTo(0xFFFF);
        assertThat(cursor.next()).isTrue();
        assertThat(cursor.payloadLength()).isEqualTo(InputBatch.MAX_SLOT_PAYLOAD);
    }

    /** A slot with a payload of {@code n} bytes, fields 1..4, tag 0x80, as hex. */
    private static String slot(int n) {
        ByteBuffer b = ByteBuffer.allocate(InputBatch.slotLength(n));
        InputBatch.writeSlot(b, 1, 2, 3, 4, (byte) 0x80, ByteBuffer.wrap(run(0x30, n)));
        return hex(b.array());
    }

    /** An InputBatch payload: the tag, then {@code rest} (count and slots), at {@value #AT} of a buffer. */
    private static ByteBuffer payload(String rest) {
        return Bytes.payload(hex("21" + rest), AT, 0, ByteOrder.LITTLE_ENDIAN, 0);
    }
}
