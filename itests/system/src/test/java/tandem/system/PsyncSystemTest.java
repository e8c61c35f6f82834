package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;

import tandem.testsupport.Await;

/**
 * Psync replication (spec 001) with real processes: a primary and two replicas made with {@code redis-cli
 * REPLICAOF}, driven by {@code redis-cli} and Jedis. A loaded primary full-syncs a fresh replica which then streams;
 * a replica stalled on its socket is dropped while the primary's heap stays bounded; {@code WAIT} with zero, one and
 * two replicas; {@code kill -9} of a replica under {@code INCR} load resumes with {@code +CONTINUE}; updating
 * {@code tandem.psync} in the running primary, or {@code tandem.frpl} in the primary and in a replica, drops no client
 * and the replicas continue; a corrupted checkpoint byte is detected and the next
 * attempt succeeds; expiry stays identical; AUTH is enforced. One cluster for the class; tests run in order.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PsyncSystemTest {

    private static final String[] FAST = {"--config", "tandem.psync:reconnect.max.ms=300", "--config",
            "tandem.psync:write.timeout.ms=1500"};
    private static TandemNode primary;
    private static TandemNode a;
    private static TandemNode b;
    /** {@code b}'s journal archive: a psync replica archives its own journal. */
    private static Path archiveB;

    @BeforeAll
    static void start() throws IOException {
        primary = node("psync-primary");
        a = node("psync-a");
        archiveB = TandemNode.newHome("psync-b-archive");
        b = node("psync-b", "--config", "tandem.journal:archive.directory=" + archiveB);
    }

    private static TandemNode node(String name, String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of("--replication-port", Integer.toString(TandemNode.freePort())));
        args.addAll(List.of(FAST));
        args.addAll(List.of(more));
        return TandemNode.start(name, args.toArray(new String[0]));
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(primary, a, b);
    }

    private static String cli(TandemNode node, String... args) throws IOException {
        TandemNode.Result r = node.redisCli(args);
        assertThat(r.exit()).as(r.err()).isZero();
        return r.out().trim();
    }

    private static void replicaOf(TandemNode replica, int port) throws IOException {
        assertThat(cli(replica, "REPLICAOF", "127.0.0.1", Integer.toString(port))).isEqualTo("OK");
        awaitLinkUp(replica);
    }

    private static void awaitLinkUp(TandemNode replica) {
        Await.until("replica " + replica.port() + " streams", Duration.ofSeconds(60),
                () -> "up".equals(replica.info("replication").get("master_link_status")));
    }

    /**
     * Waits until the replicas hold the primary's offset and its {@code store:digest}, both read afresh each time:
     * the primary applies its own Ticks a moment after they are durable, so one early digest may be outdated.
     */
    private static void assertConverged(TandemNode... replicas) {
        Await.until("replicas at the primary's offset and digest", Duration.ofSeconds(60), () -> {
            try {
                String p = primary.info("replication").get("master_repl_offset");
                String digest = primary.digest();
                for (TandemNode r : replicas) {
                    if (p == null || !p.equals(r.info("replication").get("master_repl_offset"))
                            || !digest.equals(r.digest())) {
                        return false;
                    }
                }
                return p.equals(primary.info("replication").get("master_repl_offset"));
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static int count(TandemNode node, String text) {
        return node.log().split(Pattern.quote(text), -1).length - 1;
    }

    @Test
    @Order(1)
    void aFreshReplicaFullSyncsALoadedPrimaryThenStreamsWritesMadeDuringTheSync() throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port(), 5000, 60_000)) {
            Pipeline p = jedis.pipelined();
            for (int i = 0; i < 20_000; i++) {
                p.set("load:" + i, "v".repeat(100) + i);
            }
            p.sync();
        }
        List<Writer> writers = Writer.start("fs", 2, primary::port);
        writers.forEach(w -> w.awaitProgress(20));
        replicaOf(a, primary.port()); // FM-REPLICATION-001, -004: writes during the handoff are streamed after it
        // row 025: the same target again changes nothing: no new sync, the link stays up
        assertThat(cli(a, "REPLICAOF", "127.0.0.1", Integer.toString(primary.port())))
                .isEqualTo("OK Already connected to specified master");
        writers.forEach(w -> w.awaitProgress(50));
        Writer.haltAll(writers, false);
        assertConverged(a);
        for (Writer w : writers) {
            w.assertAcknowledgedOn(a);
        }
        assertThat(primary.stat("sync_full")).isEqualTo(1);
        Map<String, String> p = primary.info("replication");
        assertThat(p.get("role")).isEqualTo("master");
        assertThat(p.get("connected_slaves")).isEqualTo("1");
        assertThat(p.get("slave0")).startsWith("ip=127.0.0.1,port=" + a.port() + ",state=online,offset=");
        assertThat(p.get("master_replid")).matches("[0-9a-f]{40}");
        assertThat(p.get("master_replid2")).isEqualTo("0".repeat(40));
        assertThat(p.get("second_repl_offset")).isEqualTo("-1");
        assertThat(p.get("repl_backlog_active")).as("FM-REPLICATION-059: the retained journal").isEqualTo("1");
        assertThat(Long.parseLong(p.get("repl_backlog_histlen"))).isEqualTo(Long.parseLong(p.get("master_repl_offset"))
                - Long.parseLong(p.get("repl_backlog_first_byte_offset")) + 1);
        Map<String, String> r = a.info("replication");
        assertThat(r.get("role")).isEqualTo("slave");
        assertThat(r.get("master_port")).isEqualTo(Integer.toString(primary.port()));
        assertThat(r.get("master_replid")).as("the replica adopted the primary's id").isEqualTo(p.get("master_replid"));
        assertThat(cli(primary, "ROLE")).startsWith("master").contains(Integer.toString(a.port()));
        assertThat(cli(a, "ROLE")).startsWith("slave\n127.0.0.1\n" + primary.port() + "\nconnected");
        assertThat(cli(a, "SET", "x", "1")).as("FM-REPLICATION-028").startsWith("READONLY");
        assertThat(TandemNode.tryExchange(a.port(), "PSYNC ? -1\r\n")).as("no chained replication")
                .isEqualTo("-ERR PSYNC not supported - server is not running as primary\r\n");
    }

    @Test
    @Order(2)
    void aReplicaWhoseSocketStopsReadingIsDroppedAndThePrimaryKeepsServing() throws Exception {
        String replid = primary.info("replication").get("master_replid");
        long offset = Long.parseLong(primary.info("replication").get("master_repl_offset"));
        try (Socket stalled = new Socket("127.0.0.1", primary.port())) {
            stalled.setReceiveBufferSize(4096);
            OutputStream out = stalled.getOutputStream();
            InputStream in = stalled.getInputStream();
            out.write(("REPLCONF listening-port 1\r\nPSYNC " + replid + " " + offset + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] head = new byte[5 + 10 + 40 + 2];
            int got = 0;
            while (got < head.length) {
                int n = in.read(head, got, head.length - got);
                assertThat(n).isPositive();
                got += n;
            }
            assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n+CONTINUE " + replid + "\r\n");
            // from here the socket reads nothing: 40 MB of writes fill it, the primary's heap is 160 MB
            String value = "x".repeat(100_000);
            try (Jedis jedis = new Jedis("127.0.0.1", primary.port(), 5000, 60_000)) {
                for (int i = 0; i < 400 && count(primary, "(write.timeout.ms)") == 0; i++) {
                    jedis.set("big:" + (i % 20), value);
                }
            }
            Await.until("the stalled replica is dropped", Duration.ofSeconds(30),
                    () -> count(primary, "replica 127.0.0.1:1: its socket took nothing for 1500 ms (write.timeout.ms)") == 1);
        }
        assertThat(primary.process().isAlive()).isTrue();
        assertThat(cli(primary, "PING")).isEqualTo("PONG");
        assertConverged(a);
    }

    @Test
    @Order(3)
    void waitCountsZeroOneAndTwoReplicasAndNeverFailsOnTimeout() throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port(), 5000, 60_000)) {
            jedis.set("w", "1");
            assertThat(jedis.waitReplicas(0, 0)).as("FM-REPLICATION-037").isGreaterThanOrEqualTo(0);
            assertThat(jedis.waitReplicas(1, 5000)).as("one replica acknowledged the write").isEqualTo(1);
            assertThat(jedis.waitReplicas(2, 300)).as("the timeout returns the count, no error").isEqualTo(1);
            replicaOf(b, primary.port());
            jedis.set("w", "2");
            assertThat(jedis.waitReplicas(2, 10_000)).isEqualTo(2);
        }
        try (Jedis onReplica = new Jedis("127.0.0.1", a.port())) {
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> onReplica.waitReplicas(1, 10)))
                    .isInstanceOf(JedisDataException.class).hasMessageContaining("WAIT cannot be used with replica");
        }
        try (Socket third = new Socket("127.0.0.1", primary.port())) {
            third.getOutputStream().write("PSYNC ? -1\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] reply = new byte[256];
            int n = third.getInputStream().read(reply);
            assertThat(new String(reply, 0, n, StandardCharsets.US_ASCII))
                    .isEqualTo("-ERR this primary already serves 2 replicas\r\n");
        }
        assertConverged(a, b);
    }

    @Test
    @Order(4)
    void aReplicaKilledUnderIncrLoadResumesWithContinueAndTheCountersAreExact() throws Exception {
        long full = primary.stat("sync_full");
        long partial = primary.stat("sync_partial_ok");
        List<Writer> writers = Writer.start("kill", 3, primary::port);
        writers.forEach(w -> w.awaitProgress(100));
        a.kill();
        writers.forEach(w -> w.awaitProgress(100));
        a.restart();
        awaitLinkUp(a);
        writers.forEach(w -> w.awaitProgress(100));
        Writer.haltAll(writers, false);
        assertConverged(a, b);
        for (Writer w : writers) {
            w.assertAcknowledgedOn(a);
            try (Jedis ja = new Jedis("127.0.0.1", a.port()); Jedis jp = new Jedis("127.0.0.1", primary.port())) {
                assertThat(ja.get(w.prefix + ":count")).isEqualTo(jp.get(w.prefix + ":count"));
            }
        }
        assertThat(primary.stat("sync_full")).as("no full sync").isEqualTo(full);
        assertThat(primary.stat("sync_partial_ok")).isEqualTo(partial + 1);
        assertThat(a.log()).contains("+CONTINUE at offset");
    }

    @Test
    @Order(5)
    void updatingTandemPsyncInTheRunningPrimaryDropsNoClientAndTheReplicasContinue() throws Exception {
        List<Writer> writers = Writer.start("upd", 2, primary::port);
        writers.forEach(w -> w.awaitProgress(50));
        TandemNode.Result updated = primary.shell("update " + primary.bundleId("Tandem psync replication"));
        assertThat(updated.exit()).as(updated.err()).isZero();
        Await.until("both replicas continue", Duration.ofSeconds(60),
                () -> primary.stat("sync_partial_ok") == 2);
        writers.forEach(w -> w.awaitProgress(50));
        Writer.haltAll(writers, false); // their connections never dropped
        assertThat(primary.stat("sync_full")).as("the new bundle served no full sync").isZero();
        assertConverged(a, b);
    }

    @Test
    @Order(6)
    void updatingTandemFrplUnderWritesDropsNoClientAndTheReplicasContinue() throws Exception {
        long partial = primary.stat("sync_partial_ok");
        List<Writer> writers = Writer.start("frpl", 2, primary::port);
        writers.forEach(w -> w.awaitProgress(50));
        TandemNode.Result updated = primary.shell("update " + primary.bundleId("Tandem FRPL stream"));
        assertThat(updated.exit()).as(updated.err()).isZero();
        Await.until("both replicas continue", Duration.ofSeconds(60),
                () -> primary.stat("sync_partial_ok") == partial + 2);
        writers.forEach(w -> w.awaitProgress(50));
        // a replica's own FRPL stream (its applier) updated: it reconnects and continues too
        updated = a.shell("update " + a.bundleId("Tandem FRPL stream"));
        assertThat(updated.exit()).as(updated.err()).isZero();
        Await.until("the replica continues", Duration.ofSeconds(60),
                () -> primary.stat("sync_partial_ok") == partial + 3);
        writers.forEach(w -> w.awaitProgress(50));
        Writer.haltAll(writers, false); // their connections never dropped
        assertThat(primary.stat("sync_full")).as("no full sync").isZero();
        assertConverged(a, b);
        assertThat(a.log()).contains("+CONTINUE at offset");
    }

    @Test
    @Order(7)
    void aCorruptedCheckpointByteIsDetectedNothingIsInstalledAndTheNextAttemptSucceeds() throws Exception {
        long full = primary.stat("sync_full");
        b.stop();
        b.delete("data"); // a wiped replica: the next attempt is a full sync
        try (ByteProxy proxy = new ByteProxy(primary.port(), 4000)) {
            Files.writeString(b.home().resolve("etc/tandem.psync.cfg"),
                    Files.readString(b.home().resolve("etc/tandem.psync.cfg")).replaceAll("(?m)^replicaof\\s*=.*$",
                            "replicaof = 127.0.0.1:" + proxy.port()));
            b.restart();
            awaitLinkUp(b);
            assertThat(proxy.corrupted()).isEqualTo(1);
            assertThat(proxy.connections()).isGreaterThanOrEqualTo(2);
            assertThat(b.log()).contains("psync replica of 127.0.0.1:" + proxy.port());
            assertThat(primary.stat("sync_full")).as("the corrupted one and the next").isGreaterThanOrEqualTo(full + 2);
            assertThat(b.log()).contains("checksum mismatch");
            assertConverged(a, b);
            assertThat(cli(b, "REPLICAOF", "127.0.0.1", Integer.toString(primary.port()))).isEqualTo("OK");
            awaitLinkUp(b);
        }
    }

    @Test
    @Order(8)
    void expiryIsReplicatedWithThePrimarysTimeAndStaysIdentical() throws Exception {
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
            for (int i = 0; i < 50; i++) {
                jedis.set("ttl:" + i, "v");
                jedis.pexpire("ttl:" + i, 200 + i * 10L);
            }
            jedis.set("long", "v");
            jedis.expire("long", 1000);
        }
        Await.until("the short keys expire on the primary", Duration.ofSeconds(30),
                () -> cliQuiet(primary, "EXISTS", "ttl:49").equals("0"));
        assertConverged(a, b);
        for (TandemNode r : new TandemNode[] {a, b}) {
            assertThat(cli(r, "EXISTS", "ttl:0", "ttl:25", "ttl:49")).isEqualTo("0");
            assertThat(Long.parseLong(cli(r, "TTL", "long"))).isBetween(900L, 1000L);
        }
    }

    @Test
    @Order(9)
    void withRequirepassEveryCommandButAuthIsRefusedAndAReplicaAuthenticatesWithMasterauth() throws Exception {
        assertThat(cli(primary, "CONFIG", "SET", "requirepass", "s3cret")).isEqualTo("OK");
        try {
            assertThat(cli(primary, "GET", "w")).isEqualTo("NOAUTH Authentication required.");
            assertThat(cli(primary, "AUTH", "nope")).startsWith("WRONGPASS");
            assertThat(cli(primary, "-a", "s3cret", "--no-auth-warning", "GET", "w")).isEqualTo("2");
            a.stop();
            a.restart(); // without masterauth: refused at its handshake
            Await.until("the replica is refused", Duration.ofSeconds(30),
                    () -> count(a, "NOAUTH Authentication required.") > 0);
            a.stop();
            Path cfg = a.home().resolve("etc/tandem.psync.cfg");
            Files.writeString(cfg, Files.readString(cfg).replaceAll("(?m)^masterauth\\s*=.*$", "masterauth = s3cret"));
            a.restart();
            awaitLinkUp(a);
            try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
                jedis.auth("s3cret");
                jedis.set("w", "3");
                assertThat(jedis.waitReplicas(2, 10_000)).isEqualTo(2);
            }
            assertThat(cli(a, "GET", "w")).isEqualTo("3");
        } finally {
            cli(primary, "-a", "s3cret", "--no-auth-warning", "CONFIG", "SET", "requirepass", "");
        }
    }

    @Test
    @Order(10)
    void replicaofNoOnePromotesAReplicaAndTheOthersContinueWithoutAFullSync() throws Exception {
        String oldId = primary.info("replication").get("master_replid");
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
            jedis.set("before", "failover");
            assertThat(jedis.waitReplicas(2, 10_000)).isEqualTo(2);
        }
        primary.kill();
        assertThat(cli(a, "REPLICAOF", "NO", "ONE")).isEqualTo("OK");
        Map<String, String> promoted = a.info("replication");
        assertThat(promoted.get("role")).isEqualTo("master");
        assertThat(promoted.get("master_replid")).as("FM-REPLICATION-019: a new id").isNotEqualTo(oldId)
                .matches("[0-9a-f]{40}");
        assertThat(promoted.get("master_replid2")).isEqualTo(oldId);
        assertThat(Long.parseLong(promoted.get("second_repl_offset")))
                .isEqualTo(Long.parseLong(promoted.get("master_repl_offset")) + 1);
        assertThat(cli(a, "SET", "after", "failover")).isEqualTo("OK");
        replicaOf(b, a.port());
        assertThat(a.stat("sync_full")).as("b continues with the former primary's id").isZero();
        assertThat(a.stat("sync_partial_ok")).isEqualTo(1);
        assertThat(b.info("replication").get("master_replid")).isEqualTo(promoted.get("master_replid"));
        assertThat(cli(b, "GET", "after")).isEqualTo("failover");
        // the old primary comes back and follows the new one: it is not ahead, so it continues too
        primary.restart();
        replicaOf(primary, a.port());
        assertThat(a.stat("sync_full")).isZero();
        assertThat(a.stat("sync_partial_ok")).isEqualTo(2);
        TandemNode old = primary;
        primary = a; // the reference for assertConverged
        try {
            assertConverged(b, old);
        } finally {
            primary = old;
        }
        a.stop();
        a.restart(); // FM-REPLICATION-021: the promoted identity survives a restart
        assertThat(a.info("replication").get("master_replid")).isEqualTo(promoted.get("master_replid"));
        assertThat(a.info("replication").get("master_replid2")).isEqualTo(oldId);
    }

    private static String cliQuiet(TandemNode node, String... args) {
        try {
            return node.redisCli(args).out().trim();
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    @Order(11)
    void aPsyncReplicaArchivesItsOwnJournalAndABackupOfItRestoresThroughIt() throws Exception {
        Path backup = TandemNode.newHome("psync-b-backup").resolve("b");
        TandemNode.Result taken = b.shell("backup:create " + backup);
        assertThat(taken.exit()).as(taken.out() + taken.err()).isZero();
        cli(a, "SET", "after-backup", "1"); // a is the primary now; b follows it
        Await.until("b holds the write", Duration.ofSeconds(30), () -> cliQuiet(b, "GET", "after-backup").equals("1"));
        java.util.regex.Matcher durable = Pattern.compile("durable sequence:\\s+(\\d+)")
                .matcher(b.shell("journal:info").out());
        assertThat(durable.find()).isTrue();
        long last = Long.parseLong(durable.group(1));
        assertThat(b.shell("journal:rotate").exit()).isZero();
        Await.until("b's archive holds its sealed segment", Duration.ofSeconds(30),
                () -> {
                    String archived = b.info("persistence").get("journal_archive_archived_sequence");
                    return archived != null && Long.parseLong(archived) >= last;
                });
        TandemNode.Result r = TandemNode.run(Duration.ofSeconds(60), TandemNode.dist().resolve("bin/tandem").toString(),
                "restore", "--backup", backup.toString(), "--archive", archiveB.toString(), "--to-sequence",
                Long.toString(last), "--home", TandemNode.newHome("psync-b-restored").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("journal entries up to sequence " + last + " ");
    }
}
