package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.system.PubSubSystemTest.readValue;
import static tandem.system.RespSockets.connect;
import static tandem.system.RespSockets.exchange;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/**
 * RESP3 on the RESP port, side by side with Redis 7.0: {@code redis-cli -3}, the bytes of the server's own commands
 * and of Pub/Sub pushes on raw sockets, and Lettuce and Jedis speaking RESP3. (The data commands' RESP3 replies are
 * compared block by block in {@link CommandDifferentialSystemTest}.)
 */
@Timeout(120)
class Resp3SystemTest {

    private static TandemNode tandem;
    private static RedisProcess redis;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisProcess.start();
        tandem = TandemNode.start("resp3");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem, redis);
    }

    private static TandemNode.Result cli(int port, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-3", "-h", "127.0.0.1", "-p",
                Integer.toString(port)));
        command.addAll(List.of(args));
        return TandemNode.run(Duration.ofSeconds(30), command.toArray(new String[0]));
    }

    @Test
    void redisCliDash3PrintsWhatItPrintsForRedis() throws IOException {
        for (int port : new int[] {redis.port(), tandem.port()}) {
            assertThat(cli(port, "DEL", "h", "z", "s").exit()).isZero();
            assertThat(cli(port, "HSET", "h", "f", "v").out().trim()).isEqualTo("1");
            assertThat(cli(port, "ZADD", "z", "1", "a", "2.5", "b").out().trim()).isEqualTo("2");
            assertThat(cli(port, "SADD", "s", "m").out().trim()).isEqualTo("1");
        }
        for (String[] command : List.of(new String[] {"PING"}, new String[] {"HGETALL", "h"},
                new String[] {"ZRANGE", "z", "0", "-1", "WITHSCORES"}, new String[] {"ZSCORE", "z", "b"},
                new String[] {"SMEMBERS", "s"}, new String[] {"GET", "nosuch"}, new String[] {"ZPOPMIN", "z", "1"},
                new String[] {"CONFIG", "GET", "maxclients"})) {
            TandemNode.Result expected = cli(redis.port(), command);
            TandemNode.Result actual = cli(tandem.port(), command);
            assertThat(actual.err()).as("%s", List.of(command)).doesNotContain("HELLO");
            assertThat(actual.out()).as("%s", List.of(command)).isEqualTo(expected.out());
        }
        assertThat(cli(tandem.port(), "INFO", "server").out()).startsWith("# Server");
    }

    /** What a RESP3 subscriber and a publisher read, on one server. */
    private static String pubSubFlow(int port) throws IOException {
        try (Socket sub = connect(port); Socket pub = connect(port)) {
            StringBuilder got = new StringBuilder();
            exchange(sub, "HELLO 3\r\n", 1);
            got.append(exchange(sub, "SUBSCRIBE r3:ch\r\nPSUBSCRIBE r3:p*\r\n", 2));
            got.append(exchange(pub, "PUBLISH r3:ch hello\r\nPUBLISH r3:pat world\r\n", 2));
            got.append(exchange(sub, "", 2));
            // a RESP3 connection may send any command while subscribed; PING answers as outside
            got.append(exchange(sub, "PING\r\nSET r3:k v\r\nGET r3:k\r\nGET r3:nosuch\r\n", 4));
            got.append(exchange(sub, "UNSUBSCRIBE\r\nPUNSUBSCRIBE\r\n", 2));
            got.append(exchange(sub, "RESET\r\nGET r3:nosuch\r\n", 2)); // RESET: back to RESP2
            return got.toString();
        }
    }

    @Test
    void pubSubPushesAndTheServersOwnRepliesAreRedisBytes() throws IOException {
        assertThat(pubSubFlow(tandem.port())).isEqualTo(pubSubFlow(redis.port()));
        String[] requests = {"HELLO 3 SETNAME n3\r\n", "HELLO 2\r\n", "HELLO 4\r\n", "HELLO x\r\n",
            "HELLO 3 SETNAME a\u0001b\r\n"};
        for (String request : requests) {
            String expected = masked(exchangeOnce(redis.port(), request));
            assertThat(masked(exchangeOnce(tandem.port(), request))).as(request.trim()).isEqualTo(expected);
        }
        for (String request : new String[] {"CONFIG GET maxclients\r\n", "PUBSUB NUMSUB a b\r\n", "LPOS nolist a\r\n",
            "BLPOP nolist 0.01\r\n", "ZMSCORE nokey a\r\n"}) {
            assertThat(exchangeOnce(tandem.port(), "HELLO 3\r\n" + request))
                    .as(request.trim()).isEqualTo(exchangeOnce(redis.port(), "HELLO 3\r\n" + request));
        }
        // the server's own texts are verbatim strings; COMMAND's flags and categories are sets
        assertThat(exchangeOnce(tandem.port(), "HELLO 3\r\nINFO server\r\n")).containsPattern("^=\\d+\r\ntxt:# Server");
        assertThat(exchangeOnce(tandem.port(), "HELLO 3\r\nCLIENT INFO\r\n")).containsPattern("^=\\d+\r\ntxt:id=");
        assertThat(exchangeOnce(tandem.port(), "HELLO 3\r\nCOMMAND INFO get\r\n"))
                .startsWith("*1\r\n*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n")
                .containsPattern(":\\d+\r\n~\\d+\r\n\\+@read\r\n");
        assertThat(exchangeOnce(tandem.port(), "HELLO 3\r\nCOMMAND DOCS get\r\n"))
                .startsWith("%1\r\n$3\r\nget\r\n%5\r\n$7\r\nsummary\r\n") // Redis's own, arguments included
                .contains("$9\r\narguments\r\n*1\r\n%3\r\n$4\r\nname\r\n$3\r\nkey\r\n");
    }

    /** Opens a connection, sends {@code request} and reads one reply per line of it, the last one returned. */
    private static String exchangeOnce(int port, String request) throws IOException {
        try (Socket s = connect(port)) {
            int lines = request.split("\r\n").length;
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            String last = null;
            for (int i = 0; i < lines; i++) {
                last = readValue(s.getInputStream());
            }
            return last;
        }
    }

    /** HELLO's fields whose values are the server's own: its version and the connection's id. */
    private static String masked(String hello) {
        return hello.replaceAll("\\$7\r\nversion\r\n\\$\\d+\r\n[0-9.]+\r\n", "\\$7\r\nversion\r\n?\r\n")
                .replaceAll("\\$2\r\nid\r\n:\\d+\r\n", "\\$2\r\nid\r\n?\r\n");
    }

    @Test
    void lettuceSpeaksResp3AndItsSubscriberHearsPushes() throws Exception {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + tandem.port()));
        client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3).build());
        try (StatefulRedisConnection<String, String> c = client.connect();
                StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub()) {
            var sync = c.sync();
            sync.del("lh", "lz", "ls");
            sync.hset("lh", Map.of("a", "1", "b", "2"));
            assertThat(sync.hgetall("lh")).isEqualTo(Map.of("a", "1", "b", "2"));
            sync.zadd("lz", 1.5, "x");
            sync.zadd("lz", 2, "y");
            assertThat(sync.zrangeWithScores("lz", 0, -1))
                    .containsExactly(ScoredValue.just(1.5, "x"), ScoredValue.just(2, "y"));
            assertThat(sync.zscore("lz", "x")).isEqualTo(1.5);
            assertThat(sync.zscore("lz", "nosuch")).isNull();
            sync.sadd("ls", "m", "n");
            assertThat(sync.smembers("ls")).containsExactlyInAnyOrder("m", "n");
            assertThat(sync.get("nosuch")).isNull();

            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            sub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    heard.add(channel + "=" + message);
                }
            });
            sub.sync().subscribe("lch");
            assertThat(sub.sync().get("nosuch")).as("any command while subscribed, in RESP3").isNull();
            assertThat(sync.publish("lch", "hi")).isEqualTo(1);
            assertThat(heard.poll(10, TimeUnit.SECONDS)).isEqualTo("lch=hi");
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void jedisSpeaksResp3() {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", tandem.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).timeoutMillis(5000).build())) {
            jedis.del("jh", "jz");
            jedis.hset("jh", Map.of("f", "v"));
            assertThat(jedis.hgetAll("jh")).isEqualTo(Map.of("f", "v"));
            jedis.zadd("jz", 3.25, "m");
            assertThat(jedis.zscore("jz", "m")).isEqualTo(3.25);
            assertThat(jedis.zrangeWithScores("jz", 0, -1)).hasSize(1)
                    .allSatisfy(t -> assertThat(t.getScore()).isEqualTo(3.25));
            assertThat(jedis.get("nosuch")).isNull();
        }
    }
}
