package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import tandem.testsupport.Await;

/**
 * Every hot bundle swapped under writes, three ways: {@code update}, {@code stop} and {@code start}, and its feature
 * uninstalled and installed again. The cluster: a primary under {@code disk+ram} with a journal-protocol replica and
 * a psync replica, so that either protocol keeps acknowledging while the other is swapped. For each bundle: no
 * writer's connection drops (every write is answered {@code OK}), every acknowledged write is on both replicas, and
 * the replicas resume from their position: the primary sends no snapshot and no full sync. One cluster for the class;
 * the longest write of each swap is logged (the pause; {@code itests/benchmarks/run-swap-pause.sh} measures it).
 */
@Timeout(600)
class HotSwapSystemTest {

    private static final System.Logger LOG = System.getLogger("tandem.system");
    private static JournalCluster cluster;
    private static TandemNode journalReplica;
    private static TandemNode psyncReplica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("swap", "disk+ram");
        journalReplica = cluster.addReplica(true);
        psyncReplica = TandemNode.start(TandemNode.newHome("swap-psync"), TandemNode.freePort(), Map.of(),
                "--replication-port", Integer.toString(TandemNode.freePort()), "--config",
                "tandem.psync:reconnect.max.ms=300");
        TandemNode.Result r = psyncReplica.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(cluster.primary.port()));
        assertThat(r.out().trim()).as(r.err()).isEqualTo("OK");
        awaitBothStreaming();
    }

    @AfterAll
    static void stop() {
        if (psyncReplica != null) {
            psyncReplica.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static Stream<Arguments> swaps() {
        return Stream.of(
                Arguments.of("transport-tcp", List.of("Tandem TCP transport")),
                Arguments.of("replication-journal", List.of("Tandem journal replication", "Tandem replication auth")),
                Arguments.of("replication-psync", List.of("Tandem psync replication", "Tandem FRPL stream")),
                Arguments.of("checkpoint", List.of("Tandem checkpoints")),
                Arguments.of("fencing", List.of("Tandem quorum fence")),
                Arguments.of("shell", List.of("Tandem shell")),
                Arguments.of("health", List.of("Tandem health")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("swaps")
    void swappedUnderWritesDropsNoClientLosesNothingAndTheReplicasResume(String feature, List<String> bundles)
            throws Exception {
        TandemNode primary = cluster.primary;
        int snapshots = count(primary.log(), "sending a snapshot at sequence");
        int fullSyncs = count(primary.log(), "full sync sent");
        List<Writer> writers = Writer.start(feature.replace("-", ""), 2, primary::port);
        writers.forEach(w -> w.awaitProgress(50));
        for (String bundle : bundles) {
            gogo(feature, "update " + primary.bundleId(bundle));
            awaitBothStreaming();
            writers.forEach(w -> w.awaitProgress(50));
            long id = primary.bundleId(bundle);
            // one command line: the shell bundle stopped by its own session still starts itself again
            gogo(feature, "stop " + id + "; start " + id);
            awaitBothStreaming();
            writers.forEach(w -> w.awaitProgress(50));
        }
        gogo(feature, "feature:uninstall " + feature + "; feature:install " + feature);
        awaitBothStreaming();
        writers.forEach(w -> w.awaitProgress(50));
        Writer.haltAll(writers, false); // every write answered OK on the connection it started on
        if (feature.equals("health")) {
            Await.until("the health endpoint answers again", Duration.ofSeconds(30), () -> {
                try {
                    TandemNode.HttpReply ready = primary.http("/ready");
                    return ready.status() == 200 && ready.body().equals("ready\n");
                } catch (IOException e) {
                    return false; // Jetty restarting
                }
            });
        }

        cluster.awaitConverged(journalReplica);
        Await.until("the psync replica at the primary's digest", Duration.ofSeconds(60), () -> {
            try {
                return JournalCluster.digest(psyncReplica).equals(JournalCluster.digest(primary));
            } catch (IOException e) {
                return false;
            }
        });
        for (Writer w : writers) {
            w.assertAcknowledgedOn(journalReplica);
            w.assertAcknowledgedOn(psyncReplica);
            LOG.log(System.Logger.Level.INFO, "swap {0}: writer {1} slowest write {2} ms", feature, w.prefix,
                    w.slowestNanos.get() / 1_000_000);
        }
        assertThat(count(primary.log(), "sending a snapshot at sequence")).as("no snapshot: resumed from position")
                .isEqualTo(snapshots);
        assertThat(count(primary.log(), "full sync sent")).as("no full sync: +CONTINUE").isEqualTo(fullSyncs);
    }

    /** Runs a command line on the primary; a swap of the shell itself closes the channel it came on. */
    private static void gogo(String feature, String commandLine) throws IOException {
        TandemNode.Result r = cluster.primary.shell(commandLine);
        if (feature.equals("shell") && r.exit() == 2) {
            assertThat(r.err()).contains("the node closed the admin channel");
            Await.until("the admin channel is back", Duration.ofSeconds(30), () -> {
                try {
                    return cluster.primary.shell("lb").exit() == 0;
                } catch (IOException e) {
                    return false;
                }
            });
            return;
        }
        assertThat(r.exit()).as("%s: %s %s", commandLine, r.out(), r.err()).isZero();
    }

    private static void awaitBothStreaming() {
        JournalCluster.awaitStreaming(journalReplica);
        JournalCluster.awaitStreaming(psyncReplica);
    }

    private static int count(String log, String text) {
        return log.split(Pattern.quote(text), -1).length - 1;
    }
}
