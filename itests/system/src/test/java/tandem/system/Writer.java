package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

import redis.clients.jedis.Jedis;

import tandem.testsupport.Await;

/**
 * A client that writes its own keys {@code <prefix>:<n>} = n and increments its own counter {@code <prefix>:count}
 * in a loop, on a real Jedis connection: {@code acked} is the last n answered OK, and since each round's SET is
 * answered before its INCR is sent, after a crash the counter holds at least the acknowledged rounds and at most
 * those sent.
 */
final class Writer implements Runnable {

    final String prefix;
    final AtomicLong acked = new AtomicLong();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong countAcked = new AtomicLong();
    final AtomicLong slowestNanos = new AtomicLong();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final IntSupplier port;
    private volatile boolean stop;
    private Thread thread;

    Writer(String prefix, IntSupplier port) {
        this.prefix = prefix;
        this.port = port;
    }

    static List<Writer> start(String tag, int n, IntSupplier port) {
        List<Writer> ws = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Writer w = new Writer(tag + i, port);
            w.thread = new Thread(w, "writer-" + w.prefix);
            w.thread.start();
            ws.add(w);
        }
        return ws;
    }

    @Override
    public void run() {
        try (Jedis jedis = new Jedis("127.0.0.1", port.getAsInt(), 5000, 60_000)) {
            while (!stop) {
                long n = sent.incrementAndGet();
                long started = System.nanoTime();
                String reply = jedis.set(prefix + ":" + n, Long.toString(n));
                slowestNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
                assertThat(reply).isEqualTo("OK");
                acked.set(n);
                countAcked.set(jedis.incr(prefix + ":count"));
            }
        } catch (Throwable t) {
            failure.set(t);
        }
    }

    /** Stops the loop and waits for the thread (a writer whose primary died ends with a failure: expected). */
    void halt() throws InterruptedException {
        stop = true;
        thread.join(60_000);
    }

    void awaitProgress(long more) {
        long from = acked.get();
        Await.until(prefix + " makes progress", Duration.ofSeconds(60),
                () -> failure.get() != null || acked.get() >= from + more);
        assertThat(failure.get()).as("writer %s", prefix).isNull();
    }

    static void haltAll(List<Writer> ws, boolean expectFailure) throws InterruptedException {
        for (Writer w : ws) {
            w.halt();
            if (!expectFailure) {
                assertThat(w.failure.get()).as("writer %s (its connection must not drop)", w.prefix).isNull();
            }
        }
    }

    /**
     * Every acknowledged write of this writer is on {@code node}: a sample of its keys, its last acknowledged key,
     * and a counter between the acknowledged and the sent rounds.
     */
    void assertAcknowledgedOn(TandemNode node) {
        long last = acked.get();
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 5000, 30_000)) {
            for (long n = 1; n <= last; n += Math.max(1, last / 100)) {
                assertThat(jedis.get(prefix + ":" + n)).as("%s:%d on %d", prefix, n, node.port())
                        .isEqualTo(Long.toString(n));
            }
            if (last > 0) {
                assertThat(jedis.get(prefix + ":" + last)).as("%s:%d on %d", prefix, last, node.port())
                        .isEqualTo(Long.toString(last));
            }
            String count = jedis.get(prefix + ":count");
            long c = count == null ? 0 : Long.parseLong(count);
            assertThat(c).as("counter %s on %d", prefix, node.port()).isBetween(countAcked.get(), sent.get());
        }
    }
}
