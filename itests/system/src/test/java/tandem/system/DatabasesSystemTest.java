package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.system.RespSockets.connect;
import static tandem.system.RespSockets.exchange;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import tandem.testsupport.Await;

/**
 * The sixteen databases on a primary with a journal-protocol replica and a psync replica: writes, transactions
 * that select, MOVE, COPY … DB, SWAPDB and expiring keys in many databases reach both replicas (equal digests),
 * and a primary killed with SIGKILL replays its journal into the same state; a client blocked in one database is
 * served by a push there only; a job in database 3 (Jedis, Lettuce and redis-py) uses HMSET and hears its keyspace
 * notifications on {@code __keyspace@3__}. The replies themselves are compared with Redis's in the differential
 * corpus ({@code CommandDifferentialSystemTest}).
 */
@Timeout(240)
class DatabasesSystemTest {

    private static JournalCluster cluster;
    private static TandemNode journalReplica;
    private static TandemNode psyncReplica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("dbs", "disk");
        journalReplica = cluster.addReplica(true);
        psyncReplica = TandemNode.start("dbs-psync", "--replication-port", Integer.toString(TandemNode.freePort()),
                "--config", "tandem.psync:reconnect.max.ms=300");
        TandemNode.Result r = psyncReplica.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(cluster.primary.port()));
        assertThat(r.out().trim()).as(r.err()).isEqualTo("OK");
        JournalCluster.awaitStreaming(psyncReplica);
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(psyncReplica, cluster);
    }

    @Test
    void everyDatabaseReachesBothReplicasAndSurvivesAKilledPrimary() throws IOException {
        try (Socket c = connect(cluster.primary.port())) {
            for (int db = 0; db < 16; db++) {
                exchange(c, "SELECT " + db + "\r\nSET s" + db + " v" + db + "\r\nHSET h f " + db + "\r\nZADD z "
                        + db + " m\r\nRPUSH l " + db + "\r\nSET e" + db + " x PX " + (200 + db) + "\r\n", 6);
            }
            assertThat(exchange(c, "SELECT 2\r\nMULTI\r\nINCR n\r\nSELECT 9\r\nINCR n\r\nSELECT 2\r\nINCR n\r\nEXEC\r\n",
                    8)).endsWith("*5\r\n:1\r\n+OK\r\n:1\r\n+OK\r\n:2\r\n");
            assertThat(exchange(c, "SELECT 9\r\nGET n\r\n", 2)).isEqualTo("+OK\r\n$1\r\n1\r\n");
            assertThat(exchange(c, "SELECT 2\r\nMOVE s2 11\r\nCOPY h h2 DB 12\r\nSWAPDB 3 4\r\nSELECT 3\r\n"
                    + "GET s4\r\n", 6)).isEqualTo("+OK\r\n:1\r\n:1\r\n+OK\r\n+OK\r\n$2\r\nv4\r\n");
        }
        Await.until("the expiring keys are gone", Duration.ofSeconds(30), () -> {
            String keyspace = TandemNode.tryExchange(cluster.primary.port(), "INFO keyspace\r\n");
            return keyspace != null && keyspace.contains("db15:keys=4,expires=0");
        });
        JournalCluster.awaitDigestOf(cluster.primary, journalReplica, psyncReplica);
        String digest = cluster.primary.digest();
        Map<String, String> info = journalReplica.info("keyspace");
        assertThat(info.get("db11")).as("s11, h, z, l and the s2 moved there").startsWith("keys=5,");
        assertThat(info.get("db12")).as("s12, h, z, l and the h2 copied there").startsWith("keys=5,");

        cluster.primary.kill();
        cluster.primary.restart();
        Await.until("the primary is back", Duration.ofSeconds(60), () -> cluster.primary.digestOrNull() != null);
        assertThat(cluster.primary.digest()).as("replayed from the journal").isEqualTo(digest);
        JournalCluster.awaitStreaming(psyncReplica);
        try (Socket c = connect(cluster.primary.port())) {
            exchange(c, "SELECT 14\r\nSET after-restart 1\r\n", 2);
        }
        JournalCluster.awaitDigestOf(cluster.primary, journalReplica, psyncReplica);
    }

    @Test
    void aClientTrackingKeysOnAReplicaIsToldWhenThePrimaryWritesThem() throws IOException {
        for (TandemNode replica : new TandemNode[] {journalReplica, psyncReplica}) {
            try (Socket tracker = connect(replica.port()); Socket writer = connect(cluster.primary.port())) {
                exchange(writer, "SELECT 10\r\nSET cached:k v1\r\n", 2);
                Await.until("the replica holds the key", Duration.ofSeconds(30), () -> String.valueOf(
                        TandemNode.tryExchange(replica.port(), "SELECT 10\r\nGET cached:k\r\n")).contains("v1"));
                assertThat(exchange(tracker, "HELLO 3\r\nCLIENT TRACKING ON\r\nSELECT 10\r\nGET cached:k\r\n", 4))
                        .endsWith("+OK\r\n+OK\r\n$2\r\nv1\r\n");
                exchange(writer, "SET cached:k v2\r\n", 1);
                assertThat(exchange(tracker, "", 1)).as("replica %d", replica.port())
                        .isEqualTo(">2\r\n$10\r\ninvalidate\r\n*1\r\n$8\r\ncached:k\r\n");
            }
        }
    }

    @Test
    void aRestoredKeyHasTheSameDeadlineOnEveryReplicaWhichRefusesMigrate() throws IOException {
        try (Socket c = connect(cluster.primary.port())) {
            String dumped = exchange(c, "SELECT 5\r\nRPUSH restored:src a b 1\r\nDUMP restored:src\r\n", 3);
            String bulk = dumped.substring(dumped.indexOf("$", dumped.indexOf(":3\r\n")));
            int header = bulk.indexOf("\r\n");
            String payload = bulk.substring(header + 2, header + 2 + Integer.parseInt(bulk.substring(1, header)));
            // the payload's bytes go as they are (ISO-8859-1 keeps each byte): a relative TTL and a replace
            String restore = "*4\r\n$7\r\nRESTORE\r\n$12\r\nrestored:ttl\r\n$6\r\n900000\r\n$" + payload.length()
                    + "\r\n" + payload + "\r\n";
            assertThat(exchange(c, restore, 1)).isEqualTo("+OK\r\n");
        }
        JournalCluster.awaitDigestOf(cluster.primary, journalReplica, psyncReplica);
        String deadline = TandemNode.tryExchange(cluster.primary.port(), "SELECT 5\r\nPEXPIRETIME restored:ttl\r\n");
        assertThat(deadline).matches("\\+OK\r\n:\\d{13}\r\n");
        for (TandemNode replica : new TandemNode[] {journalReplica, psyncReplica}) {
            assertThat(TandemNode.tryExchange(replica.port(), "SELECT 5\r\nPEXPIRETIME restored:ttl\r\n"))
                    .isEqualTo(deadline);
            assertThat(TandemNode.tryExchange(replica.port(), "SELECT 5\r\nLRANGE restored:ttl 0 -1\r\n"))
                    .isEqualTo("+OK\r\n*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\n1\r\n");
            // MIGRATE writes (it deletes what it moved): a replica refuses it before it reaches any target
            assertThat(TandemNode.tryExchange(replica.port(), "SELECT 5\r\nMIGRATE 127.0.0.1 1 restored:ttl 0 100\r\n"))
                    .isEqualTo("+OK\r\n-READONLY You can't write against a read only replica.\r\n");
        }
    }

    @Test
    void waitInsideMultiCountsTheReplicasThatHoldTheClientsWriteWithoutBlocking() throws IOException {
        try (Socket c = connect(cluster.primary.port())) {
            // the write, then a WAIT outside MULTI until both replicas hold it; inside MULTI, WAIT cannot block and
            // answers how many do (Redisson's batches send it so)
            assertThat(exchange(c, "SELECT 8\r\nSET waited v\r\nWAIT 2 20000\r\n", 3))
                    .isEqualTo("+OK\r\n+OK\r\n:2\r\n");
            assertThat(exchange(c, "MULTI\r\nWAIT 2 0\r\nGET waited\r\nWAIT 5 0\r\nEXEC\r\n", 5))
                    .isEqualTo("+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n:2\r\n$1\r\nv\r\n:2\r\n");
        }
        assertThat(TandemNode.tryExchange(journalReplica.port(), "MULTI\r\nWAIT 0 0\r\nEXEC\r\n"))
                .as("a replica").endsWith("*1\r\n-ERR WAIT cannot be used with replica instances. Please also note "
                        + "that since Redis 4.0 if a replica is configured to be writable (which is not the default) "
                        + "writes to replicas are just local and are not propagated.\r\n");
    }

    @Test
    void aClientBlockedInADatabaseIsServedByAPushThereOnly() throws IOException {
        try (Socket blocked = connect(cluster.primary.port()); Socket writer = connect(cluster.primary.port())) {
            exchange(blocked, "SELECT 6\r\n", 1);
            blocked.getOutputStream().write("BLPOP queue 0\r\n".getBytes(StandardCharsets.US_ASCII));
            Await.until("the client is blocked", Duration.ofSeconds(10), () -> String.valueOf(
                    TandemNode.tryExchange(cluster.primary.port(), "INFO clients\r\n")).contains("blocked_clients:1"));
            exchange(writer, "RPUSH queue in-db-0\r\nSELECT 6\r\nRPUSH queue in-db-6\r\n", 3);
            assertThat(exchange(blocked, "", 1)).isEqualTo("*2\r\n$5\r\nqueue\r\n$7\r\nin-db-6\r\n");
            assertThat(exchange(writer, "SELECT 0\r\nLRANGE queue 0 -1\r\n", 2)).endsWith("*1\r\n$7\r\nin-db-0\r\n");
        }
    }

    @Test
    void aJobInDatabaseThreeRunsUnchangedWithJedisLettuceAndRedisPy() throws Exception {
        Process listener = redisPyListener();
        try (BufferedReader heard = new BufferedReader(new InputStreamReader(listener.getInputStream(),
                StandardCharsets.UTF_8))) {
            assertThat(heard.readLine()).isEqualTo("ready");
            try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", cluster.primary.port()),
                    DefaultJedisClientConfig.builder().database(3).timeoutMillis(5000).build())) {
                assertThat(jedis.hmset("job:1", Map.of("state", "queued", "tries", "0"))).isEqualTo("OK");
                jedis.hincrBy("job:1", "tries", 1);
            }
            RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + cluster.primary.port()
                    + "/3"));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                assertThat(c.sync().hgetall("job:1")).isEqualTo(Map.of("state", "queued", "tries", "1"));
                c.sync().del("job:1");
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                got.add(heard.readLine());
            }
            assertThat(got).containsExactly("__keyspace@3__:job:1 hset", "__keyspace@3__:job:1 hincrby",
                    "__keyspace@3__:job:1 del");
            try (Socket c = connect(cluster.primary.port())) {
                assertThat(exchange(c, "EXISTS job:1\r\n", 1)).as("database 0 never held it").isEqualTo(":0\r\n");
            }
        } finally {
            listener.destroyForcibly();
            listener.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** redis-py in database 3, subscribed to its keyspace notifications (they name the database). */
    private static Process redisPyListener() throws IOException {
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "redis-py-db3-");
        Path script = dir.resolve("db3_listener.py");
        Files.writeString(script, String.join("\n",
                "import sys, time, redis",
                "r = redis.Redis(host='127.0.0.1', port=int(sys.argv[1]), db=3, socket_timeout=10)",
                "r.config_set('notify-keyspace-events', 'Kh$g')",
                "p = r.pubsub()",
                "p.psubscribe('__keyspace@3__:job:*')",
                "while p.get_message(timeout=5) is None:",
                "    pass",
                "print('ready', flush=True)",
                "got, deadline = 0, time.time() + 20",
                "while got < 3 and time.time() < deadline:",
                "    m = p.get_message(ignore_subscribe_messages=True, timeout=1)",
                "    if m:",
                "        print(m['channel'].decode(), m['data'].decode(), flush=True)",
                "        got += 1",
                ""));
        return new ProcessBuilder("/usr/bin/python3", script.toString(), Integer.toString(cluster.primary.port()))
                .redirectErrorStream(true).start();
    }
}
