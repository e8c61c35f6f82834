package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Jedis;

import tandem.testsupport.Await;

/**
 * The store and journal bundles are stopped and started while clients write: writes pause, no client connection
 * drops, no write fails, and nothing acknowledged is lost.
 */
@Timeout(180)
class BundleRestartSystemTest {

    @RegisterExtension
    static final PerClass<TandemNode> NODE = new PerClass<>(() -> TandemNode.start("restart"));
    private final TandemNode node = NODE.get();

    /** Increments its own counter in a loop; every reply must be the next number. */
    private static final class Writer implements Runnable {
        final String key;
        final AtomicLong acked = new AtomicLong();
        final AtomicLong slowestNanos = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean stop;

        Writer(String key) {
            this.key = key;
        }

        @Override
        public void run() {
            try (Jedis jedis = new Jedis("127.0.0.1", NODE.get().port(), 5000, 30_000)) {
                while (!stop) {
                    long started = System.nanoTime();
                    long value = jedis.incr(key);
                    slowestNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
                    assertThat(value).isEqualTo(acked.get() + 1);
                    acked.set(value);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }
    }

    @Test
    void restartingTheStoreAndTheJournalPausesWritesAndLosesNothing() throws Exception {
        List<Writer> writers = List.of(new Writer("restart:a"), new Writer("restart:b"));
        List<Thread> threads = new ArrayList<>();
        for (Writer w : writers) {
            Thread t = new Thread(w, "writer-" + w.key);
            t.start();
            threads.add(t);
        }
        try {
            for (String bundle : List.of("Tandem store", "Tandem journal", "Tandem store")) {
                awaitProgress(writers);
                long id = node.bundleId(bundle);
                TandemNode.Result stopped = node.shell("stop " + id);
                assertThat(stopped.exit()).as(stopped.err()).isZero();
                TandemNode.Result started = node.shell("start " + id);
                assertThat(started.exit()).as(started.err()).isZero();
                awaitProgress(writers);
            }
        } finally {
            writers.forEach(w -> w.stop = true);
            for (Thread t : threads) {
                t.join(30_000);
            }
        }
        for (Writer w : writers) {
            assertThat(w.failure.get()).as("writer %s", w.key).isNull();
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                assertThat(Long.parseLong(jedis.get(w.key))).isEqualTo(w.acked.get());
            }
            System.getLogger("tandem.system").log(System.Logger.Level.INFO,
                    "writer {0}: {1} increments, slowest {2} ms (the pause)", w.key, w.acked.get(),
                    w.slowestNanos.get() / 1_000_000);
        }
        assertThat(node.log()).doesNotContain("Exception in thread");
    }

    private static void awaitProgress(List<Writer> writers) {
        for (Writer w : writers) {
            long from = w.acked.get();
            Await.until(w.key + " makes progress", Duration.ofSeconds(30),
                    () -> w.failure.get() != null || w.acked.get() >= from + 50);
            assertThat(w.failure.get()).as("writer %s", w.key).isNull();
        }
    }
}
