package tandem.protocol.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The FRPL frame: golden bytes, the push decoder fed in any split, and every bound checked before allocating. */
class FrplFrameTest {

    private static final HexFormat HEX = HexFormat.of();

    /** FrogDB's fixture frame-kitchen-sink.hex: flags 05, shard beef, sequence 0102…08, a 24-byte payload. */
    private static final byte[] KITCHEN_SINK = HEX.parseHex("4652504c" + "02" + "05" + "beef" + "0102030405060708"
            + "00000018" + HEX.formatHex("*2\r\n$4\r\nPING\r\n$4\r\nsink\r\n".getBytes(StandardCharsets.US_ASCII)));

    private record Frame(int shard, long sequence, String payload) {
    }

    private static List<Frame> decode(byte[] stream, int piece, long max) {
        List<Frame> got = new ArrayList<>();
        FrplFrame.Decoder d = new FrplFrame.Decoder(max, (shard, sequence, payload) -> {
            byte[] b = new byte[payload.remaining()];
            payload.get(b);
            got.add(new Frame(shard, sequence, new String(b, StandardCharsets.ISO_8859_1)));
        });
        for (int at = 0; at < stream.length; at += piece) {
            d.feed(ByteBuffer.wrap(stream, at, Math.min(piece, stream.length - at)));
        }
        assertThat(d.inFrame()).isFalse();
        return got;
    }

    @Test
    void theFixtureDecodesWithItsReservedFlagsIgnoredWhateverTheSplit() {
        for (int piece : new int[] {1, 3, 19, 20, 21, KITCHEN_SINK.length}) {
            assertThat(decode(KITCHEN_SINK, piece, FrplFrame.MAX_PAYLOAD)).containsExactly(
                    new Frame(0xbeef, 0x0102030405060708L, "*2\r\n$4\r\nPING\r\n$4\r\nsink\r\n"));
        }
    }

    @Test
    void theEncoderWritesTheFixtureWithFlagsZero() {
        byte[] ours = FrplFrame.frame(0xbeef, 0x0102030405060708L,
                "*2\r\n$4\r\nPING\r\n$4\r\nsink\r\n".getBytes(StandardCharsets.US_ASCII));
        byte[] expected = KITCHEN_SINK.clone();
        expected[FrplFrame.FLAGS_OFFSET] = 0;
        assertThat(HEX.formatHex(ours)).isEqualTo(HEX.formatHex(expected));
    }

    @Test
    void getAckIsAControlFrameOfThirtySevenPayloadBytesAtTheOffset() {
        byte[] f = FrplFrame.getAck(1234);
        assertThat(FrplFrame.GETACK).hasSize(37);
        assertThat(HEX.formatHex(f, 0, FrplFrame.HEADER)).isEqualTo("4652504c" + "02" + "00" + "ffff"
                + "00000000000004d2" + "00000025");
        assertThat(decode(f, 1, 100)).containsExactly(new Frame(0xFFFF, 1234,
                "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"));
    }

    @Test
    void aStreamOfRandomFramesDecodesInAnySplit() {
        Random r = new Random(17);
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        List<Frame> sent = new ArrayList<>();
        long offset = 0;
        for (int i = 0; i < 200; i++) {
            byte[] p = new byte[r.nextInt(3000)];
            r.nextBytes(p);
            offset += p.length;
            int shard = i % 7 == 0 ? FrplFrame.CONTROL_SHARD : 0;
            stream.writeBytes(FrplFrame.frame(shard, offset, p));
            sent.add(new Frame(shard, offset, new String(p, StandardCharsets.ISO_8859_1)));
        }
        byte[] all = stream.toByteArray();
        for (int piece : new int[] {1, 7, 4096, all.length}) {
            assertThat(decode(all, piece, 4096)).as("pieces of %d", piece).containsExactlyElementsOf(sent);
        }
    }

    @Test
    void aBadMagicVersionOrLengthIsRefusedBeforeThePayloadIsAllocated() {
        byte[] bad = KITCHEN_SINK.clone();
        bad[0] = 'G';
        assertThatThrownBy(() -> decode(bad, 1, 100)).hasMessageStartingWith("invalid frame magic 4752504c");
        byte[] v1 = KITCHEN_SINK.clone();
        v1[FrplFrame.VERSION_OFFSET] = 1;
        assertThatThrownBy(() -> decode(v1, 5, 100)).hasMessage("unsupported frame version: 1");
        byte[] v3 = KITCHEN_SINK.clone();
        v3[FrplFrame.VERSION_OFFSET] = 3;
        assertThatThrownBy(() -> decode(v3, 5, 100)).hasMessage("unsupported frame version: 3");
        byte[] huge = new byte[FrplFrame.HEADER];
        ByteBuffer.wrap(huge).putInt(FrplFrame.MAGIC).put((byte) 2).put((byte) 0).putShort((short) 0).putLong(9)
                .putInt(0xFFFFFFF0);
        assertThatThrownBy(() -> decode(huge, 20, FrplFrame.MAX_PAYLOAD))
                .hasMessage("frame payload of 4294967280 bytes exceeds the ceiling 1073741824");
        assertThatThrownBy(() -> decode(KITCHEN_SINK, 20, 10))
                .hasMessage("frame payload of 24 bytes exceeds the limit 10");
        assertThatThrownBy(() -> FrplFrame.frame(1 << 16, 0, new byte[0])).isInstanceOf(
                IllegalArgumentException.class);
    }
}
