package tandem.protocol.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import tandem.api.journal.EntryTag;

@Timeout(10)
class JournalEntryTest {

    /** melin §2.4 KAT1: the codec's pinned Tick entry. */
    static final byte[] KAT1 = hex("454a1900 2122232425262728 3132333435363738 0102030405060708 1112131415161718 03"
            + " 4142434445464748 16026ece");
    /** melin §1.4: the InputBatch slot of the same Tick (the frame minus its 7-byte preamble). */
    static final byte[] KAT1_SLOT = hex("1900 2122232425262728 3132333435363738 0102030405060708 1112131415161718 03"
            + " 4142434445464748");
    /** melin §2.4 KAT4 e1 and e2. */
    static final byte[] KAT4_E1 = hex("454a1900010000000000000000002a36fe9c9717000000000000000000000000000000000300002a"
            + "36fe9c97175f117442");
    static final byte[] KAT4_E2 = hex("454a1a000200000000000000f4012a36fe9c9717efcdab00000000000700000000000000801005"
            + "00000000000000c3f41428");

    private static final int AT = 13;
    private final CRC32C crc = new CRC32C();

    @Test
    void encodesKat1ByteForByteAtAnOffset() {
        ByteBuffer buffer = ByteBuffer.allocate(AT + KAT1.length + 5);
        int size = JournalEntry.encode(buffer, AT, 0x2827262524232221L, 0x3837363534333231L, 0x0807060504030201L,
                0x1817161514131211L, EntryTag.TICK, longLe(0x4847464544434241L), 0, 8, crc);
        assertThat(size).isEqualTo(KAT1.length).isEqualTo(49);
        assertThat(slice(buffer, AT, size)).isEqualTo(KAT1);
        assertThat(buffer.get(AT - 1)).isZero();
        assertThat(buffer.get(AT + size)).isZero();
        assertThat(buffer.position()).isZero();
    }

    @Test
    void decodesKat1InPlace() {
        ByteBuffer buffer = at(KAT1);
        assertThat(JournalEntry.check(buffer, AT, AT + KAT1.length, crc)).isEqualTo(49);
        JournalEntry e = new JournalEntry().wrap(buffer, AT);
        assertThat(e.magic()).isEqualTo(JournalEntry.MAGIC);
        assertThat(e.length()).isEqualTo(25);
        assertThat(e.sequence()).isEqualTo(0x2827262524232221L);
        assertThat(e.timestampNs()).isEqualTo(0x3837363534333231L);
        assertThat(e.keyHash()).isEqualTo(0x0807060504030201L);
        assertThat(e.requestSeq()).isEqualTo(0x1817161514131211L);
        assertThat(e.tag()).isEqualTo(EntryTag.TICK);
        assertThat(e.payloadOffset()).isEqualTo(AT + 37);
        assertThat(e.payload()).isEqualTo(longLe(0x4847464544434241L));
        assertThat(e.size()).isEqualTo(49);
        assertThat(e.crc()).isEqualTo(0xCE6E0216);
    }

    @Test
    void theSlotIsTheEntryWithoutMagicAndCrc() {
        assertThat(slice(ByteBuffer.wrap(KAT1), JournalEntry.SLOT_OFFSET, KAT1.length - 6)).isEqualTo(KAT1_SLOT);
        ByteBuffer out = ByteBuffer.allocate(AT + KAT1.length);
        int size = JournalEntry.encodeSlot(out, AT, at(KAT1_SLOT), AT, KAT1_SLOT.length, crc);
        assertThat(slice(out, AT, size)).isEqualTo(KAT1);
        assertThatThrownBy(() -> JournalEntry.encodeSlot(out, 0, ByteBuffer.wrap(KAT1_SLOT), 0, 20, crc))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void encodesKat4Entries() {
        ByteBuffer buffer = ByteBuffer.allocate(200);
        long ts = 1_700_000_000_000_000_000L;
        int s1 = JournalEntry.encode(buffer, 3, 1, ts, 0, EntryTag.TICK, longLe(ts), 0, 8, crc);
        byte[] increment = hex("10 0500000000000000");
        int s2 = JournalEntry.encode(buffer, 3 + s1, 2, ts + 500, 0xabcdefL, 7, EntryTag.APP, increment, 0,
                increment.length, crc);
        assertThat(slice(buffer, 3, s1)).isEqualTo(KAT4_E1);
        assertThat(slice(buffer, 3 + s1, s2)).isEqualTo(KAT4_E2);
    }

    @Test
    void checkReportsEndTruncationMagicLengthAndCrc() {
        ByteBuffer buffer = at(KAT1);
        int end = AT + KAT1.length;
        assertThat(JournalEntry.check(buffer, AT, end - 1, crc)).isEqualTo(JournalEntry.TRUNCATED);
        assertThat(JournalEntry.check(buffer, AT, AT + 10, crc)).isEqualTo(JournalEntry.TRUNCATED);
        assertThat(JournalEntry.check(buffer, AT, AT + 1, crc)).isEqualTo(JournalEntry.TRUNCATED);
        assertThat(JournalEntry.check(ByteBuffer.allocate(64), 3, 64, crc)).isEqualTo(JournalEntry.END);
        assertThat(JournalEntry.check(ByteBuffer.allocate(64), 63, 64, crc)).isEqualTo(JournalEntry.END);
        for (int i = 0; i < KAT1.length; i++) {
            ByteBuffer bad = at(KAT1);
            bad.put(AT + i, (byte) (bad.get(AT + i) ^ 0x40));
            int r = JournalEntry.check(bad, AT, end, crc);
            assertThat(r).as("flipped byte %d", i).isNegative().isNotEqualTo(JournalEntry.END);
        }
        ByteBuffer shortLength = at(KAT1);
        shortLength.put(AT + 2, (byte) 16);
        assertThat(JournalEntry.check(shortLength, AT, end, crc)).isEqualTo(JournalEntry.BAD_LENGTH);
        ByteBuffer magic = at(KAT1);
        magic.put(AT, (byte) 0x46);
        assertThat(JournalEntry.check(magic, AT, end, crc)).isEqualTo(JournalEntry.BAD_MAGIC);
        assertThat(JournalEntry.reason(JournalEntry.CRC_MISMATCH)).isEqualTo("CRC mismatch");
    }

    @Test
    void refusesOversizedPayloadsAndShortBuffers() {
        byte[] max = new byte[JournalEntry.MAX_PAYLOAD];
        ByteBuffer buffer = ByteBuffer.allocate(JournalEntry.MAX_SIZE + 1);
        assertThat(JournalEntry.encode(buffer, 1, 1, 1, 1, EntryTag.APP, max, 0, max.length, crc))
                .isEqualTo(JournalEntry.MAX_SIZE).isEqualTo(65559);
        assertThat(new JournalEntry().wrap(buffer, 1).length()).isEqualTo(0xFFFF);
        assertThatThrownBy(() -> JournalEntry.encode(buffer, 0, 1, 1, 1, EntryTag.APP, new byte[65519], 0, 65519,
                crc)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JournalEntry.encode(buffer, 2, 1, 1, 1, EntryTag.APP, max, 0, max.length, crc))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Property(tries = 100)
    void roundTripsOnHeapAndDirectBuffers(@ForAll long sequence, @ForAll long ts, @ForAll long keyHash,
            @ForAll byte tag, @ForAll @Size(max = 300) byte[] payload, @ForAll @IntRange(max = 40) int offset) {
        for (ByteBuffer buffer : new ByteBuffer[] {ByteBuffer.allocate(offset + 400),
                ByteBuffer.allocateDirect(offset + 400)}) {
            int size = JournalEntry.encode(buffer, offset, sequence, ts, keyHash, tag, payload, 0, payload.length,
                    crc);
            assertThat(JournalEntry.check(buffer, offset, offset + size, crc)).isEqualTo(size);
            JournalEntry e = new JournalEntry().wrap(buffer, offset);
            assertThat(e.sequence()).isEqualTo(sequence);
            assertThat(e.timestampNs()).isEqualTo(ts);
            assertThat(e.keyHash()).isEqualTo(keyHash);
            assertThat(e.requestSeq()).isZero();
            assertThat(e.tag()).isEqualTo(tag);
            assertThat(e.payload()).isEqualTo(payload);
            assertThat(e.size()).isEqualTo(size).isEqualTo(41 + payload.length);
        }
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    static byte[] longLe(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    private static ByteBuffer at(byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocate(AT + bytes.length + 7);
        b.put(AT, bytes);
        return b;
    }

    static byte[] slice(ByteBuffer b, int offset, int length) {
        byte[] out = new byte[length];
        b.get(offset, out);
        return out;
    }
}
