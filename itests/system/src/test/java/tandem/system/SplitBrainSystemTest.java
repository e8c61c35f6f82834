package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import tandem.testsupport.Await;

/**
 * Spec 001's split brain with real processes, journal protocol, under {@code disk+ram}: a primary and a replica that
 * reaches it through a loopback proxy, with concurrent writers. The proxy is cut: the primary refuses writes with
 * {@code -CLUSTERDOWN} within the freshness window (scenario a), the replica is promoted, every acknowledged write is
 * on it; then the old primary is made a replica of the new one: its divergent writes are discarded by the resync and
 * are in {@code data/split_brain_discarded_<timestamp>.log} byte for byte, none of them acknowledged (scenario b).
 */
@Timeout(240)
class SplitBrainSystemTest {

    private static final long WINDOW_MS = 2000;

    private static JournalCluster cluster;
    private static ByteProxy proxy;
    private static TandemNode replica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("splitbrain", "disk+ram", "tandem.fencing:freshness.window.ms=" + WINDOW_MS,
                "tandem.replication:heartbeat.ms=500");
        proxy = new ByteProxy(cluster.replicationPort);
        replica = cluster.addReplica(true, proxy.port());
        JournalCluster.authorize(cluster.primary, replica); // the old primary will follow it
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(cluster, proxy);
    }

    @Test
    void anIsolatedPrimaryFencesItselfAndItsDivergentWritesAreAuditedWhenItRejoins() throws Exception {
        TandemNode primary = cluster.primary;
        List<Writer> writers = Writer.start("sb", 2, primary::port);
        writers.forEach(w -> w.awaitProgress(100));

        // (a) cut: the primary takes writes it cannot acknowledge (held, never answered), then fences
        proxy.partition();
        long cut = System.nanoTime();
        int[] probes = {0};
        Await.until("the isolated primary refuses writes with CLUSTERDOWN", Duration.ofSeconds(60),
                () -> SplitBrainAudits.probe(primary, "probe:" + probes[0]++));
        long fencedAfterMs = (System.nanoTime() - cut) / 1_000_000;
        System.getLogger("tandem.system").log(System.Logger.Level.INFO,
                "split brain: fenced {0} ms after the cut (window {1} ms, heartbeat 500 ms)", fencedAfterMs, WINDOW_MS);
        assertThat(JournalCluster.info(primary)).containsEntry("tandem_quorum_fence", "fenced");
        try (Jedis reads = new Jedis("127.0.0.1", primary.port())) {
            assertThat(reads.get("sb0:1")).as("reads go on").isEqualTo("1");
        }

        // promote the replica while the primary is cut off: it has every acknowledged write
        TandemNode.Result promoted = replica.shell("repl:promote --force");
        assertThat(promoted.exit()).as(promoted.out() + promoted.err()).isZero();
        try (Jedis onNew = new Jedis("127.0.0.1", replica.port())) {
            for (Writer w : writers) {
                for (long n = 1; n <= w.acked.get(); n++) {
                    assertThat(onNew.get(w.prefix + ":" + n)).as("acknowledged %s:%s", w.prefix, n)
                            .isEqualTo(Long.toString(n));
                }
            }
        }

        // what the old primary holds that the new one does not: the divergent writes
        Map<String, String> divergent = SplitBrainAudits.difference(primary, replica);
        assertThat(divergent).as("writes the isolated primary took").isNotEmpty();

        // (b) heal, and the old primary joins the new one: HashMismatch, snapshot, audit
        proxy.heal();
        JournalCluster.shell(primary, "repl:replicaof 127.0.0.1:" + JournalCluster.replicationPort(replica));
        Path data = primary.home().resolve("data");
        Await.until("the audit file is written", Duration.ofSeconds(60),
                () -> SplitBrainAudits.auditFile(data) != null);
        Writer.haltAll(writers, true); // their held writes were answered by a closed connection, outcome unknown
        JournalCluster.awaitSequenceOf(replica, primary);
        assertThat(primary.digest()).isEqualTo(replica.digest());

        byte[] audit = SplitBrainAudits.read(data);
        Map<String, String> header = SplitBrainAudits.header(audit);
        assertThat(header).containsEntry("epoch_old", "0").containsEntry("epoch_new", "1")
                .containsEntry("ops_evicted", "0");
        assertThat(header.get("old_primary")).endsWith(":" + primary.port());
        assertThat(header.get("new_primary")).contains(":" + JournalCluster.replicationPort(replica))
                .endsWith("(journal)");
        List<List<String>> ops = SplitBrainAudits.ops(audit);
        assertThat(ops).hasSize(Integer.parseInt(header.get("ops_discarded")));

        Map<String, Long> acked = new java.util.HashMap<>();
        writers.forEach(w -> acked.put(w.prefix, w.acked.get()));
        SplitBrainAudits.assertAudited(ops, divergent, acked);
        Map<String, String> info = JournalCluster.info(primary);
        assertThat(info).containsEntry("tandem_split_brain_events", "1")
                .containsEntry("tandem_split_brain_ops_discarded", header.get("ops_recorded"));
        assertThat(primary.shell("fence:status").out()).contains("split brain:      1 discarded histories recorded");
    }
}
