package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import tandem.testsupport.Await;

/**
 * Pub/Sub on a Tandem node, against the real thing: flows of several connections replayed step by step on a real
 * Redis 7 and on Tandem with byte-identical replies and pushes; Jedis's {@link JedisPubSub} and a Lettuce pub/sub
 * connection as the Sentinel clients use them; and a subscriber that never reads under a flood, which the node
 * disconnects (output buffer limit) while it keeps serving.
 */
@Timeout(120)
class PubSubSystemTest {

    private static TandemNode tandem;
    private static RedisProcess redis;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisProcess.start();
        tandem = TandemNode.start("pubsub");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem, redis);
    }

    /** One request on connection {@code conn} (0, 1, 2…), and how many replies or pushes it then reads there. */
    record Step(int conn, String request, int replies) {
    }

    private static Step on(int conn, String request, int replies) {
        return new Step(conn, request, replies);
    }

    /** Reads {@code replies} values on {@code conn} without sending anything (pushes). */
    private static Step read(int conn, int replies) {
        return new Step(conn, "", replies);
    }

    static Stream<Arguments> flows() {
        return Stream.of(
                Arguments.of("subscribe, publish, unsubscribe", List.of(
                        on(0, "SUBSCRIBE ps:x ps:y ps:x\r\n", 3),
                        on(1, "PUBLISH ps:x m1\r\n", 1), read(0, 1),
                        on(1, "PUBLISH ps:y m2\r\n", 1), read(0, 1),
                        on(0, "UNSUBSCRIBE ps:x\r\n", 1),
                        on(1, "PUBLISH ps:x gone\r\n", 1),
                        on(0, "PING\r\n", 1),
                        on(0, "UNSUBSCRIBE\r\n", 1),
                        on(0, "UNSUBSCRIBE\r\n", 1),
                        on(0, "GET ps:nokey\r\n", 1))),
                Arguments.of("patterns and channels", List.of(
                        on(0, "PSUBSCRIBE ps:h*llo ps:a? ps:c*\r\n", 3),
                        on(0, "SUBSCRIBE ps:cc\r\n", 1),
                        on(1, "PUBLISH ps:hello m\r\n", 1), read(0, 1),
                        on(1, "PUBLISH ps:ab m\r\n", 1), read(0, 1),
                        on(1, "PUBLISH ps:cc both\r\n", 1), read(0, 2),
                        on(1, "PUBLISH ps:zz none\r\n", 1),
                        on(0, "PUNSUBSCRIBE ps:a?\r\n", 1),
                        on(0, "PUNSUBSCRIBE\r\n", 2),
                        on(0, "UNSUBSCRIBE\r\n", 1))),
                Arguments.of("shard channels", List.of(
                        on(0, "SSUBSCRIBE ps:s1 ps:s2\r\n", 2),
                        on(0, "SUBSCRIBE ps:s1\r\n", 1),
                        on(1, "SPUBLISH ps:s1 q\r\n", 1), read(0, 1),
                        on(1, "PUBLISH ps:s1 p\r\n", 1), read(0, 1),
                        on(1, "PUBSUB SHARDNUMSUB ps:s1 ps:s3\r\n", 1),
                        on(1, "PUBSUB SHARDCHANNELS ps:s2\r\n", 1),
                        on(0, "SUNSUBSCRIBE ps:s2\r\n", 1),
                        on(0, "SUNSUBSCRIBE\r\n", 1),
                        on(0, "SUNSUBSCRIBE\r\n", 1),
                        on(0, "UNSUBSCRIBE\r\n", 1))),
                Arguments.of("introspection", List.of(
                        on(0, "SUBSCRIBE ps:i1\r\n", 1),
                        on(2, "PSUBSCRIBE ps:ip*\r\n", 1),
                        on(1, "PUBSUB NUMSUB ps:i1 ps:i2\r\n", 1),
                        on(1, "PUBSUB NUMSUB\r\n", 1),
                        on(1, "PUBSUB NUMPAT\r\n", 1),
                        on(1, "PUBSUB CHANNELS ps:i*\r\n", 1),
                        on(1, "PUBSUB HELP\r\n", 1),
                        on(1, "PUBSUB FOO\r\n", 1),
                        on(1, "PUBSUB CHANNELS a b\r\n", 1),
                        on(1, "PUBSUB NUMPAT x\r\n", 1),
                        on(1, "PUBSUB\r\n", 1),
                        on(1, "PUBLISH ps:i1\r\n", 1),
                        on(1, "SUBSCRIBE\r\n", 1),
                        on(2, "RESET\r\n", 1),
                        on(0, "RESET\r\n", 1),
                        on(1, "PUBSUB NUMPAT\r\n", 1),
                        on(1, "PUBSUB NUMSUB ps:i1\r\n", 1))),
                Arguments.of("subscribed mode", List.of(
                        on(0, "SUBSCRIBE ps:m\r\n", 1),
                        on(0, "GET ps:nokey\r\n", 1),
                        on(0, "SET ps:nokey v\r\n", 1),
                        on(0, "CONFIG GET maxclients\r\n", 1),
                        on(0, "PUBLISH ps:m x\r\n", 1),
                        on(0, "MULTI\r\n", 1),
                        on(0, "WATCH ps:nokey\r\n", 1),
                        on(0, "FOO\r\n", 1),
                        on(0, "GET\r\n", 1),
                        on(0, "CLIENT FOO\r\n", 1),
                        on(0, "PING\r\n", 1),
                        on(0, "PING hi\r\n", 1),
                        on(0, "PING a b\r\n", 1),
                        on(0, "RESET\r\n", 1),
                        on(0, "GET ps:nokey\r\n", 1),
                        on(0, "PING\r\n", 1))),
                Arguments.of("pipelined behind a subscription", List.of(
                        on(0, "SUBSCRIBE ps:p\r\nGET ps:nokey\r\nPING\r\nUNSUBSCRIBE ps:p\r\nGET ps:nokey\r\n", 5),
                        on(0, "PSUBSCRIBE ps:q*\r\nSET ps:nokey v\r\nPUNSUBSCRIBE\r\nEXISTS ps:nokey\r\n", 4),
                        on(0, "SUBSCRIBE ps:p\r\n", 1),
                        on(1, "PUBLISH ps:p 1\r\nPUBLISH ps:p 2\r\nPUBLISH ps:p 3\r\n", 3), read(0, 3),
                        on(0, "QUIT\r\n", 1))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flows")
    void flowRepliesAsRedisDoes(String name, List<Step> steps) throws IOException {
        List<String> expected = replay(redis.port(), steps);
        List<String> actual = replay(tandem.port(), steps);
        for (int i = 0; i < steps.size(); i++) {
            assertThat(visible(actual.get(i))).as("step %d of %s: %s", i, name, visible(steps.get(i).request()))
                    .isEqualTo(visible(expected.get(i)));
        }
    }

    /** @return what each step read, its replies' raw bytes (a closed connection reads {@code <closed>}) */
    private static List<String> replay(int port, List<Step> steps) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        try {
            List<String> out = new ArrayList<>();
            for (Step step : steps) {
                while (sockets.size() <= step.conn()) {
                    Socket s = new Socket();
                    s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                    s.setSoTimeout(5000);
                    sockets.add(s);
                }
                Socket s = sockets.get(step.conn());
                s.getOutputStream().write(step.request().getBytes(StandardCharsets.ISO_8859_1));
                StringBuilder read = new StringBuilder();
                for (int i = 0; i < step.replies(); i++) {
                    read.append(readValue(s.getInputStream()));
                }
                if (step.request().startsWith("QUIT")) {
                    read.append(s.getInputStream().read() < 0 ? "<closed>" : "<open>");
                }
                out.add(read.toString());
            }
            return out;
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    /** Reads one RESP2 value and returns its bytes as they came. */
    static String readValue(InputStream in) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        String line = readLine(in, raw);
        char type = line.charAt(0);
        if (type == '$' || type == '=') { // '=' a RESP3 verbatim string
            int n = Integer.parseInt(line.substring(1));
            if (n >= 0) {
                raw.write(in.readNBytes(n + 2));
            }
        } else if (type == '*' || type == '~' || type == '>' || type == '%') { // RESP3 set, push, map
            int n = Integer.parseInt(line.substring(1)) * (type == '%' ? 2 : 1);
            for (int i = 0; i < n; i++) {
                raw.write(readValue(in).getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        return raw.toString(StandardCharsets.ISO_8859_1);
    }

    private static String readLine(InputStream in, ByteArrayOutputStream raw) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int b = in.read(); ; b = in.read()) {
            if (b < 0) {
                throw new IOException("closed after " + visible(raw.toString(StandardCharsets.ISO_8859_1) + sb));
            }
            raw.write(b);
            if (b == '\n') {
                return sb.substring(0, sb.length() - 1);
            }
            sb.append((char) b);
        }
    }

    static String visible(String s) {
        return s.replace("\r", "\\r").replace("\n", "\\n");
    }

    @Test
    void jedisPubSubReceivesWhatIsPublishedAndLeaves() throws Exception {
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onSubscribe(String channel, int count) {
                events.add("subscribe " + channel + " " + count);
            }

            @Override
            public void onPSubscribe(String pattern, int count) {
                events.add("psubscribe " + pattern + " " + count);
            }

            @Override
            public void onMessage(String channel, String message) {
                events.add("message " + channel + " " + message);
                if (message.equals("bye")) {
                    unsubscribe();
                    punsubscribe();
                }
            }

            @Override
            public void onPMessage(String pattern, String channel, String message) {
                events.add("pmessage " + pattern + " " + channel + " " + message);
            }
        };
        Thread subscriber = new Thread(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", tandem.port())) {
                jedis.subscribe(listener, "+switch-master");
            }
        }, "jedis-subscriber");
        subscriber.start();
        assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("subscribe +switch-master 1");
        listener.psubscribe("+*");
        assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("psubscribe +* 2");
        try (Jedis publisher = new Jedis("127.0.0.1", tandem.port())) {
            assertThat(publisher.publish("+switch-master", "tandem 127.0.0.1 1 127.0.0.1 2")).isEqualTo(2);
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("message +switch-master tandem 127.0.0.1 1 "
                    + "127.0.0.1 2");
            assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("pmessage +* +switch-master tandem 127.0.0.1 1 "
                    + "127.0.0.1 2");
            assertThat(publisher.pubsubNumSub("+switch-master")).containsEntry("+switch-master", 1L);
            assertThat(publisher.publish("+switch-master", "bye")).isEqualTo(2);
        }
        subscriber.join(10_000);
        assertThat(subscriber.isAlive()).as("the subscriber left once it unsubscribed from everything").isFalse();
        try (Jedis check = new Jedis("127.0.0.1", tandem.port())) {
            Await.until("the subscription is gone", Duration.ofSeconds(10),
                    () -> check.pubsubNumSub("+switch-master").get("+switch-master") == 0L);
        }
    }

    @Test
    void lettucePubSubConnectionReceivesPatternMessages() throws Exception {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", tandem.port()));
        try (StatefulRedisPubSubConnection<String, String> connection = client.connectPubSub()) {
            BlockingQueue<String> events = new LinkedBlockingQueue<>();
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    events.add(pattern + " " + channel + " " + message);
                }

                @Override
                public void message(String channel, String message) {
                    events.add(channel + " " + message);
                }
            });
            connection.sync().psubscribe("*");
            connection.sync().subscribe("+switch-master");
            try (Jedis publisher = new Jedis("127.0.0.1", tandem.port())) {
                assertThat(publisher.publish("+switch-master", "tandem 127.0.0.1 1 127.0.0.1 2")).isEqualTo(2);
            }
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                got.add(events.poll(10, TimeUnit.SECONDS));
            }
            assertThat(got).containsExactly("+switch-master tandem 127.0.0.1 1 127.0.0.1 2",
                    "* +switch-master tandem 127.0.0.1 1 127.0.0.1 2");
            assertThat(connection.sync().ping()).as("PING while subscribed, as Lettuce reads it from Redis")
                    .isEqualTo(subscribedPingOf(redis.port()));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    /**
     * @return what Lettuce's PING answers on a subscribed connection to {@code port} with its defaults: RESP3, where a
     *         subscribed PING answers {@code +PONG} (RESP2's subscribed mode answers {@code *2 pong ""})
     */
    private static String subscribedPingOf(int port) {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisPubSubConnection<String, String> connection = client.connectPubSub()) {
            connection.sync().psubscribe("*");
            return connection.sync().ping();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void aSubscriberThatNeverReadsIsDisconnectedWhileTheNodeKeepsServing() throws Exception {
        // a subscriber with a small receive window that never reads, and one that reads everything
        Socket stalled = new Socket();
        stalled.setReceiveBufferSize(4096);
        stalled.connect(new InetSocketAddress("127.0.0.1", tandem.port()), 2000);
        OutputStream out = stalled.getOutputStream();
        out.write("SUBSCRIBE ps:flood\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BlockingQueue<Long> counted = new LinkedBlockingQueue<>();
        long[] received = new long[1];
        JedisPubSub reader = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                if (++received[0] % 1000 == 0 || message.equals("end")) {
                    counted.add(received[0]);
                }
                if (message.equals("end")) {
                    unsubscribe();
                }
            }
        };
        Thread readerThread = new Thread(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", tandem.port())) {
                jedis.subscribe(reader, "ps:flood");
            }
        }, "reading-subscriber");
        readerThread.start();
        try (Jedis publisher = new Jedis("127.0.0.1", tandem.port())) {
            Await.until("both subscribers are in", Duration.ofSeconds(10),
                    () -> publisher.pubsubNumSub("ps:flood").get("ps:flood") == 2L);
            String payload = "x".repeat(16 * 1024);
            long published = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // 8 times the 32 MB hard limit, which a node of -Xmx160m could not hold for one subscriber
            while (published < 16_384 && System.nanoTime() < deadline) {
                var pipeline = publisher.pipelined();
                for (int i = 0; i < 256; i++) {
                    pipeline.publish("ps:flood", payload);
                }
                pipeline.sync();
                published += 256;
                assertThat(publisher.ping()).isEqualTo("PONG");
            }
            assertThat(published).as("published within the minute").isEqualTo(16_384);
            assertThat(publisher.publish("ps:flood", "end")).as("only the reader is left").isEqualTo(1);
            long total = published + 1;
            Await.until("the reader got every message", Duration.ofSeconds(60),
                    () -> !counted.isEmpty() && received[0] == total);
            Await.until("the reader unsubscribed and the stalled subscriber is gone", Duration.ofSeconds(10),
                    () -> publisher.pubsubNumSub("ps:flood").get("ps:flood") == 0L);
            assertThat(publisher.set("ps:after", "v")).isEqualTo("OK");
        } finally {
            readerThread.join(10_000);
            stalled.close();
        }
        assertThat(tandem.process().isAlive()).isTrue();
        Await.until("the disconnection is logged", Duration.ofSeconds(10),
                () -> tandem.log().contains("client-output-buffer-limit pubsub"));
        assertThat(tandem.log()).containsPattern("closing client id=\\d+ addr=127\\.0\\.0\\.1:\\d+: output buffer of "
                + "\\d+ bytes reached the pubsub hard limit of 33554432");
    }
}
