package tandem.protocol.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;

/** What the finder lists: the entries around a moment, the entries holding a command, each described. */
@Timeout(10)
class EntryFinderTest {

    /** 2026-12-05T10:03:00Z in nanoseconds. */
    private static final long T = Instant.parse("2026-12-05T10:03:00Z").getEpochSecond() * 1_000_000_000L;

    private static byte[][] args(String... a) {
        byte[][] b = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return b;
    }

    /** Ten SETs a second apart, a FLUSHALL at T + 0.5 s, a tick, a transaction in database 3 and a publish. */
    private static void feed(EntryFinder f) {
        long seq = 0;
        for (int i = 0; i < 10; i++) {
            if (!f.entry(++seq, T - 5_000_000_000L + i * 1_000_000_000L, 0, EntryTag.APP,
                    CommandPayload.encode(args("set", "k" + i, "v" + i)))) {
                return;
            }
        }
        if (!f.entry(++seq, T + 500_000_000L, 0, EntryTag.APP, CommandPayload.encode(args("FLUSHALL")))) {
            return;
        }
        if (!f.entry(++seq, T + 600_000_000L, 0, EntryTag.TICK, new byte[8])) {
            return;
        }
        if (!f.entry(++seq, T + 700_000_000L, 0, EntryTag.APP, CommandPayload.encodeTransaction(
                List.of(args("incr", "n"), args("flushall")), new int[] {3, 3}))) {
            return;
        }
        f.entry(++seq, T + 800_000_000L, 0, EntryTag.PUBLISH, CommandPayload.encode(args("PUBLISH", "ch", "hi")));
    }

    @Test
    void aroundAMomentListsTheEntriesBeforeAndAfterIt() {
        EntryFinder f = EntryFinder.around(Instant.parse("2026-12-05T10:03:00Z"), 2);
        feed(f);
        assertThat(f.lines()).containsExactly(
                "5  2026-12-05T10:02:59Z  SET k4 v4",
                "6  2026-12-05T10:03:00Z  SET k5 v5",
                "7  2026-12-05T10:03:01Z  SET k6 v6",
                "8  2026-12-05T10:03:02Z  SET k7 v7");
        assertThat(f.scanned()).isEqualTo(8);
    }

    @Test
    void matchingACommandFindsItAloneAndInsideATransaction() {
        EntryFinder f = EntryFinder.matching("flushall", 10);
        feed(f);
        assertThat(f.lines()).containsExactly(
                "11  2026-12-05T10:03:00.500Z  FLUSHALL",
                "13  2026-12-05T10:03:00.700Z  MULTI [db 3] INCR n ; [db 3] FLUSHALL EXEC");
        assertThat(EntryFinder.matching("flushall", 1)).satisfies(g -> {
            feed(g);
            assertThat(g.found()).hasSize(1);
            assertThat(g.scanned()).isEqualTo(11);
        });
    }

    @Test
    void entriesThatAreNoCommandsAreNamedAndArgumentsArePrintable() {
        EntryFinder f = EntryFinder.around(Instant.parse("2026-12-05T10:03:10Z"), 3);
        feed(f);
        assertThat(f.lines()).containsExactly(
                "12  2026-12-05T10:03:00.600Z  tick (active expiry)",
                "13  2026-12-05T10:03:00.700Z  MULTI [db 3] INCR n ; [db 3] FLUSHALL EXEC",
                "14  2026-12-05T10:03:00.800Z  publish: PUBLISH ch hi");
        assertThat(EntryFinder.printable(new byte[] {'a', ' ', 0, (byte) 0xff, '"'})).isEqualTo("\"a \\x00\\xff\\\"\"");
        assertThat(EntryFinder.printable(new byte[0])).isEqualTo("\"\"");
        assertThat(EntryFinder.printable("x".repeat(100).getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("x".repeat(60) + "…(100 bytes)");
        assertThat(EntryFinder.matching("del", 5).lines()).containsExactly("no entry holds DEL (0 entries read)");
    }
}
