package tandem.protocol.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;

/** Frames written straight into one buffer, headers and all, offsets continuing from entry to entry. */
@Timeout(10)
class FrplWriterTest {

    @Test
    void framesGoBackToBackWithTheOffsetAfterEachInItsHeader() {
        FrplWriter w = new FrplWriter();
        byte[] set = CommandPayload.encode(new byte[][] {bytes("SET"), bytes("k"), bytes("v")});
        long after = w.entry(EntryTag.APP, 1_700_000_000_000_000_123L, ByteBuffer.wrap(set), 100);
        assertThat(after).isEqualTo(168);
        after = w.entry(EntryTag.EPOCH_BUMP, 5, ByteBuffer.allocate(8), after);
        assertThat(after).as("an EpochBump has no frame").isEqualTo(168);
        after = w.entry(EntryTag.TICK, 0, ByteBuffer.allocate(8), after);
        String tick = "*2\r\n$11\r\nTANDEM.TICK\r\n$1\r\n0\r\n";
        assertThat(after).isEqualTo(168 + tick.length());
        assertThat(HexFormat.of().formatHex(bytes(w.written()))).isEqualTo(
                "4652504c" + "02" + "00" + "0000" + "00000000000000a8" + "00000044"
                        + hex("*5\r\n$9\r\nTANDEM.AT\r\n$19\r\n1700000000000000123\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")
                        + "4652504c" + "02" + "00" + "0000" + "00000000000000c5" + "0000001d" + hex(tick));
        w.clear();
        assertThat(w.size()).isZero();
    }

    @Test
    void anEntryThatIsNotACommandLeavesWhatWasWrittenBefore() {
        FrplWriter w = new FrplWriter();
        byte[] set = CommandPayload.encode(new byte[][] {bytes("SET"), bytes("k"), bytes("v")});
        w.entry(EntryTag.APP, 1, ByteBuffer.wrap(set), 0);
        int size = w.size();
        List<byte[][]> commands = List.of(new byte[][][] {{bytes("INCR"), bytes("n")}});
        byte[] broken = CommandPayload.encodeTransaction(commands);
        byte[] cut = java.util.Arrays.copyOf(broken, broken.length - 3);
        assertThatThrownBy(() -> w.entry(EntryTag.APP, 1, ByteBuffer.wrap(cut), 100))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(w.size()).isEqualTo(size);
    }

    @Test
    void aLargeCommandGrowsTheBuffer() {
        FrplWriter w = new FrplWriter();
        byte[] big = CommandPayload.encode(new byte[][] {bytes("SET"), bytes("b"), new byte[300_000]});
        long after = w.entry(EntryTag.APP, 7, ByteBuffer.wrap(big), 0);
        assertThat(after).isEqualTo(FrplPayload.length(EntryTag.APP, 7, big));
        assertThat(w.size()).isEqualTo(FrplFrame.HEADER + (int) after);
    }

    /** What a payload read in place gives equals what it gives alone: a slice of a larger buffer, a direct one. */
    @Property(tries = 100)
    void theFramesOfAPayloadAreThoseOfItsBytesWhereverTheyLie(@ForAll("payloads") byte[] payload,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long ts) {
        FrplWriter alone = new FrplWriter();
        long end = alone.entry(EntryTag.APP, ts, ByteBuffer.wrap(payload), 0);
        ByteBuffer direct = ByteBuffer.allocateDirect(payload.length + 10);
        direct.position(5).put(payload).flip().position(5);
        FrplWriter inPlace = new FrplWriter();
        assertThat(inPlace.entry(EntryTag.APP, ts, direct, 0)).isEqualTo(end)
                .isEqualTo(FrplPayload.length(EntryTag.APP, ts, payload));
        assertThat(bytes(inPlace.written())).isEqualTo(bytes(alone.written()));
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        long offset = 0;
        for (byte[] f : FrplPayload.frames(EntryTag.APP, ts, payload)) {
            offset += f.length;
            frames.writeBytes(FrplFrame.frame(0, offset, f));
        }
        assertThat(bytes(alone.written())).isEqualTo(frames.toByteArray());
    }

    @Provide
    Arbitrary<byte[]> payloads() {
        return Payloads.commandsAndTransactions();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        return out;
    }

    private static String hex(String ascii) {
        return HexFormat.of().formatHex(bytes(ascii));
    }
}
