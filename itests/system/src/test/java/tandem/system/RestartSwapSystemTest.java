package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import tandem.testsupport.Await;

/**
 * The Tandem bundles whose swap cannot keep client connections, swapped under writes on the primary of a
 * {@code disk+ram} primary with a journal-protocol replica and a psync replica:
 *
 * <ul>
 * <li>{@code tandem.server}, updated, stopped and started: it owns the client connections, and they end with it.
 * <li>{@code tandem.node}, updated, stopped and started: it holds each connection's session (its transaction,
 * {@code WATCH}, a blocked command, its replies in flight), so the RESP server, which references it statically,
 * restarts with it; the replication protocols, which stand on its hub, reconnect their replicas.
 * <li>{@code tandem.protocol}, updated and refreshed: its packages are imported by almost every bundle, so its new
 * revision takes effect only through a refresh, which restarts them all, the server and the node core among them.
 * <li>{@code tandem.api}, updated and refreshed, for the same reason: every Tandem bundle imports it.
 * </ul>
 *
 * <p>Each swap restarts the RESP server (its {@code run_id} changes): every writer's connection drops, and the
 * writers connect again and go on. What the test shows: the pause is bounded (the longest wait of a write, from the
 * write whose reply the closed connection lost to the next one answered, under {@link #PAUSE_BOUND}); nothing
 * acknowledged is lost (each writer's keys, and its {@code INCR} counter between the acknowledged and the sent
 * increments, on both replicas); both replicas reach the primary's {@code store:digest} and resume from their
 * position (no snapshot, no full sync). One cluster for the class. {@link HotSwapSystemTest} swaps the bundles that
 * keep client connections.
 */
@Timeout(600)
class RestartSwapSystemTest {

    /**
     * The longest a write may wait across a swap, reconnection included: the node core's default
     * {@code pause.max.ms}, the longest it lets a command wait for a part that restarts before refusing it.
     */
    static final Duration PAUSE_BOUND = Duration.ofSeconds(10);

    private static final System.Logger LOG = System.getLogger("tandem.system");
    @RegisterExtension
    static final PerClass<SwapCluster> CLUSTER = new PerClass<>(() -> SwapCluster.start("restart-swap"));

    /** A bundle by Bundle-Name, and the command lines that swap it ({@code ID}: its bundle id). */
    static Stream<Arguments> swaps() {
        List<String> restart = List.of("update ID", "stop ID; start ID");
        List<String> refresh = List.of("update ID; refresh ID");
        return Stream.of(
                Arguments.of("Tandem RESP server", restart),
                Arguments.of("Tandem node core", restart),
                Arguments.of("Tandem protocol codecs", refresh),
                Arguments.of("Tandem API", refresh));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("swaps")
    void swappedUnderWritesClientsReconnectNothingAcknowledgedIsLostAndTheReplicasResume(String bundle,
            List<String> lines) throws Exception {
        SwapCluster cluster = CLUSTER.get();
        TandemNode primary = cluster.primary;
        SwapCluster.Resyncs resyncs = cluster.resyncs();
        List<Writer> writers = Writer.startReconnecting(bundle.replaceAll("[^a-zA-Z]", ""), 2, primary::port);
        writers.forEach(w -> w.awaitProgress(50));
        long id = primary.bundleId(bundle);
        for (String line : lines) {
            String runId = runId(primary);
            long[] drops = writers.stream().mapToLong(w -> w.drops.get()).toArray();
            TandemNode.Result r = primary.shell(line.replace("ID", Long.toString(id)));
            assertThat(r.exit()).as("%s: %s %s", line, r.out(), r.err()).isZero();
            // a refresh runs on the framework's thread after the command returned: the new server says it is done
            Await.until("the RESP server restarted", Duration.ofSeconds(60),
                    () -> !runId(primary).isEmpty() && !runId(primary).equals(runId));
            cluster.awaitBothStreaming();
            writers.forEach(w -> w.awaitProgress(50));
            for (int i = 0; i < writers.size(); i++) {
                assertThat(writers.get(i).drops.get()).as("%s: %s's connection ended with the RESP server", line,
                        writers.get(i).prefix).isGreaterThan(drops[i]);
            }
        }
        Writer.haltAll(writers, false); // no error reply, no connection that could not be made again

        cluster.awaitReplicasAtPrimaryDigest();
        for (Writer w : writers) {
            cluster.assertAcknowledgedEverywhere(w);
            LOG.log(System.Logger.Level.INFO, "swap {0}: writer {1} paused at most {2} ms over {3} reconnections",
                    bundle, w.prefix, w.slowestNanos.get() / 1_000_000, w.drops.get());
            assertThat(Duration.ofNanos(w.slowestNanos.get())).as("%s: the pause of writer %s", bundle, w.prefix)
                    .isLessThan(PAUSE_BOUND);
        }
        cluster.assertResumedSince(resyncs);
    }

    /** The RESP server's run_id (new at each activation), or "" while it does not answer. */
    private static String runId(TandemNode node) {
        return node.info("server").getOrDefault("run_id", "");
    }
}
