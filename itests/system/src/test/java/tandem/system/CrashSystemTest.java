package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

import tandem.testsupport.Await;

/**
 * Nothing acknowledged is lost: concurrent writers, each on keys of its own plus shared {@code INCR} counters,
 * against a node that is killed with SIGKILL at random moments and restarted on the same home. After every restart
 * each writer's acknowledged keys hold their values and every counter satisfies acknowledged ≤ value ≤ sent.
 */
@Timeout(600)
class CrashSystemTest {

    private static final int ROUNDS = 12;
    private static final int WRITERS = 4;
    private static final String[] COUNTERS = {"counter:a", "counter:b"};

    @RegisterExtension
    static final PerClass<TandemNode> NODE = new PerClass<>(() -> TandemNode.start("crash"));
    private final TandemNode node = NODE.get();
    private static final java.util.concurrent.atomic.AtomicLong ACKS = new java.util.concurrent.atomic.AtomicLong();

    /** One writer's progress across rounds. */
    private static final class Writer {
        final int id;
        long acked; // keys w<id>:1 .. w<id>:acked are acknowledged
        long sent; // the highest key number sent (it may or may not have been applied)
        final long[] counterAcked = new long[COUNTERS.length];
        final long[] counterSent = new long[COUNTERS.length];

        Writer(int id) {
            this.id = id;
        }

        String key(long n) {
            return "w" + id + ":" + n;
        }

        static String value(long n) {
            return "value-" + n + "-" + "x".repeat((int) (n % 50));
        }

        /** Writes until {@code stop} or until the connection fails (the node was killed). */
        void run(int port, AtomicBoolean stop, Random random) {
            try (Jedis jedis = new Jedis("127.0.0.1", port, 2000, 5000)) {
                while (!stop.get()) {
                    int batch = 1 + random.nextInt(8);
                    Pipeline p = jedis.pipelined();
                    long first = sent + 1;
                    int c = random.nextInt(COUNTERS.length);
                    for (int i = 0; i < batch; i++) {
                        sent++;
                        p.set(key(sent), value(sent));
                    }
                    counterSent[c] += 1;
                    p.incr(COUNTERS[c]);
                    p.sync();
                    acked = first + batch - 1;
                    counterAcked[c] += 1;
                    ACKS.incrementAndGet();
                }
            } catch (RuntimeException e) {
                // the node died under us: whatever was not acknowledged may or may not have been applied
            }
        }
    }

    @Test
    void everyAcknowledgedWriteSurvivesKillMinusNine() throws Exception {
        Random random = new Random(Long.getLong("tandem.test.seed", System.nanoTime()));
        List<Writer> writers = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            writers.add(new Writer(i));
        }
        for (int round = 1; round <= ROUNDS; round++) {
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (Writer w : writers) {
                Random r = new Random(random.nextLong());
                Thread t = new Thread(() -> w.run(node.port(), stop, r), "writer-" + w.id);
                t.start();
                threads.add(t);
            }
            // kill at a random moment: after a random number of further acknowledged batches
            long target = ACKS.get() + 20 + random.nextInt(400);
            Await.until("the writers acknowledge " + target + " batches", java.time.Duration.ofSeconds(60),
                    () -> ACKS.get() >= target);
            assertThat(node.kill()).isEqualTo(137);
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
                assertThat(t.isAlive()).isFalse();
            }
            node.restart();
            verify(writers, round);
        }
        long total = writers.stream().mapToLong(w -> w.acked).sum();
        assertThat(total).as("the writers made progress").isGreaterThan(ROUNDS);
        TandemNode.Result verify = node.shell("journal:verify");
        assertThat(verify.exit()).as(verify.err()).isZero();
        assertThat(verify.out()).contains("journal OK");
    }

    private void verify(List<Writer> writers, int round) {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 2000, 10_000)) {
            for (Writer w : writers) {
                for (long n = Math.max(1, w.acked - 200); n <= w.acked; n++) {
                    assertThat(jedis.get(w.key(n))).as("round %d: acknowledged %s", round, w.key(n))
                            .isEqualTo(Writer.value(n));
                }
                // a key sent but not acknowledged is either absent or complete, never torn
                for (long n = w.acked + 1; n <= w.sent; n++) {
                    String v = jedis.get(w.key(n));
                    assertThat(v == null || v.equals(Writer.value(n))).as("round %d: %s", round, w.key(n)).isTrue();
                }
                // one connection's writes apply in order: the applied keys are a prefix; continue right after it
                w.acked = w.sent;
                for (long n = w.sent; n > 0 && jedis.get(w.key(n)) == null; n--) {
                    w.acked = n - 1;
                }
                w.sent = w.acked;
            }
            for (int c = 0; c < COUNTERS.length; c++) {
                long acked = 0;
                long sent = 0;
                for (Writer w : writers) {
                    acked += w.counterAcked[c];
                    sent += w.counterSent[c];
                }
                String raw = jedis.get(COUNTERS[c]);
                long value = raw == null ? 0 : Long.parseLong(raw);
                assertThat(value).as("round %d: %s", round, COUNTERS[c]).isBetween(acked, sent);
                // from here on the counter's true value is known: count the in-flight increments as acknowledged
                long inFlightApplied = value - acked;
                for (Writer w : writers) {
                    long lost = w.counterSent[c] - w.counterAcked[c];
                    long applied = Math.min(lost, inFlightApplied);
                    inFlightApplied -= applied;
                    w.counterAcked[c] += applied;
                    w.counterSent[c] = w.counterAcked[c];
                }
            }
        }
    }

    @Test
    void aJournalReplayedFromScratchGivesTheSameDigest() throws IOException {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            for (int i = 0; i < 500; i++) {
                jedis.set("replay:" + i, "v" + i);
                jedis.hset("replay:h", "f" + (i % 37), Integer.toString(i));
                jedis.incrBy("replay:n", i);
            }
            jedis.del("replay:7");
        }
        String before = node.digest();
        assertThat(node.stop()).isIn(0, 143);
        Path store = node.home().resolve("data/store");
        assertThat(store).isDirectory();
        node.delete("data/store");
        node.restart();
        assertThat(node.digest()).isEqualTo(before);
    }

}
