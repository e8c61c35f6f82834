package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.journal.Fixtures.command;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.journal.tool.JournalToolAccess;

/**
 * The offline inspector finds the entries to restore to, across archived segments and the live one, a command split
 * into fragments joined: those around a moment, those holding a command.
 */
@Timeout(30)
class JournalToolFindTest {

    /** 2026-12-05T10:03:00Z in nanoseconds. */
    private static final long T = Instant.parse("2026-12-05T10:03:00Z").getEpochSecond() * 1_000_000_000L;

    @TempDir
    Path dir;

    private String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String[] all = new String[args.length + 1];
        all[0] = dir.toString();
        System.arraycopy(args, 0, all, 1, args.length);
        int status = JournalToolAccess.run(all, new PrintStream(out, true, StandardCharsets.UTF_8));
        return status + "\n" + out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void findsTheEntriesAroundAMomentAndThoseHoldingACommand() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            long seq = 0;
            for (int i = 0; i < 6; i++) {
                seq = Fixtures.append(j, T - 3_000_000_000L + i * 1_000_000_000L, 0, Fixtures.APP,
                        command("SET", "k" + i, "v" + i));
            }
            j.awaitDurable(seq);
            j.rotate();
            byte[] big = Fixtures.bigCommand(200_000, (byte) 'x');
            assertThat(Fixtures.isFragmenting(big)).isTrue();
            Fixtures.append(j, T + 3_500_000_000L, 0, Fixtures.APP, big);
            seq = Fixtures.append(j, T + 4_000_000_000L, 0, Fixtures.APP, command("FLUSHALL"));
            j.awaitDurable(seq);
        }
        assertThat(run("--around", "2026-12-05T10:03:00Z", "--count", "2")).isEqualTo("0\n"
                + "3  2026-12-05T10:02:59Z  SET k2 v2\n"
                + "4  2026-12-05T10:03:00Z  SET k3 v3\n"
                + "5  2026-12-05T10:03:01Z  SET k4 v4\n"
                + "6  2026-12-05T10:03:02Z  SET k5 v5\n");
        String fragments = run("--matching", "set", "--count", "100");
        assertThat(fragments).startsWith("0\n1  2026-12-05T10:02:57Z  SET k0 v0\n")
                .contains("  2026-12-05T10:03:03.500Z  SET big " + "x".repeat(60) + "…(200000 bytes)\n");
        assertThat(fragments.lines()).hasSize(8);
        String flushall = run("--matching", "FLUSHALL");
        assertThat(flushall).startsWith("0\n").endsWith("  2026-12-05T10:03:04Z  FLUSHALL\n");
        // eight entries: six SETs, the big one (its fragments under its last sequence), FLUSHALL
        assertThat(run("--matching", "del")).isEqualTo("0\nno entry holds DEL (8 entries read)\n");
        assertThat(run("--around", "yesterday")).startsWith("2\nbad value for --around: yesterday");
        assertThat(run("--around", "2026-12-05T10:03:00Z", "--matching", "SET")).startsWith("2\nusage:");
        assertThat(run("--count")).startsWith("2\nusage:");
    }
}
