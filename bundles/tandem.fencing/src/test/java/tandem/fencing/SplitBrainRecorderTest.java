package tandem.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.fencing.SplitBrainAudit;

/** The audit file, byte for byte, and what the recorder counts and refuses. */
@Timeout(10)
class SplitBrainRecorderTest {

    @TempDir
    Path dir;

    private SplitBrainRecorder recorder(Map<String, Object> props) {
        return new SplitBrainRecorder(() -> dir, Converters.standardConverter().convert(props).to(FencingConfig.class));
    }

    private static byte[][] args(String... a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static final SplitBrainAudit.Discard DISCARD = new SplitBrainAudit.Discard("journal", "127.0.0.1:7001",
            "127.0.0.1:7102", 0, 1, 41, 44, List.of(
                    new SplitBrainAudit.Write(42, 1L, false, List.<byte[][]>of(args("SET", "k", "v"))),
                    new SplitBrainAudit.Write(44, 2L, true, List.<byte[][]>of(args("INCR", "n")))),
            1, 9);

    @Test
    void theFileIsTheHeaderThenEachWritesRespOldestFirstATransactionInMultiExec() {
        SplitBrainRecorder.Rendered r = SplitBrainRecorder.render(DISCARD, Instant.parse("2026-12-03T17:15:30Z"));
        String golden = "# Tandem split-brain audit: writes this node took as a primary that no replica held, given up "
                + "when\n# it resynced to a new primary. Each write follows the separator as raw RESP, oldest first.\n"
                + "old_primary: 127.0.0.1:7001\nnew_primary: 127.0.0.1:7102 (journal)\nepoch_old: 0\nepoch_new: 1\n"
                + "divergent_sequences: 42..44\nheld_by_replicas: 41\nops_discarded: 3\nops_recorded: 2\n"
                + "ops_evicted: 1\nbytes_evicted: 9\ndiscarded_at: 2026-12-03T17:15:30Z\n---\n";
        String resp = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
                + "*1\r\n$4\r\nEXEC\r\n";
        assertThat(new String(r.content(), StandardCharsets.UTF_8)).isEqualTo(golden + resp);
        assertThat(r.respStart()).isEqualTo(golden.length());
    }

    @Test
    void aDiscardIsWrittenWholeAndCountedAndAnEmptyOneWritesNothing() throws IOException {
        SplitBrainRecorder rec = recorder(Map.of("split.brain.audit.directory", dir.toString()));
        rec.discarded(new SplitBrainAudit.Discard("psync", "a", "b", 0, 1, 5, 5, List.of(), 0, 0));
        assertThat(rec.counters().events()).isZero();
        rec.discarded(DISCARD);
        SplitBrainAudit.Counters c = rec.counters();
        assertThat(c.events()).isEqualTo(1);
        assertThat(c.ops()).isEqualTo(2);
        assertThat(c.evicted()).isEqualTo(1);
        assertThat(c.bytes()).isEqualTo(77);
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.toList();
            assertThat(all).hasSize(1).allMatch(f -> f.getFileName().toString().matches(
                    "split_brain_discarded_\\d{8}T\\d{6}\\.\\d{3}Z\\.log"));
            assertThat(c.lastFile()).isEqualTo(all.get(0).toString());
        }
    }

    @Test
    void boundsOutsideTheirRangeAreRefusedNamingTheProperty() {
        SplitBrainRecorder rec = recorder(Map.of());
        assertThat(rec.maxEntries()).isEqualTo(10_000);
        assertThat(rec.maxBytes()).isEqualTo(64L << 20);
        rec.modified(Converters.standardConverter().convert(Map.of("split.brain.ring.max.entries", 0))
                .to(FencingConfig.class));
        assertThat(rec.maxEntries()).as("refused, the running value stays").isEqualTo(10_000);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> recorder(Map.of("split.brain.ring.max.bytes", 10L)))
                .hasMessageContaining("split.brain.ring.max.bytes=10");
    }
}
