package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import tandem.testsupport.Await;

/**
 * Failover as docs/replication.md's runbook does it, with real processes under a subclass's ack policy: {@code kill -9} of
 * the primary under concurrent writers, {@code repl:promote} on the most advanced replica, {@code repl:replicaof} on
 * the other (which continues without a snapshot), every acknowledged write on both survivors; then the old primary,
 * restarted, comes up fenced and rejoins as a replica of the new one. Every node's key is authorized on every node
 * up front, so any of them can be promoted. Every node archives its journal into one shared archive: a backup taken
 * on the first primary restores, through the archive, to the new primary's last write, with its digest. One cluster
 * for the class; tests run in order.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS) // one cluster per class, under the subclass's policy
abstract class FailoverRunbook {

    private static final System.Logger LOG = System.getLogger("tandem.system");
    private JournalCluster cluster;
    private TandemNode r1;
    private TandemNode r2;
    private TandemNode promoted;
    private TandemNode follower;
    private List<Writer> writers;
    private java.nio.file.Path archive;
    private java.nio.file.Path backup;

    /** @return the ack policy the cluster runs under */
    abstract String policy();

    /** @return the prefix of the nodes' home directories */
    abstract String name();

    /** Starts the primary and two replicas under {@link #policy}, every node's key authorized on every node. */
    @BeforeAll
    void start() throws IOException {
        archive = TandemNode.newHome(name() + "-archive");
        String[] archiving = {"tandem.journal:archive.directory=" + archive, "tandem.journal:segment.size=131072"};
        cluster = JournalCluster.start(name(), policy(), archiving);
        r1 = cluster.addReplica(true, cluster.replicationPort, archiving);
        r2 = cluster.addReplica(true, cluster.replicationPort, archiving);
        for (TandemNode on : List.of(r1, r2)) {
            for (TandemNode who : List.of(cluster.primary, r1, r2)) {
                if (who != on) {
                    JournalCluster.authorize(who, on);
                }
            }
        }
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private int count(TandemNode node, String text) {
        return node.log().split(Pattern.quote(text), -1).length - 1;
    }

    @Test
    @Order(1)
    void aReplicaIsNotPromotedWhileItsPrimaryStillStreamsToIt() throws IOException {
        String out = JournalCluster.shell(r1, "repl:promote");
        assertThat(out).contains("not promoted").contains("still streams to this node");
        assertThat(JournalCluster.info(r1).get("role")).isEqualTo("slave");
    }

    @Test
    @Order(2)
    void killingThePrimaryAndPromotingTheMostAdvancedReplicaLosesNoAcknowledgedWrite() throws Exception {
        writers = Writer.start("fo", 4, cluster.primary::port);
        long target = 100 + new Random().nextInt(500);
        LOG.log(System.Logger.Level.INFO, "killing the primary after about {0} writes per writer", target);
        writers.forEach(w -> w.awaitProgress(target / 4));
        backup = TandemNode.newHome(name() + "-backup");
        TandemNode.Result taken = cluster.primary.shell("backup:create " + backup.resolve("b"));
        assertThat(taken.exit()).as(taken.out() + taken.err()).isZero();
        writers.forEach(w -> w.awaitProgress(target));
        cluster.primary.kill();
        Writer.haltAll(writers, true);

        long s1 = JournalCluster.sequence(r1);
        long s2 = JournalCluster.sequence(r2);
        promoted = s1 >= s2 ? r1 : r2;
        follower = promoted == r1 ? r2 : r1;
        String out = JournalCluster.shell(promoted, "repl:promote");
        assertThat(out).contains("promoted: primary at epoch 1");
        assertThat(JournalCluster.info(promoted).get("role")).isEqualTo("master");

        int snapshots = count(follower, "receiving a snapshot");
        JournalCluster.shell(follower, "repl:replicaof 127.0.0.1:" + JournalCluster.replicationPort(promoted));
        JournalCluster.awaitStreaming(follower);
        JournalCluster.awaitSequenceOf(promoted, follower);
        assertThat(count(follower, "receiving a snapshot")).as("not ahead of the new primary: no snapshot")
                .isEqualTo(snapshots);
        assertThat(JournalCluster.info(follower).get("tandem_journal_epoch")).isEqualTo("1");
        for (Writer w : writers) {
            w.assertAcknowledgedOn(promoted);
            w.assertAcknowledgedOn(follower);
        }

        try (Jedis jedis = new Jedis("127.0.0.1", promoted.port())) {
            assertThat(jedis.set("after-failover", "1")).isEqualTo("OK");
        }
        JournalCluster.awaitSequenceOf(promoted, follower);
        JournalCluster.assertStateOf(promoted, follower);
    }

    @Test
    @Order(3)
    void theOldPrimaryRestartedStaysFencedAndRejoinsAsAReplicaOfTheNewOne() throws Exception {
        TandemNode old = cluster.primary;
        // a client that writes from the moment the restarted node listens: a primary restarted after a crash never
        // takes a write before its replication protocol has fenced it (its replicas may be ahead of it)
        List<String> probeReplies = new CopyOnWriteArrayList<>();
        AtomicBoolean probing = new AtomicBoolean(true);
        Thread probe = new Thread(() -> {
            while (probing.get()) {
                String reply = TandemNode.tryExchange(old.port(), "SET split-probe 1\r\n");
                if (reply != null && !reply.isEmpty()) {
                    probeReplies.add(reply.strip());
                } else {
                    LockSupport.parkNanos(1_000_000); // not listening yet
                }
            }
        }, "restart-probe");
        probe.start();
        try {
            old.restart();
            Await.until("the probe is answered after the restart", Duration.ofSeconds(30),
                    () -> !probeReplies.isEmpty());
        } finally {
            probing.set(false);
            probe.join(5_000);
        }
        assertThat(probeReplies).as("what the restarted primary answered a client writing from its first moment")
                .allMatch(r -> r.startsWith("-FENCED this primary restarted after a crash"));
        try (Jedis jedis = new Jedis("127.0.0.1", old.port())) {
            assertThatThrownBy(() -> jedis.set("split", "brain")).isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("FENCED this primary restarted after a crash");
            assertThat(jedis.get("after-failover")).as("reads are served").isNull();
        }
        assertThat(JournalCluster.info(old).get("tandem_fence")).startsWith("FENCED");

        JournalCluster.shell(old, "repl:replicaof 127.0.0.1:" + JournalCluster.replicationPort(promoted));
        JournalCluster.awaitStreaming(old);
        try (Jedis jedis = new Jedis("127.0.0.1", promoted.port())) {
            assertThat(jedis.set("after-rejoin", "1")).isEqualTo("OK");
        }
        JournalCluster.awaitSequenceOf(promoted, follower, old);
        JournalCluster.assertStateOf(promoted, follower, old);
        for (Writer w : writers) {
            w.assertAcknowledgedOn(old);
        }
        try (Jedis jedis = new Jedis("127.0.0.1", old.port())) {
            assertThatThrownBy(() -> jedis.set("x", "y")).hasMessageStartingWith("READONLY");
        }
        Await.until("INFO on the new primary lists both replicas", Duration.ofSeconds(30),
                () -> "2".equals(JournalCluster.info(promoted).get("connected_slaves")));
    }

    @Test
    @Order(4)
    void aBackupOfTheFirstPrimaryRestoresThroughTheSharedArchiveToTheNewPrimarysLastWrite() throws Exception {
        String digest = promoted.digest();
        long last = JournalCluster.sequence(promoted);
        assertThat(JournalCluster.shell(promoted, "journal:rotate")).doesNotContain("not active");
        Await.until("the archive holds the new primary's last write", Duration.ofSeconds(30), () -> {
            try (var files = java.nio.file.Files.list(archive)) {
                return files.map(f -> f.getFileName().toString()).filter(n -> n.matches("segment-\\d{20}-\\d{20}-.*"))
                        .mapToLong(n -> Long.parseLong(n.substring(29, 49))).max().orElse(0) >= last;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        java.nio.file.Path home = TandemNode.newHome(name() + "-restored");
        TandemNode.Result r = TandemNode.run(Duration.ofSeconds(120),
                TandemNode.dist().resolve("bin/tandem").toString(), "restore", "--backup",
                backup.resolve("b").toString(), "--archive", archive.toString(), "--to-sequence",
                Long.toString(last), "--home", home.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("journal entries up to sequence " + last + " ");
        try (TandemNode restored = TandemNode.start(home, TandemNode.freePort(), java.util.Map.of())) {
            assertThat(restored.digest()).isEqualTo(digest);
        }
    }
}
