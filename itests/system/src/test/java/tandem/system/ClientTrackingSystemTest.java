package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.system.RespSockets.connect;
import static tandem.system.RespSockets.exchange;

import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.support.caching.CacheAccessor;
import io.lettuce.core.support.caching.CacheFrontend;
import io.lettuce.core.support.caching.ClientSideCaching;
import tandem.testsupport.Await;

/**
 * Client-side caching ({@code CLIENT TRACKING}) against a real Redis 7 and Tandem: the invalidations a tracking
 * connection is pushed in RESP3 (default and {@code BCAST} modes, a flush), and the messages a RESP2 connection
 * subscribed to {@code __redis__:invalidate} receives for another connection's {@code REDIRECT}, compared byte for
 * byte; and Lettuce's client-side cache, which drops an entry when another client writes its key. The command's
 * replies and errors are in the differential corpus.
 */
@Timeout(120)
class ClientTrackingSystemTest {

    private static TandemNode tandem;
    private static RedisProcess redis;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisProcess.start();
        tandem = TandemNode.start("tracking");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem, redis);
    }

    @Test
    void aResp3TrackerIsPushedTheInvalidationsRedisPushes() throws IOException {
        assertThat(resp3(tandem.port())).isEqualTo(resp3(redis.port()));
    }

    /** A RESP3 tracker reads keys another connection then writes; returns what the tracker read. */
    private static String resp3(int port) throws IOException {
        try (Socket tracker = connect(port); Socket writer = connect(port)) {
            StringBuilder got = new StringBuilder();
            exchange(tracker, "HELLO 3\r\n", 1);
            exchange(writer, "FLUSHALL\r\nSET a 1\r\nSET b 2\r\n", 3);
            got.append(exchange(tracker, "CLIENT TRACKING ON\r\nGET a\r\nMGET a b\r\nGET nokey\r\n", 4));
            exchange(writer, "SET a 3\r\n", 1);
            got.append(exchange(tracker, "", 1)); // a: once, though read twice
            exchange(writer, "DEL b\r\nSET nokey x\r\nSET a 4\r\n", 3);
            got.append(exchange(tracker, "", 2)); // b, nokey; a was not read again
            got.append(exchange(tracker, "CLIENT TRACKING OFF\r\nCLIENT TRACKING ON BCAST PREFIX user:\r\n", 2));
            // one write at a time: Redis gathers a BCAST client's keys of one event loop turn into one push
            for (String write : new String[] {"SET user:1 x", "SET other x", "HSET user:2 f v"}) {
                exchange(writer, write + "\r\n", 1);
            }
            got.append(exchange(tracker, "", 2));
            got.append(exchange(tracker, "CLIENT TRACKINGINFO\r\n", 1));
            exchange(writer, "FLUSHDB\r\n", 1);
            got.append(exchange(tracker, "", 1));
            return got.toString();
        }
    }

    @Test
    void aResp2RedirectionIsAMessageOnTheInvalidateChannelAsOnRedis() throws IOException {
        assertThat(redirected(tandem.port())).isEqualTo(redirected(redis.port()));
    }

    private static String redirected(int port) throws IOException {
        try (Socket listener = connect(port); Socket tracker = connect(port); Socket writer = connect(port)) {
            StringBuilder got = new StringBuilder();
            String id = exchange(listener, "CLIENT ID\r\n", 1).substring(1).trim();
            got.append(exchange(listener, "SUBSCRIBE __redis__:invalidate\r\n", 1));
            exchange(writer, "SET k v\r\n", 1);
            got.append(exchange(tracker, "CLIENT TRACKING ON REDIRECT " + id + "\r\nGET k\r\nCLIENT GETREDIR\r\n", 3)
                    .replace(":" + id + "\r\n", ":<id>\r\n"));
            exchange(writer, "SET k w\r\n", 1);
            got.append(exchange(listener, "", 1));
            exchange(writer, "FLUSHALL\r\n", 1);
            got.append(exchange(listener, "", 1));
            return got.toString();
        }
    }

    @Test
    void lettucesClientSideCacheDropsAnEntryAnotherClientWrites() throws Exception {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + tandem.port()));
        try (StatefulRedisConnection<String, String> cached = client.connect();
                StatefulRedisConnection<String, String> other = client.connect()) {
            other.sync().set("price:1", "10");
            Map<String, String> local = new ConcurrentHashMap<>();
            CacheFrontend<String, String> frontend = ClientSideCaching.enable(CacheAccessor.forMap(local), cached,
                    TrackingArgs.Builder.enabled());
            assertThat(frontend.get("price:1")).isEqualTo("10");
            assertThat(local).containsEntry("price:1", "10");
            other.sync().set("price:1", "11");
            Await.until("the invalidation empties the local cache", Duration.ofSeconds(10),
                    () -> !local.containsKey("price:1"));
            assertThat(frontend.get("price:1")).isEqualTo("11");
            frontend.close();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
