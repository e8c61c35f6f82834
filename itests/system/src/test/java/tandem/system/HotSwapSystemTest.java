package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import tandem.testsupport.Await;

/**
 * Every Tandem bundle that keeps client connections, swapped under writes on the primary: {@code update}, then
 * {@code stop} and {@code start}, then its feature uninstalled and installed again where it has a feature of its
 * own. The cluster: a primary under {@code disk+ram} with a journal-protocol replica and a psync replica, so that
 * either protocol keeps acknowledging while the other is swapped. For each bundle: no writer's connection drops (every
 * write is answered {@code OK} on the connection it started on), both replicas reach the primary's
 * {@code store:digest} and hold every acknowledged write, and they resume from their position: the primary sends no
 * snapshot and no full sync. One cluster for the class; the longest write of each swap is logged (the pause;
 * {@code itests/benchmarks/run-swap-pause.sh} measures it).
 *
 * <p>These bundles keep client connections because the RESP server, which owns them, does not depend on them
 * statically: the node core holds the journal and the store dynamically and pauses commands while either restarts
 * (bounded by {@code tandem.node:pause.max.ms}); the replication protocols, their transports, auth, checkpoints,
 * fencing (writes wait while it is away: it fails closed), shell, health and {@code feature:*} serve beside it. The
 * RESP server itself, the node core, and the API and codecs whose refresh restarts both cannot:
 * {@link RestartSwapSystemTest} swaps those. The DPDK transport and its runtime are swapped where DPDK is built (in
 * CI always), with the journal replica's link on DPDK.
 */
@Timeout(900)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HotSwapSystemTest {

    private static final System.Logger LOG = System.getLogger("tandem.system");
    @RegisterExtension
    static final PerClass<SwapCluster> CLUSTER = new PerClass<>(() -> SwapCluster.start("swap"));

    /**
     * The bundles by Bundle-Name, and the feature that holds them alone (null: they belong to a required feature,
     * {@code core} or {@code store}, or ship in {@code bundle/} with the runtime, as {@code feature:*} does).
     */
    static Stream<Arguments> swaps() {
        return Stream.of(
                Arguments.of("transport-tcp", List.of("Tandem TCP transport")),
                Arguments.of("replication-journal", List.of("Tandem journal replication", "Tandem replication auth")),
                Arguments.of("replication-psync", List.of("Tandem psync replication", "Tandem FRPL stream")),
                Arguments.of("checkpoint", List.of("Tandem checkpoints")),
                Arguments.of("fencing", List.of("Tandem quorum fence")),
                Arguments.of("shell", List.of("Tandem shell")),
                Arguments.of("health", List.of("Tandem health")),
                Arguments.of(null, List.of("Tandem features")),
                Arguments.of(null, List.of("Tandem journal")),
                Arguments.of(null, List.of("Tandem store")));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("swaps")
    @Order(1)
    void swappedUnderWritesDropsNoClientLosesNothingAndTheReplicasResume(String feature, List<String> bundles)
            throws Exception {
        TandemNode primary = CLUSTER.get().primary;
        List<String> lines = new ArrayList<>();
        for (String bundle : bundles) {
            long id = primary.bundleId(bundle);
            lines.add("update " + id);
            lines.add("stop " + id + "; start " + id); // one line: the shell stopped by its own session starts again
        }
        if (feature != null) {
            lines.add("feature:uninstall " + feature + "; feature:install " + feature);
        }
        swapUnderWrites(feature == null ? bundles.get(0) : feature, lines, () -> { });
        if ("health".equals(feature)) {
            Await.until("the health endpoint answers again", Duration.ofSeconds(30), () -> {
                try {
                    TandemNode.HttpReply ready = primary.http("/ready");
                    return ready.status() == 200 && ready.body().equals("ready\n");
                } catch (IOException e) {
                    return false; // Jetty restarting
                }
            });
        }
    }

    /**
     * The DPDK transport and its runtime, with the primary listening on TCP and DPDK and the journal replica
     * connected through DPDK: the transport updated, stopped and started, its feature uninstalled and installed; the
     * runtime (which holds EAL, once per process) updated, stopped and started, and refreshed, which restarts the
     * transport on the new revision while EAL stays up. Each time the replica's link comes back on DPDK. Last, the
     * feature is uninstalled from both, which moves the link back to TCP.
     */
    @Test
    @Order(2)
    void theDpdkTransportAndItsRuntimeSwappedUnderWritesWithTheJournalReplicaOnDpdk() throws Exception {
        Prerequisites.requireDpdk();
        SwapCluster cluster = CLUSTER.get();
        TandemNode primary = cluster.primary;
        JournalCluster.shell(primary, "feature:install transport-dpdk");
        awaitTransport(primary, "listening on tcp, dpdk");
        JournalCluster.shell(cluster.journalReplica, "feature:install transport-dpdk");
        awaitTransport(cluster.journalReplica, "connects through dpdk");
        JournalCluster.awaitStreaming(cluster.journalReplica);

        long transport = primary.bundleId("Tandem DPDK transport");
        long runtime = primary.bundleId("Tandem DPDK runtime");
        List<String> lines = List.of("update " + transport, "stop " + transport + "; start " + transport,
                "feature:uninstall transport-dpdk; feature:install transport-dpdk",
                "update " + runtime, "stop " + runtime + "; start " + runtime, "refresh " + runtime);
        swapUnderWrites("transport-dpdk", lines, () -> {
            awaitTransport(primary, "listening on tcp, dpdk");
            awaitTransport(cluster.journalReplica, "connects through dpdk");
        });
        assertThat(primary.log()).doesNotContain("EAL init failed");

        JournalCluster.shell(cluster.journalReplica, "feature:uninstall transport-dpdk");
        awaitTransport(cluster.journalReplica, "connects through tcp");
        JournalCluster.shell(primary, "feature:uninstall transport-dpdk");
        awaitTransport(primary, "listening on tcp; dpdk not installed");
        cluster.awaitBothStreaming();
    }

    /** Logs what the primary says of itself when a writer stalls after {@code line}: status and threads. */
    private static void diagnose(TandemNode primary, String line) {
        StringBuilder sb = new StringBuilder("a writer stalled after '" + line + "'; the primary says:\n");
        for (String command : List.of("server:status", "repl:status", "server:clients")) {
            try {
                sb.append("$ ").append(command).append('\n').append(primary.shell(command).out()).append('\n');
            } catch (IOException | RuntimeException e) {
                sb.append(command).append(" failed: ").append(e).append('\n');
            }
        }
        try (redis.clients.jedis.Jedis jedis = new redis.clients.jedis.Jedis("127.0.0.1", primary.port(), 5000,
                5000)) {
            sb.append(jedis.info("replication")).append('\n').append(jedis.clientList()).append('\n');
        } catch (RuntimeException e) {
            sb.append("INFO failed: ").append(e).append('\n');
        }
        try {
            sb.append(TandemNode.run(Duration.ofSeconds(30), "jcmd", Long.toString(primary.process().pid()),
                    "Thread.print").out());
        } catch (IOException e) {
            sb.append("jcmd failed: ").append(e).append('\n');
        }
        LOG.log(System.Logger.Level.ERROR, sb.toString());
    }

    /**
     * Runs each command line on the primary under writes; after each, both replicas stream again (and
     * {@code settled} holds) and the writers go on.
     */
    private static void swapUnderWrites(String name, List<String> lines, Runnable settled) throws Exception {
        SwapCluster cluster = CLUSTER.get();
        TandemNode primary = cluster.primary;
        SwapCluster.Resyncs resyncs = cluster.resyncs();
        List<Writer> writers = Writer.start(name.replaceAll("[^a-zA-Z]", ""), 2, primary::port);
        writers.forEach(w -> w.awaitProgress(50));
        for (String line : lines) {
            TandemNode.Result r = primary.shell(line);
            // the shell's own update, stop or refresh is answered too, before its channel closes
            assertThat(r.exit()).as("%s: %s %s", line, r.out(), r.err()).isZero();
            cluster.awaitBothStreaming();
            settled.run();
            try {
                writers.forEach(w -> w.awaitProgress(50));
            } catch (AssertionError stalled) {
                diagnose(primary, line);
                throw stalled;
            }
        }
        Writer.haltAll(writers, false); // every write answered OK on the connection it started on

        cluster.awaitReplicasAtPrimaryDigest();
        for (Writer w : writers) {
            cluster.assertAcknowledgedEverywhere(w);
            LOG.log(System.Logger.Level.INFO, "swap {0}: writer {1} slowest write {2} ms", name, w.prefix,
                    w.slowestNanos.get() / 1_000_000);
        }
        cluster.assertResumedSince(resyncs);
    }

    private static void awaitTransport(TandemNode node, String expected) {
        Await.until(node.port() + "'s transport: " + expected, Duration.ofSeconds(60), () -> {
            try {
                TandemNode.Result r = node.shell("repl:status");
                return r.exit() == 0 && r.out().contains("transport:") && r.out().contains(expected);
            } catch (IOException e) {
                return false;
            }
        });
    }
}
