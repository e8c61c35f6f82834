package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;

import tandem.testsupport.Await;

/**
 * A primary and two journal-protocol replicas as real processes, under concurrent writers, with the
 * {@code two-disks} policy: refused keys, a third replica, convergence, a replica killed and restarted, the response
 * gate, hot swaps of the transport and replication bundles, a clean restart of the primary, and finally
 * {@code kill -9} of the primary. The tests share one cluster and run in order; the last one kills the primary.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JournalReplicationSystemTest {

    private static final System.Logger LOG = System.getLogger("tandem.system");
    private static JournalCluster cluster;
    private static TandemNode r1;
    private static TandemNode r2;

    @BeforeAll
    static void start() throws IOException {
        // these tests take every replica away while they write (an ack policy waiting for one that comes back):
        // the quorum fence, which would refuse those writes, is FencingSystemTest's subject
        cluster = JournalCluster.start("journal-repl", "two-disks",
                "tandem.fencing:self.fence.on.replica.loss=false");
        r1 = cluster.addReplica(true);
        r2 = cluster.addReplica(true);
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(cluster);
    }

    private static List<Writer> writers(String tag, int n) {
        return Writer.start(tag, n, cluster.primary::port);
    }

    private static void awaitConverged(TandemNode... nodes) {
        cluster.awaitConverged(nodes);
    }

    private static void assertSameState(TandemNode... nodes) throws IOException {
        cluster.assertSameState(nodes);
    }

    /** @return the sequence after which the replica's last session started streaming, from its log */
    private static long lastResumePoint(TandemNode replica) {
        Matcher m = Pattern.compile("streaming from \\S+ after sequence (\\d+)").matcher(replica.log());
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }

    @Test
    @Order(1)
    void anUnauthorizedKeyAndAThirdReplicaAreRefusedAndReceiveNothing() throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", cluster.primary.port())) {
            jedis.set("before-r3", "x");
        }
        TandemNode r3 = cluster.addReplica(false);
        Await.until("the primary refuses the unknown key", Duration.ofSeconds(30),
                () -> cluster.primary.log().contains("refused: UNKNOWN_KEY"));
        Await.until("the replica reports the refusal", Duration.ofSeconds(30),
                () -> "refused".equals(JournalCluster.info(r3).get("tandem_link_state")));
        assertThat(JournalCluster.sequence(r3)).as("nothing was replicated to an unknown key").isZero();
        assertThat(r3.redisCli("DBSIZE").out().trim()).isEqualTo("0");

        cluster.authorize(r3);
        Await.until("the primary refuses a third replica", Duration.ofSeconds(30),
                () -> cluster.primary.log().contains("already serves 2 replicas"));
        assertThat(JournalCluster.sequence(r3)).as("nothing was replicated to a third replica").isZero();
        assertThat(JournalCluster.info(cluster.primary).get("connected_slaves")).isEqualTo("2");
        r3.close();
        cluster.replicas.remove(r3);
        TandemNode.Result revoked = cluster.primary.shell("auth:revoke "
                + java.nio.file.Files.readString(r3.home().resolve("etc/replication_ed25519.pub")).split(" ")[1]);
        assertThat(revoked.exit()).isZero();
    }

    @Test
    @Order(2)
    void concurrentWritesReachBothReplicasByteIdentical() throws Exception {
        List<Writer> ws = writers("conv", 4);
        for (Writer w : ws) {
            w.awaitProgress(300);
        }
        for (Writer w : ws) {
            w.halt();
            assertThat(w.failure.get()).isNull();
        }
        awaitConverged(r1, r2);
        assertSameState(r1, r2);
        try (Jedis replica = new Jedis("127.0.0.1", r1.port())) {
            Writer w = ws.get(0);
            assertThat(replica.get(w.prefix + ":" + w.acked.get())).isEqualTo(Long.toString(w.acked.get()));
            assertThat(replica.set("x", "y")).isNull(); // unreachable: Jedis throws on -READONLY
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            assertThat(e.getMessage()).startsWith("READONLY");
        }
    }

    @Test
    @Order(3)
    void aReplicaKilledAndRestartedResumesFromItsPositionAndConverges() throws Exception {
        List<Writer> ws = writers("resume", 3);
        ws.forEach(w -> w.awaitProgress(200));
        r2.kill();
        ws.forEach(w -> w.awaitProgress(200)); // two-disks still holds with r1
        r2.restart();
        JournalCluster.awaitStreaming(r2);
        long resumedAfter = lastResumePoint(r2);
        ws.forEach(w -> w.awaitProgress(200));
        for (Writer w : ws) {
            w.halt();
            assertThat(w.failure.get()).isNull();
        }
        assertThat(resumedAfter).as("resumed from its own journal, not from scratch").isGreaterThan(0);
        awaitConverged(r1, r2);
        assertSameState(r1, r2);
    }

    @Test
    @Order(4)
    void underTwoDisksAWriteWaitsForAReplicaAndIsAnsweredWhenOneConnects() throws Exception {
        r1.stop();
        r2.stop();
        Await.until("no replica connected", Duration.ofSeconds(30),
                () -> "0".equals(JournalCluster.info(cluster.primary).get("connected_slaves")));
        long before = JournalCluster.sequence(cluster.primary);
        CompletableFuture<String> reply = CompletableFuture.supplyAsync(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", cluster.primary.port(), 5000, 120_000)) {
                return jedis.set("gated", "1");
            }
        });
        Await.until("the write is durable on the primary", Duration.ofSeconds(30),
                () -> JournalCluster.sequence(cluster.primary) > before);
        try (Jedis other = new Jedis("127.0.0.1", cluster.primary.port())) {
            assertThat(other.ping()).isEqualTo("PONG"); // the node serves; only the write's answer waits
        }
        assertThat(reply).as("answered without a replica under two-disks").isNotDone();
        r1.restart();
        assertThat(reply.get(60, TimeUnit.SECONDS)).isEqualTo("OK");
        r2.restart();
        JournalCluster.awaitStreaming(r1);
        JournalCluster.awaitStreaming(r2);
    }

    @Test
    @Order(5)
    void hotSwappingTheTransportAndReplicationBundlesDropsNoClientAndLosesNothing() throws Exception {
        List<Writer> ws = writers("swap", 3);
        try (Jedis idle = new Jedis("127.0.0.1", cluster.primary.port())) {
            assertThat(idle.ping()).isEqualTo("PONG");
            for (String bundle : List.of("Tandem TCP transport", "Tandem journal replication")) {
                ws.forEach(w -> w.awaitProgress(100));
                long resumesBefore = countResumes(r1) + countResumes(r2);
                TandemNode.Result updated = cluster.primary.shell("update " + cluster.primary.bundleId(bundle));
                assertThat(updated.exit()).as(updated.err()).isZero();
                Await.until("both replicas resumed after the " + bundle + " update", Duration.ofSeconds(60),
                        () -> countResumes(r1) + countResumes(r2) >= resumesBefore + 2);
                ws.forEach(w -> w.awaitProgress(100));
                assertThat(lastResumePoint(r1)).as("r1 resumed from its journal").isGreaterThan(0);
                assertThat(lastResumePoint(r2)).as("r2 resumed from its journal").isGreaterThan(0);
            }
            assertThat(idle.ping()).as("a client connected across both swaps").isEqualTo("PONG");
        }
        for (Writer w : ws) {
            w.halt();
            assertThat(w.failure.get()).as("writer %s (its connection must not drop)", w.prefix).isNull();
            LOG.log(System.Logger.Level.INFO, "hot swap: writer {0} slowest write {1} ms (the pause)", w.prefix,
                    w.slowestNanos.get() / 1_000_000);
        }
        awaitConverged(r1, r2);
        assertSameState(r1, r2);
        try (Jedis jedis = new Jedis("127.0.0.1", r1.port())) {
            for (Writer w : ws) {
                assertThat(jedis.get(w.prefix + ":" + w.acked.get())).isEqualTo(Long.toString(w.acked.get()));
            }
        }
    }

    private static int countResumes(TandemNode replica) {
        Matcher m = Pattern.compile("streaming from \\S+ after sequence").matcher(replica.log());
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    @Order(6)
    void aPrimaryStoppedCleanlyAndRestartedKeepsItsReplicas() throws Exception {
        List<Writer> ws = writers("restart", 2);
        ws.forEach(w -> w.awaitProgress(200));
        cluster.primary.stop(); // SIGTERM: everything sent to the replicas was synced before the process ends
        for (Writer w : ws) {
            w.halt(); // their connection ended with the primary
        }
        int resumesBefore = countResumes(r1) + countResumes(r2);
        cluster.primary.restart();
        Await.until("both replicas resumed", Duration.ofSeconds(60),
                () -> countResumes(r1) + countResumes(r2) >= resumesBefore + 2);
        try (Jedis jedis = new Jedis("127.0.0.1", cluster.primary.port())) {
            assertThat(jedis.set("after-restart", "1")).isEqualTo("OK");
            for (Writer w : ws) {
                assertThat(jedis.get(w.prefix + ":" + w.acked.get())).isEqualTo(Long.toString(w.acked.get()));
            }
        }
        awaitConverged(r1, r2);
        assertSameState(r1, r2);
        assertThat(lastResumePoint(r1)).isGreaterThan(0);
    }

    @Test
    @Order(7)
    void killingThePrimaryLosesNoAcknowledgedWriteAndTheReplicasAgree() throws Exception {
        List<Writer> ws = writers("kill", 4);
        long target = 100 + new Random().nextInt(900); // a random moment, counted in acknowledged writes
        LOG.log(System.Logger.Level.INFO, "killing the primary after about {0} writes per writer", target);
        ws.forEach(w -> w.awaitProgress(target));
        cluster.primary.kill();
        for (Writer w : ws) {
            w.halt();
        }
        // every acknowledged write is on at least one replica (each applies what it made durable)
        for (Writer w : ws) {
            long acked = w.acked.get();
            assertThat(acked).isGreaterThanOrEqualTo(target);
            Await.until("acknowledged writes of " + w.prefix + " on a replica", Duration.ofSeconds(60), () -> {
                try (Jedis a = new Jedis("127.0.0.1", r1.port()); Jedis b = new Jedis("127.0.0.1", r2.port())) {
                    for (long n = 1; n <= acked; n += Math.max(1, acked / 200)) {
                        if (!onEither(a, b, w.prefix + ":" + n)) {
                            return false;
                        }
                    }
                    return onEither(a, b, w.prefix + ":" + acked);
                }
            });
        }
        r1.stop();
        r2.stop();
        long bytes = JournalCluster.assertCommonPrefix(r1, r2);
        assertThat(bytes).isGreaterThan(0);
    }

    private static boolean onEither(Jedis a, Jedis b, String key) {
        String expected = key.substring(key.lastIndexOf(':') + 1);
        return expected.equals(a.get(key)) || expected.equals(b.get(key));
    }
}
