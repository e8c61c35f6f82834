package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.MigrateParams;
import redis.clients.jedis.params.RestoreParams;

/**
 * DUMP and RESTORE between a real Redis 7 and Tandem, both ways, as a migration tool copies keys: every type in
 * every encoding Redis chooses (strings of all three, LZF-compressed ones, listpacks and hashtables, intsets,
 * skiplists, lists of many nodes), read back whole on the other side; where Redis's payload depends on the value
 * alone, Tandem's is the same bytes. Jedis copies one way, Lettuce the other. MIGRATE moves them to Redis and back,
 * answers what Redis answers (the same calls from a Redis source and from Tandem, against one target), and keeps a
 * key written while it was on its way.
 */
@Timeout(180)
class DumpRestoreSystemTest {

    private static RedisProcess redis;
    private static TandemNode tandem;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
        tandem = TandemNode.start("dump");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem);
        if (redis != null) {
            redis.close();
        }
    }

    /** Builds the same keys on a server: one per type and encoding. */
    private static List<String> populate(Jedis j) {
        Random random = new Random(11);
        j.flushAll();
        j.set("str:int", "123456");
        j.set("str:embstr", "hello world");
        j.set("str:raw", "r".repeat(200));
        j.set("str:noise", randomText(random, 3000));
        for (int i = 0; i < 2500; i++) {
            j.rpush("list:nodes", randomText(random, random.nextInt(30)));
        }
        j.rpush("list:small", "a", "1", "-70000", "4294967296", "x".repeat(100));
        for (int i = 0; i < 50; i++) {
            j.sadd("set:intset", Integer.toString(random.nextInt(100_000) - 50_000));
        }
        for (int i = 0; i < 700; i++) {
            j.sadd("set:table", "m" + i);
            j.hset("hash:table", "f" + i, randomText(random, 10));
            j.zadd("zset:skiplist", random.nextGaussian() * 1000, "m" + i);
        }
        j.hset("hash:small", Map.of("a", "1", "b", "two", "c", "-3"));
        j.zadd("zset:small", Map.of("a", 1.0, "b", 2.5, "c", -1e300, "d", Double.POSITIVE_INFINITY));
        return List.of("str:int", "str:embstr", "str:raw", "str:noise", "list:nodes", "list:small", "set:intset",
                "set:table", "hash:table", "zset:skiplist", "hash:small", "zset:small");
    }

    private static String randomText(Random random, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + random.nextInt(random.nextBoolean() ? 3 : 26)));
        }
        return b.toString();
    }

    /** A key's type, value (sets and hashes in order) and encoding, to compare across servers. */
    private static String describe(Jedis j, String key) {
        String type = j.type(key);
        Object value = switch (type) {
            case "string" -> j.get(key);
            case "list" -> j.lrange(key, 0, -1);
            case "set" -> new TreeSet<>(j.smembers(key));
            case "zset" -> j.zrangeWithScores(key, 0, -1);
            default -> new TreeMap<>(j.hgetAll(key));
        };
        return type + " " + j.objectEncoding(key) + " " + value;
    }

    /** Where Redis's bytes depend on the value alone, and on one node of a list: the payloads are equal. */
    private static final Set<String> SAME_BYTES = Set.of("str:int", "str:embstr", "str:raw", "str:noise",
            "list:small", "set:intset", "zset:skiplist", "zset:small");

    @Test
    void redisPayloadsRestoreIntoTandemWithJedis() {
        try (Jedis r = new Jedis("127.0.0.1", redis.port()); Jedis t = new Jedis("127.0.0.1", tandem.port())) {
            List<String> keys = populate(r);
            t.flushAll();
            for (String key : keys) {
                byte[] payload = r.dump(key);
                assertThat(t.restore(key, 0, payload)).isEqualTo("OK");
                assertThat(describe(t, key)).as(key).isEqualTo(describe(r, key));
                if (SAME_BYTES.contains(key)) {
                    assertThat(t.dump(key)).as(key).isEqualTo(payload);
                }
            }
            byte[] payload = r.dump("str:raw");
            assertThat(t.restore("str:raw", 100_000, payload, RestoreParams.restoreParams().replace()))
                    .isEqualTo("OK");
            assertThat(t.pttl("str:raw")).isBetween(1L, 100_000L);
        }
    }

    @Test
    void tandemPayloadsRestoreIntoRedisWithLettuce() {
        try (Jedis r = new Jedis("127.0.0.1", redis.port()); Jedis t = new Jedis("127.0.0.1", tandem.port())) {
            List<String> keys = populate(t);
            r.flushAll();
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", redis.port()));
            RedisClient fromClient = RedisClient.create(RedisURI.create("127.0.0.1", tandem.port()));
            try (StatefulRedisConnection<byte[], byte[]> to = client.connect(ByteArrayCodec.INSTANCE);
                    StatefulRedisConnection<byte[], byte[]> from = fromClient.connect(ByteArrayCodec.INSTANCE)) {
                List<String> failures = new ArrayList<>();
                for (String key : keys) {
                    byte[] payload = from.sync().dump(key.getBytes());
                    assertThat(to.sync().restore(key.getBytes(), payload, RestoreArgs.Builder.ttl(0)))
                            .as(key).isEqualTo("OK");
                    if (!describe(r, key).equals(describe(t, key))) {
                        failures.add(key);
                    }
                }
                assertThat(failures).as("keys Redis read differently").isEmpty();
            } finally {
                client.shutdown();
                fromClient.shutdown();
            }
        }
    }

    @Test
    void migrateMovesEveryKindOfKeyToRedisAndBack() {
        try (Jedis r = new Jedis("127.0.0.1", redis.port()); Jedis t = new Jedis("127.0.0.1", tandem.port())) {
            List<String> keys = populate(t);
            Map<String, String> before = new TreeMap<>();
            keys.forEach(k -> before.put(k, describe(t, k)));
            r.flushAll();
            t.pexpire("str:raw", 600_000);
            // COPY keeps the keys here; the moves after it replace what the copy left there
            assertThat(t.migrate("127.0.0.1", redis.port(), 0, 5000,
                    MigrateParams.migrateParams().copy(), keys.toArray(new String[0])))
                    .isEqualTo("OK");
            assertThat(t.exists(keys.toArray(new String[0]))).isEqualTo(keys.size());
            assertThat(t.migrate("127.0.0.1", redis.port(), 0, 5000,
                    MigrateParams.migrateParams().replace(), keys.toArray(new String[0])))
                    .isEqualTo("OK");
            assertThat(t.exists(keys.toArray(new String[0]))).as("moved away").isZero();
            for (String k : keys) {
                assertThat(describe(r, k)).as(k).isEqualTo(before.get(k));
            }
            assertThat(r.pttl("str:raw")).isBetween(500_000L, 600_000L);
            // and back, Redis migrating into Tandem's database 4
            assertThat(r.migrate("127.0.0.1", tandem.port(), 4, 5000,
                    MigrateParams.migrateParams(), keys.toArray(new String[0])))
                    .isEqualTo("OK");
            t.select(4);
            for (String k : keys) {
                assertThat(describe(t, k)).as(k).isEqualTo(before.get(k));
            }
            assertThat(t.pttl("str:raw")).isBetween(500_000L, 600_000L);
        }
    }

    @Test
    void migrateAnswersAsRedisDoes() throws Exception {
        RedisProcess other = RedisProcess.start();
        try (Jedis r = new Jedis("127.0.0.1", redis.port()); Jedis t = new Jedis("127.0.0.1", tandem.port());
                Jedis o = new Jedis("127.0.0.1", other.port())) {
            r.flushAll();
            t.flushAll();
            int closed = TandemNode.freePort();
            String target = Integer.toString(other.port());
            String[][] cases = {
                {"MIGRATE", "127.0.0.1", target, "nothing", "0", "1000"},
                {"MIGRATE", "127.0.0.1", target, "k", "0", "1000", "BOGUS"},
                {"MIGRATE", "127.0.0.1", target, "k", "0", "1000", "AUTH"},
                {"MIGRATE", "127.0.0.1", target, "k", "0", "1000", "AUTH2", "user"},
                {"MIGRATE", "127.0.0.1", target, "k", "0", "1000", "KEYS", "k"},
                {"MIGRATE", "127.0.0.1", target, "k", "0", "soon"},
                {"MIGRATE", "127.0.0.1", target, "k", "db", "1000"},
                {"MIGRATE", "127.0.0.1", Integer.toString(closed), "k", "0", "1000"},
                {"MIGRATE", "127.0.0.1", target, "busy", "0", "1000"},
                {"MIGRATE", "127.0.0.1", target, "k", "0", "1000", "AUTH", "secret"},
                {"MIGRATE", "127.0.0.1", target, "k", "16", "1000"},
                {"MIGRATE", "127.0.0.1", target, "", "0", "1000", "KEYS", "nothing", "neither"},
                {"MIGRATE", "127.0.0.1", target},
            };
            for (String[] c : cases) {
                // the same call from a Redis source and a Tandem source, against the same target (another Redis)
                o.flushAll();
                o.set("busy", "there");
                r.set("k", "v");
                r.set("busy", "v");
                t.set("k", "v");
                t.set("busy", "v");
                String fromRedis = call(redis.port(), c);
                String fromTandem = call(tandem.port(), c);
                assertThat(fromTandem).as(String.join(" ", c)).isEqualTo(fromRedis);
            }
        } finally {
            other.close();
        }
    }

    @Test
    void aKeyWrittenWhileItMigratesIsNotDeleted() throws Exception {
        try (java.net.ServerSocket fake = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                Jedis t = new Jedis("127.0.0.1", tandem.port())) {
            t.flushAll();
            t.set("moving", "old");
            java.util.concurrent.CompletableFuture<String> reply = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> call(tandem.port(), "MIGRATE", "127.0.0.1", Integer.toString(fake.getLocalPort()), "moving",
                            "0", "10000"));
            try (java.net.Socket target = fake.accept()) {
                // the target has been sent SELECT and RESTORE; before it answers, another client writes the key
                java.io.InputStream in = target.getInputStream();
                byte[] request = new byte[4096];
                String received = "";
                while (!received.contains("RESTORE")) {
                    int n = in.read(request);
                    received += new String(request, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
                }
                assertThat(t.set("moving", "new")).isEqualTo("OK");
                target.getOutputStream().write("+OK\r\n+OK\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                assertThat(reply.get(30, java.util.concurrent.TimeUnit.SECONDS)).startsWith(
                        "-ERR MIGRATE: a key was written while it was migrated");
            }
            assertThat(t.get("moving")).isEqualTo("new");
        }
    }

    /** One command as a RESP array, and its one reply as it came. */
    private static String call(int port, String... args) {
        StringBuilder request = new StringBuilder("*" + args.length + "\r\n");
        for (String a : args) {
            request.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        try (java.net.Socket s = RespSockets.connect(port)) {
            return RespSockets.exchange(s, request.toString(), 1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
