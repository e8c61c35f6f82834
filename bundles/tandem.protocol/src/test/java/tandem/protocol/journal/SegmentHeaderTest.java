package tandem.protocol.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.protocol.journal.JournalEntryTest.hex;
import static tandem.protocol.journal.JournalEntryTest.slice;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SegmentHeaderTest {

    /**
     * Tandem's own golden header (computed with an independent Python CRC-32C): the successor segment of melin's
     * KAT4, starting at sequence 3 with anchor chain(2), at replication offset 1234567 (0x12D687). The 60 meaningful
     * bytes; the rest of the 4096 are zero.
     */
    static final byte[] GOLDEN = hex("52554f4a 0f00 0010 0300000000000000"
            + " 3489f59a619f76ef41043ff6a0a97ddf65e04b722517596a00d7348490b1d28b"
            + " 87d6120000000000 f1e4d0c7");
    static final byte[] CHAIN2 = hex("3489f59a619f76ef41043ff6a0a97ddf65e04b722517596a00d7348490b1d28b");

    private static final int AT = 21;
    private final CRC32C crc = new CRC32C();

    @Test
    void encodesTheGoldenHeaderAtAnOffset() {
        ByteBuffer buffer = ByteBuffer.allocate(AT + SegmentHeader.SIZE + 3);
        for (int i = 0; i < buffer.capacity(); i++) {
            buffer.put(i, (byte) 0x5A);
        }
        assertThat(SegmentHeader.encode(buffer, AT, 3, CHAIN2, 1234567, crc)).isEqualTo(4096);
        assertThat(slice(buffer, AT, 60)).isEqualTo(GOLDEN);
        assertThat(slice(buffer, AT + 60, 4096 - 60)).containsOnly(0);
        assertThat(buffer.get(AT - 1)).isEqualTo((byte) 0x5A);
        assertThat(buffer.get(AT + 4096)).isEqualTo((byte) 0x5A);
    }

    @Test
    void decodesTheGoldenHeader() {
        ByteBuffer buffer = ByteBuffer.allocate(AT + 60);
        buffer.put(AT, GOLDEN);
        SegmentHeader h = new SegmentHeader().wrap(buffer, AT);
        assertThat(h.check(crc)).isNull();
        assertThat(h.magic()).isEqualTo(SegmentHeader.MAGIC);
        assertThat(h.formatVersion()).isEqualTo(15);
        assertThat(h.sectorSize()).isEqualTo(4096);
        assertThat(h.startingSequence()).isEqualTo(3);
        assertThat(h.anchor()).isEqualTo(CHAIN2);
        assertThat(h.replicationOffset()).isEqualTo(1234567);
        assertThat(h.headerCrc()).isEqualTo(0xC7D0E4F1);
    }

    @Test
    void theCrcAgreesWithMelinKat3() {
        // melin's version-14 header is our first 48 bytes; its CRC pins the same CRC-32C over the same bytes
        byte[] v14 = hex("52554f4a 0e00 0010 0100000000000000 000102030405060708090a0b0c0d0e0f"
                + "101112131415161718191a1b1c1d1e1f");
        crc.update(v14);
        assertThat((int) crc.getValue()).isEqualTo(0xC981468A);
    }

    @Test
    void rejectsBadMagicVersionAndCrc() {
        for (int i = 0; i < 60; i++) {
            ByteBuffer buffer = ByteBuffer.allocate(60);
            buffer.put(0, GOLDEN);
            buffer.put(i, (byte) (buffer.get(i) ^ 1));
            assertThat(new SegmentHeader().wrap(buffer, 0).check(crc)).as("flipped byte %d", i).isNotNull();
        }
        ByteBuffer melin = ByteBuffer.allocate(60);
        melin.put(0, GOLDEN);
        melin.put(4, (byte) 14);
        assertThat(new SegmentHeader().wrap(melin, 0).check(crc)).contains("format version 14");
    }
}
