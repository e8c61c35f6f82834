package tandem.transport.dpdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/** The raw frame layout, byte for byte, and {@link Segment#check} on every way a frame can be wrong. */
@Timeout(10)
class SegmentTest {

    /** A DATA segment: epoch 0x01020304, seq 5, ack 6, window 256, payload "hi". */
    static final String DATA_GOLDEN = "020000000000" + "020000000000" + "88b5" + "01" + "01" + "0200"
            + "04030201" + "05000000" + "06000000" + "00010000" + "%s" + "6869";

    private static ByteBuffer data(byte[] payload, int seq) {
        ByteBuffer b = ByteBuffer.allocate(Segment.MAX_FRAME);
        b.put(Segment.HEADER, payload);
        new Segment().wrap(b.position(0)).writeHeader(Segment.DATA, 0x01020304, seq, 6, 256, payload.length);
        return b.position(0).limit(Segment.HEADER + payload.length);
    }

    @Test
    void aDataSegmentIsLaidOutAsDrawn() {
        ByteBuffer b = data("hi".getBytes(), 5);
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        String hex = HexFormat.of().formatHex(bytes);
        String crc = hex.substring(2 * Segment.CRC_OFFSET, 2 * Segment.HEADER);
        assertThat(hex).isEqualTo(DATA_GOLDEN.formatted(crc));
        // the checksum is CRC32C of everything but itself, little-endian
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(bytes, 0, Segment.CRC_OFFSET);
        c.update(bytes, Segment.HEADER, 2);
        assertThat(ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(Segment.CRC_OFFSET))
                .isEqualTo((int) c.getValue());
        assertThat(new Segment().wrap(b).check(bytes.length)).isEqualTo(Segment.Verdict.OK);
    }

    @Test
    void aBareAckHasNoPayload() {
        ByteBuffer b = ByteBuffer.allocate(Segment.HEADER);
        Segment s = new Segment().wrap(b);
        assertThat(s.writeHeader(Segment.ACK, 9, 0, 77, 256, 0)).isEqualTo(Segment.HEADER);
        assertThat(s.check(Segment.HEADER)).isEqualTo(Segment.Verdict.OK);
        assertThat(s.kind()).isEqualTo(Segment.ACK);
        assertThat(s.ack()).isEqualTo(77);
        assertThat(s.epoch()).isEqualTo(9);
    }

    @Test
    void everyWrongFrameIsRefusedBeforeAFieldIsTrusted() {
        byte[] ok = new byte[Segment.HEADER + 2];
        data("hi".getBytes(), 5).get(ok);
        assertThat(verdict(ok, ok.length)).isEqualTo(Segment.Verdict.OK);
        assertThat(verdict(ok, Segment.HEADER - 1)).as("short").isEqualTo(Segment.Verdict.MALFORMED);
        assertThat(verdict(ok, ok.length - 1)).as("length does not match the size")
                .isEqualTo(Segment.Verdict.MALFORMED);
        assertThat(verdict(with(ok, Segment.ETHERTYPE_OFFSET, 0x08), ok.length)).as("IPv4, not ours")
                .isEqualTo(Segment.Verdict.MALFORMED);
        assertThat(verdict(with(ok, Segment.VERSION_OFFSET, 2), ok.length)).as("version 2")
                .isEqualTo(Segment.Verdict.MALFORMED);
        assertThat(verdict(with(ok, Segment.KIND_OFFSET, 7), ok.length)).as("kind 7")
                .isEqualTo(Segment.Verdict.MALFORMED);
        assertThat(verdict(with(ok, Segment.KIND_OFFSET, Segment.ACK), ok.length)).as("an ACK with a payload")
                .isEqualTo(Segment.Verdict.MALFORMED);
        assertThat(verdict(with(ok, Segment.HEADER, 'H'), ok.length)).as("payload bit flipped")
                .isEqualTo(Segment.Verdict.CORRUPT);
        assertThat(verdict(with(ok, 3, 1), ok.length)).as("a MAC byte changed").isEqualTo(Segment.Verdict.CORRUPT);
        assertThat(verdict(with(ok, Segment.SEQ_OFFSET, 6), ok.length)).as("seq changed")
                .isEqualTo(Segment.Verdict.CORRUPT);
        byte[] huge = new byte[Segment.MAX_FRAME + 1];
        assertThat(verdict(huge, huge.length)).as("over the MTU").isEqualTo(Segment.Verdict.MALFORMED);
    }

    @Property(tries = 500)
    void noBytesMakeCheckThrow(@ForAll @Size(max = Segment.MAX_FRAME + 10) byte[] frame) {
        Segment.Verdict v = verdict(frame, frame.length);
        assertThat(v).isNotNull();
    }

    @Test
    void sequenceNumbersCompareAcrossTheWrap() {
        assertThat(Segment.before(1, 2)).isTrue();
        assertThat(Segment.before(2, 1)).isFalse();
        assertThat(Segment.before(-1, 0)).as("0xFFFFFFFF before 0").isTrue();
        assertThat(Segment.before(Integer.MAX_VALUE, Integer.MIN_VALUE)).isTrue();
    }

    private static Segment.Verdict verdict(byte[] frame, int size) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(frame.length, 1));
        b.put(frame).position(0);
        return new Segment().wrap(b).check(size);
    }

    private static byte[] with(byte[] frame, int offset, int value) {
        byte[] c = frame.clone();
        c[offset] = (byte) value;
        return c;
    }
}
