package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/**
 * Keyspace notifications as applications use them, through the clients they use: a Lettuce subscriber in RESP3
 * waiting for {@code expired} (a session store's way), a Jedis pattern subscriber on a key's events in RESP2, and
 * redis-py listening to every key event. The events of each command, against Redis's, are in the differential
 * corpus ({@code CommandDifferentialSystemTest}); on replicas in {@code PubSubReplicationSystemTest}.
 */
@Timeout(120)
class KeyspaceNotificationsSystemTest {

    private static TandemNode node;

    @BeforeAll
    static void start() throws IOException {
        node = TandemNode.start("keyspace-events");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(node);
    }

    @Test
    void aLettuceSubscriberInResp3HearsAnExpiringKeyGo() throws Exception {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + node.port()));
        client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3).build());
        try (StatefulRedisConnection<String, String> c = client.connect();
                StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub()) {
            assertThat(c.sync().configSet("notify-keyspace-events", "Egx")).isEqualTo("OK");
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            sub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    heard.add(channel + " " + message);
                }
            });
            sub.sync().psubscribe("__keyevent@0__:*");
            c.sync().set("session:1", "data", SetArgs.Builder.px(100));
            assertThat(heard.poll(10, TimeUnit.SECONDS)).isEqualTo("__keyevent@0__:expire session:1");
            assertThat(heard.poll(10, TimeUnit.SECONDS)).as("the Tick deletes it")
                    .isEqualTo("__keyevent@0__:expired session:1");
            assertThat(c.sync().exists("session:1")).isZero();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void aJedisPatternSubscriberHearsTheEventsOfItsKeys() throws Exception {
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onPMessage(String pattern, String channel, String message) {
                heard.add(channel + " " + message);
            }
        };
        try (Jedis writer = new Jedis("127.0.0.1", node.port(), 5000);
                Jedis subscriber = new Jedis("127.0.0.1", node.port(), 5000)) {
            writer.configSet("notify-keyspace-events", "Kh$g");
            Thread t = new Thread(() -> subscriber.psubscribe(listener, "__keyspace@0__:cart:*"), "jedis-psubscribe");
            t.setDaemon(true);
            t.start();
            tandem.testsupport.Await.until("the subscription counts", Duration.ofSeconds(10),
                    () -> writer.pubsubNumPat() == 1);
            writer.hset("cart:7", "sku", "2");
            writer.hincrBy("cart:7", "sku", 1);
            writer.set("other", "x"); // another key: not heard
            writer.del("cart:7");
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                got.add(heard.poll(10, TimeUnit.SECONDS));
            }
            assertThat(got).containsExactly("__keyspace@0__:cart:7 hset", "__keyspace@0__:cart:7 hincrby",
                    "__keyspace@0__:cart:7 del");
            listener.punsubscribe();
            t.join(10_000);
        }
    }

    @Test
    void redisPyHearsEveryKeyEvent() throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "redis-py-events-");
        Path script = dir.resolve("keyspace_listener.py");
        try (InputStream in = getClass().getResourceAsStream("keyspace_listener.py")) {
            Files.copy(in, script);
        }
        Process p = new ProcessBuilder("/usr/bin/python3", script.toString(), Integer.toString(node.port()), "3")
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("ready");
            try (Jedis writer = new Jedis("127.0.0.1", node.port(), 5000)) {
                writer.del("py:l");
                writer.rpush("py:l", "a");
                writer.lpop("py:l");
            }
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                got.add(out.readLine());
            }
            assertThat(got).containsExactly("__keyevent@0__:rpush py:l", "__keyevent@0__:lpop py:l",
                    "__keyevent@0__:del py:l");
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
