package tandem.protocol.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;

@Timeout(10)
class FrplPayloadTest {

    private static final long TS = 1_700_000_000_000_000_000L;

    /** What the sequencer computes from a command's shape is what measuring its payload gives. */
    @Property(tries = 200)
    void theLengthFromACommandsShapeIsTheLengthOfItsPayload(@ForAll @IntRange(min = 1, max = 40) int argc,
            @ForAll @IntRange(min = 0, max = 300) int width, @ForAll @LongRange(min = 0) long ts) {
        byte[][] args = new byte[argc][];
        for (int i = 0; i < argc; i++) {
            args[i] = new byte[(width * (i + 7)) % 301];
        }
        byte[] payload = CommandPayload.encode(args);
        assertThat(FrplPayload.appLength(argc, payload.length, ts))
                .isEqualTo(FrplPayload.length(EntryTag.APP, ts, payload));
    }

    @Test
    void wrapsACommandInTandemAt() {
        byte[] set = CommandPayload.encode(args("SET", "k", "v"));
        assertFrames(EntryTag.APP, TS, set,
                "*5\r\n$9\r\nTANDEM.AT\r\n$19\r\n1700000000000000000\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n");
    }

    @Test
    void theArrayHeaderGrowsADigitAtEightArguments() {
        byte[] mset = CommandPayload.encode(args("MSET", "a", "1", "b", "2", "c", "3", "d"));
        assertFrames(EntryTag.APP, 7, mset, "*10\r\n$9\r\nTANDEM.AT\r\n$1\r\n7\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\n1\r\n"
                + "$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nd\r\n");
    }

    @Test
    void aTransactionBecomesMultiWrappedCommandsExec() {
        byte[] tx = CommandPayload.encodeTransaction(List.of(args("INCR", "c"), args("DEL", "x", "")));
        assertFrames(EntryTag.APP, 42, tx,
                "*1\r\n$5\r\nMULTI\r\n",
                "*4\r\n$9\r\nTANDEM.AT\r\n$2\r\n42\r\n$4\r\nINCR\r\n$1\r\nc\r\n",
                "*5\r\n$9\r\nTANDEM.AT\r\n$2\r\n42\r\n$3\r\nDEL\r\n$1\r\nx\r\n$0\r\n\r\n",
                "*1\r\n$4\r\nEXEC\r\n");
        assertFrames(EntryTag.APP, 42, CommandPayload.encodeTransaction(List.of()),
                "*1\r\n$5\r\nMULTI\r\n", "*1\r\n$4\r\nEXEC\r\n");
    }

    @Test
    void aTickBecomesTandemTickAndOtherEntriesNothing() {
        assertFrames(EntryTag.TICK, 0, new byte[8], "*2\r\n$11\r\nTANDEM.TICK\r\n$1\r\n0\r\n");
        assertFrames(EntryTag.TICK, TS, new byte[8], "*2\r\n$11\r\nTANDEM.TICK\r\n$19\r\n1700000000000000000\r\n");
        assertFrames(EntryTag.TICK, Long.MAX_VALUE, new byte[8],
                "*2\r\n$11\r\nTANDEM.TICK\r\n$19\r\n9223372036854775807\r\n");
        assertFrames(EntryTag.EPOCH_BUMP, TS, new byte[8]);
        assertFrames(EntryTag.APP_CONTINUATION, TS, new byte[] {1, 2, 3});
    }

    @Test
    void aPublishIsFramedAsTheCommandItIs() {
        assertFrames(EntryTag.PUBLISH, TS, CommandPayload.encode(args("PUBLISH", "ch", "hi")),
                "*5\r\n$9\r\nTANDEM.AT\r\n$19\r\n1700000000000000000\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$2\r\nhi\r\n");
        assertFrames(EntryTag.PUBLISH, 3, CommandPayload.encode(args("spublish", "s", "")),
                "*5\r\n$9\r\nTANDEM.AT\r\n$1\r\n3\r\n$8\r\nspublish\r\n$1\r\ns\r\n$0\r\n\r\n");
        byte[] p = CommandPayload.encode(args("PUBLISH", "ch", "m"));
        assertThat(FrplPayload.length(EntryTag.PUBLISH, TS, p)).isEqualTo(FrplPayload.appLength(3, p.length, TS));
        for (byte[] bad : List.of(CommandPayload.encode(args("SET", "k", "v")),
                CommandPayload.encode(args("PUBLISH", "ch")), CommandPayload.encode(args("PUBLISH", "a", "b", "c")),
                CommandPayload.encodeTransaction(List.<byte[][]>of(args("PUBLISH", "a", "b"))), new byte[0])) {
            assertThatThrownBy(() -> FrplPayload.length(EntryTag.PUBLISH, 1, bad))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> FrplPayload.frames(EntryTag.PUBLISH, 1, bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void refusesWhatIsNotACommand() {
        for (String bad : List.of("", "*0\r\n", "*1\r\n$3\r\nab\r\n", "*1\r\n$1\r\na\r\nx", "+OK\r\n",
                "*1\r\n$5\r\nMULTI\r\n*1\r\n$1\r\na\r\n", "*1\r\n$01\r\na\r\n")) {
            byte[] p = bad.getBytes(StandardCharsets.ISO_8859_1);
            assertThatThrownBy(() -> FrplPayload.length(EntryTag.APP, 1, p)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> FrplPayload.frames(EntryTag.APP, 1, p)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> FrplPayload.length(EntryTag.TICK, -1, new byte[8]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FrplPayload.length((byte) 0x01, 1, new byte[8]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Property(tries = 100)
    void lengthIsTheSumOfTheFramesLengths(@ForAll("payloads") byte[] payload,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long ts) {
        long sum = 0;
        for (byte[] f : FrplPayload.frames(EntryTag.APP, ts, payload)) {
            sum += f.length;
        }
        assertThat(FrplPayload.length(EntryTag.APP, ts, payload)).isEqualTo(sum);
    }

    /**
     * A replica whose journal was just replaced by a snapshot's seed of only a header holds no entry, and the
     * sequence before it is not retained: resuming reads nothing (reading it failed every stream after such a
     * snapshot).
     */
    @Test
    void resumingOnAnEmptySegmentReadsNothing() throws InterruptedException {
        tandem.api.journal.JournalReader seeded = (tandem.api.journal.JournalReader) java.lang.reflect.Proxy
                .newProxyInstance(getClass().getClassLoader(), new Class<?>[] {tandem.api.journal.JournalReader.class},
                        (proxy, method, args) -> switch (method.getName()) {
                            case "lastSequence", "durableSequence" -> 6103L;
                            case "awaitDurable" -> null;
                            case "segments" -> List.of(new tandem.api.journal.SegmentInfo("journal", 6104, 6103,
                                    new byte[32], 0, false));
                            default -> throw new IllegalArgumentException("sequence 6103 is no longer retained");
                        });
        FrplPayload.Fragments fragments = new FrplPayload.Fragments();
        fragments.resume(seeded);
        assertThat(fragments.length(6104, 1, EntryTag.TICK, ByteBuffer.allocate(8)))
                .isEqualTo(FrplPayload.length(EntryTag.TICK, 1, new byte[8]));
    }

    /**
     * A command received as fragments measures what it measures whole, without its fragments joined (a plain
     * command's first fragment tells its argument count); an entry that cuts a group short discards it, and a
     * fragment that does not follow the last one starts a new group.
     */
    @Property(tries = 200)
    void fragmentsMeasureWhatTheWholeCommandMeasures(@ForAll("payloads") byte[] payload,
            @ForAll @IntRange(min = 16, max = 200) int fragment, @ForAll @LongRange(min = 0) long ts) {
        FrplPayload.Fragments fragments = new FrplPayload.Fragments();
        long seq = 10;
        // a group cut short first: it counts nothing, and the next group starts clean
        assertThat(fragments.length(seq++, ts, EntryTag.APP_CONTINUATION, ByteBuffer.wrap(payload))).isZero();
        assertThat(fragments.length(seq++, ts, EntryTag.TICK, ByteBuffer.allocate(8)))
                .isEqualTo(FrplPayload.length(EntryTag.TICK, ts, new byte[8]));
        long measured = 0;
        int at = 0;
        for (; payload.length - at > fragment; at += fragment) {
            measured += fragments.length(seq++, ts, EntryTag.APP_CONTINUATION, ByteBuffer.wrap(payload, at,
                    fragment));
        }
        measured += fragments.length(seq++, ts, EntryTag.APP, ByteBuffer.wrap(payload, at, payload.length - at));
        assertThat(measured).isEqualTo(FrplPayload.length(EntryTag.APP, ts, payload));
        // a fragment that does not follow the last sequence starts a group of its own
        fragments.length(seq + 5, ts, EntryTag.APP_CONTINUATION, ByteBuffer.wrap(payload, 0,
                Math.min(16, payload.length)));
        assertThat(fragments.length(seq + 7, ts, EntryTag.APP, ByteBuffer.wrap(payload)))
                .isEqualTo(FrplPayload.length(EntryTag.APP, ts, payload));
    }

    @Provide
    Arbitrary<byte[]> payloads() {
        return Payloads.commandsAndTransactions();
    }

    private static void assertFrames(byte tag, long ts, byte[] payload, String... expected) {
        List<byte[]> frames = FrplPayload.frames(tag, ts, payload);
        List<String> actual = new ArrayList<>();
        long sum = 0;
        for (byte[] f : frames) {
            actual.add(new String(f, StandardCharsets.ISO_8859_1));
            sum += f.length;
        }
        assertThat(actual).containsExactly(expected);
        assertThat(FrplPayload.length(tag, ts, payload)).isEqualTo(sum);
    }

    private static byte[][] args(String... s) {
        byte[][] out = new byte[s.length][];
        for (int i = 0; i < s.length; i++) {
            out[i] = s[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return out;
    }
}
