package tandem.system.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The CI slice of the differential fuzzer: a fixed list of seeds, {@value #COMMANDS_PER_SEED} commands each (two of
 * them over RESP3), replayed
 * against a real Redis 7 and a Tandem primary that has a journal-protocol replica and a psync replica attached;
 * every reply is compared byte for byte (under the documented normalisations of {@link Rule}). It fails on a reply
 * that differs, a hang, a dropped connection, a dead node, an unexpected failure or fail-stop in a node's log, a
 * stopped apply, or replicas whose {@code store:digest} is not the primary's once they caught up. The report is
 * written to {@code target/fuzz/report.md}; {@code -Dfuzz.tolerate=all} (or a list of {@link KnownFindings} ids)
 * reports known findings without failing on them. {@code itests/system/fuzz.sh} runs the same fuzzer for longer with
 * fresh seeds.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FuzzSystemTest {

    /** Seeds 1 to 5; {@code -Dfuzz.seeds=11,12,…} runs others for a local look (RESP3 for those in RESP3_SEEDS). */
    static final long[] SEEDS = java.util.Arrays.stream(System.getProperty("fuzz.seeds", "1,2,3,4,5").split(","))
            .mapToLong(s -> Long.parseLong(s.trim())).toArray();
    /** The seeds whose connections speak RESP3 (HELLO 3 first); the others RESP2. */
    static final java.util.Set<Long> RESP3_SEEDS = java.util.Set.of(4L, 5L);
    /** 10,000 commands per seed; {@code -Dfuzz.commandsPerSeed=N} changes it for a quicker local look. */
    static final long COMMANDS_PER_SEED = Long.getLong("fuzz.commandsPerSeed", 10_000);
    /** A bound on the slice whatever happens (it takes about a minute on two cores). */
    static final long BUDGET_NANOS = 6L * 60 * 1_000_000_000;

    private static FuzzCluster cluster;
    private static Fuzzer fuzzer;
    private static final Report report = new Report();
    private static boolean passed;

    @BeforeAll
    static void start() throws IOException {
        cluster = FuzzCluster.start("fuzz");
        cluster.attachReplicas("fuzz");
        fuzzer = new Fuzzer(cluster.redisPort(), cluster, Fuzzer.Options.ci(), report);
        fuzzer.init();
        fuzzer.dumpTo(Path.of(System.getProperty("tandem.test.dir", "target/nodes")).resolveSibling("fuzz"));
    }

    @AfterAll
    static void stop() {
        if (fuzzer != null) {
            fuzzer.close();
        }
        if (cluster != null) {
            cluster.close();
            if (passed) {
                cluster.deleteHomes(); // journals of 60,000 commands, three times; kept when the test failed
            }
        }
    }

    @Test
    @Order(1)
    void everyNormalisationNamesARowOfTheDepartures() throws IOException {
        String departures = Files.readString(docs().resolve("departures.md"));
        for (Rule rule : Rule.values()) {
            if (rule.departure != null) {
                assertThat(departures).as("docs/departures.md has the row of %s", rule)
                        .contains("| " + rule.departure + " |");
            }
        }
    }

    @Test
    @Order(2)
    void theSeedsAnswerAsRedisDoesAndTheReplicasConverge() throws IOException {
        long started = System.nanoTime();
        long deadline = started + BUDGET_NANOS;
        for (long seed : SEEDS) {
            if (fuzzer.fatal()) {
                break;
            }
            fuzzer.run(seed, COMMANDS_PER_SEED, deadline, RESP3_SEEDS.contains(seed) ? 3 : 2);
        }
        fuzzer.finish();
        report.duration = java.time.Duration.ofNanos(System.nanoTime() - started);
        Path out = Path.of(System.getProperty("tandem.test.dir", "target/nodes")).resolveSibling("fuzz");
        Files.createDirectories(out);
        Files.writeString(out.resolve("report.md"), "# FuzzSystemTest\n\n" + report.summary() + "\nnodes:\n"
                + cluster.homes());
        System.out.println(report.summary());

        Set<String> tolerated = Set.of(System.getProperty("fuzz.tolerate", "").split(","));
        List<String> failing = new ArrayList<>();
        for (Report.Group g : report.failing(tolerated)) {
            failing.add(g.first.describe() + "\n  occurrences: " + g.count);
        }
        assertThat(failing).as("findings (the report is in %s)", out.resolve("report.md")).isEmpty();
        assertThat(report.stoppedEarly).as(report.stopReason).isFalse();
        assertThat(report.convergence).startsWith("equal");
        assertThat(report.commands).as("commands compared").isGreaterThanOrEqualTo(SEEDS.length * COMMANDS_PER_SEED
                - 100);
        passed = true;
    }

    /** The repository's docs directory (surefire runs in the module's directory). */
    static Path docs() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("../../docs").normalize();
    }
}
