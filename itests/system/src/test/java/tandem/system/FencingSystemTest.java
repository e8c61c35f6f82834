package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import tandem.testsupport.Await;

/**
 * The quorum fence with real processes: a primary and a journal-protocol replica that connects through a loopback
 * proxy. Cutting the proxy (a partition: the connection stays, nothing passes) makes the primary refuse writes with
 * {@code -CLUSTERDOWN} within the freshness window, reads go on, and healing it lets writes through again; updating
 * {@code tandem.fencing} under writes drops no client. One cluster for the class; tests run in order.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FencingSystemTest {

    private static final String CLUSTERDOWN = "CLUSTERDOWN quorum lost, writes rejected";

    private static JournalCluster cluster;
    private static ByteProxy proxy;
    private static TandemNode replica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("fencing", "disk", "tandem.fencing:freshness.window.ms=3000",
                "tandem.replication:heartbeat.ms=500");
        proxy = new ByteProxy(cluster.replicationPort);
        replica = cluster.addReplica(true, proxy.port());
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(cluster, proxy);
    }

    /** @return the reply to a SET, the error's text when refused */
    private static String set(Jedis jedis, String key, String value) {
        try {
            return jedis.set(key, value);
        } catch (JedisDataException e) {
            return e.getMessage();
        }
    }

    @Test
    @Order(1)
    void aPrimaryCutOffFromItsReplicaRefusesWritesUntilItHearsFromItAgainAndReadsGoOn() throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", cluster.primary.port())) {
            assertThat(set(jedis, "before", "1")).isEqualTo("OK");
            assertThat(cluster.primary.shell("fence:status").out()).contains("armed:            yes")
                    .contains("fenced:           no");
            proxy.partition();
            Await.until("the primary refuses writes", Duration.ofSeconds(30),
                    () -> set(jedis, "during", "x").equals(CLUSTERDOWN));
            assertThat(jedis.get("before")).as("reads go on").isEqualTo("1");
            TandemNode.Result status = cluster.primary.shell("fence:status");
            assertThat(status.out()).contains("fenced:           yes");
            assertThat(JournalCluster.info(cluster.primary)).containsEntry("tandem_quorum_fence", "fenced");
            assertThat(Long.parseLong(JournalCluster.info(cluster.primary).get("tandem_quorum_fence_fenced_at_ms")))
                    .as("since when").isPositive();
            proxy.heal();
            Await.until("writes are taken again", Duration.ofSeconds(30),
                    () -> set(jedis, "after", "2").equals("OK"));
            assertThat(JournalCluster.info(cluster.primary)).containsEntry("tandem_quorum_fence", "armed")
                    .containsEntry("tandem_quorum_fence_fenced_at_ms", "0");
            assertThat(Long.parseLong(JournalCluster.info(cluster.primary).get("tandem_quorum_fence_refused")))
                    .isPositive();
        }
        cluster.awaitConverged(replica);
    }

    @Test
    @Order(2)
    void updatingTandemFencingUnderWritesDropsNoClient() throws Exception {
        List<Writer> writers = Writer.start("fence", 2, cluster.primary::port);
        writers.forEach(w -> w.awaitProgress(50));
        TandemNode.Result updated = cluster.primary.shell("update "
                + cluster.primary.bundleId("Tandem quorum fence"));
        assertThat(updated.exit()).as(updated.err()).isZero();
        writers.forEach(w -> w.awaitProgress(50));
        Writer.haltAll(writers, false); // their connections never dropped, no write was refused
        assertThat(cluster.primary.log()).contains("quorum fence armed");
        cluster.awaitConverged(replica);
    }

    @Test
    @Order(3)
    void configSetTurnsTheRunningFenceOffAndOnAndConfigGetReadsIt() throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", cluster.primary.port())) {
            assertThat(jedis.configGet("self-fence-on-replica-loss")).containsEntry("self-fence-on-replica-loss",
                    "yes");
            assertThat(jedis.configGet("freshness-window-ms")).containsEntry("freshness-window-ms", "3000");
            proxy.partition();
            try {
                Await.until("the primary refuses writes", Duration.ofSeconds(30),
                        () -> set(jedis, "cut", "x").equals(CLUSTERDOWN));
                assertThat(jedis.configSet("self-fence-on-replica-loss", "no")).isEqualTo("OK");
                assertThat(set(jedis, "alone", "1")).as("off: the primary takes writes alone").isEqualTo("OK");
                assertThat(JournalCluster.info(cluster.primary)).containsEntry("tandem_quorum_fence", "off");
                assertThat(jedis.configSet("self-fence-on-replica-loss", "yes")).isEqualTo("OK");
                assertThat(set(jedis, "fenced", "1")).isEqualTo(CLUSTERDOWN);
                assertThat(set(jedis, "huge-window", "1")).isEqualTo(CLUSTERDOWN);
                assertThat(jedis.configSet("freshness-window-ms", "600000")).isEqualTo("OK");
                assertThat(set(jedis, "within", "1")).as("the replica's silence is within ten minutes")
                        .isEqualTo("OK");
                assertThat(jedis.configSet("freshness-window-ms", "3000")).isEqualTo("OK");
            } finally {
                proxy.heal();
            }
            Await.until("writes are taken again", Duration.ofSeconds(30),
                    () -> set(jedis, "healed", "1").equals("OK"));
        }
        cluster.awaitConverged(replica);
    }
}
