package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import tandem.testsupport.Await;

/**
 * A client that writes its own keys {@code <prefix>:<n>} = n and increments its own counter {@code <prefix>:count}
 * in a loop, on a real Jedis connection: {@code acked} is the last n answered OK, and since each round's SET is
 * answered before its INCR is sent, after a crash the counter holds at least the acknowledged rounds and at most
 * those sent.
 *
 * <p>A writer {@linkplain #startReconnecting reconnecting} outlives its connection: when the node closes it (its
 * RESP server restarts), the writer connects again and goes on with the next round. A write whose reply the
 * closed connection lost is neither acknowledged nor known to be absent; {@code drops} counts those connections.
 */
final class Writer implements Runnable {

    /** How long a reconnecting writer keeps trying to connect before it fails. */
    private static final Duration RECONNECT_DEADLINE = Duration.ofSeconds(60);

    final String prefix;
    final AtomicLong acked = new AtomicLong();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong countAcked = new AtomicLong();
    /** The INCRs sent: the counter never exceeds it. */
    final AtomicLong countSent = new AtomicLong();
    /** The longest write, from sending it to its reply (a reconnecting writer: to the next acknowledged write). */
    final AtomicLong slowestNanos = new AtomicLong();
    /** Connections the node closed under a reconnecting writer. */
    final AtomicLong drops = new AtomicLong();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final IntSupplier port;
    private final boolean reconnect;
    /** Rounds whose SET reply a dropped connection lost (the write may or may not have been applied). */
    private final Set<Long> unanswered = ConcurrentHashMap.newKeySet();
    private volatile boolean stop;
    /** When the writer's latest command was sent (its thread's own). */
    private long lastSentAt;
    /**
     * A reconnecting writer: when the command whose reply a dropped connection lost was sent, until a write is
     * answered again (0: none lost); that write's wait counts from there.
     */
    private long lostAt;
    private Thread thread;

    Writer(String prefix, IntSupplier port) {
        this(prefix, port, false);
    }

    private Writer(String prefix, IntSupplier port, boolean reconnect) {
        this.prefix = prefix;
        this.port = port;
        this.reconnect = reconnect;
    }

    /** Writers whose connection must not drop: any error ends them with a failure. */
    static List<Writer> start(String tag, int n, IntSupplier port) {
        return start(tag, n, port, false);
    }

    /** Writers that connect again when the node closes their connection, and go on. */
    static List<Writer> startReconnecting(String tag, int n, IntSupplier port) {
        return start(tag, n, port, true);
    }

    private static List<Writer> start(String tag, int n, IntSupplier port, boolean reconnect) {
        List<Writer> ws = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Writer w = new Writer(tag + i, port, reconnect);
            w.thread = new Thread(w, "writer-" + w.prefix);
            w.thread.start();
            ws.add(w);
        }
        return ws;
    }

    @Override
    public void run() {
        try {
            while (!stop) {
                try (Jedis jedis = connect()) {
                    write(jedis);
                    return;
                } catch (JedisConnectionException e) {
                    if (!reconnect || e.getCause() instanceof SocketTimeoutException) {
                        throw e; // a reply that never came is a stall, not a closed connection
                    }
                    drops.incrementAndGet();
                    lostAt = lostAt != 0 ? lostAt : lastSentAt;
                }
            }
        } catch (Throwable t) {
            failure.set(t);
        }
    }

    private Jedis connect() {
        if (!reconnect) {
            return new Jedis("127.0.0.1", port.getAsInt(), 5000, 60_000);
        }
        Jedis[] connected = new Jedis[1];
        Await.until(prefix + " connects again", RECONNECT_DEADLINE, Duration.ofMillis(20), () -> {
            try {
                connected[0] = new Jedis("127.0.0.1", port.getAsInt(), 5000, 60_000); // connects
                return true;
            } catch (JedisConnectionException e) {
                return false; // the listener is not back yet
            }
        });
        return connected[0];
    }

    /** Writes rounds until stopped, or until the connection drops (by exception). */
    private void write(Jedis jedis) {
        while (!stop) {
            long n = sent.incrementAndGet();
            lastSentAt = System.nanoTime();
            long started = lostAt != 0 ? lostAt : lastSentAt;
            unanswered.add(n);
            String reply = jedis.set(prefix + ":" + n, Long.toString(n));
            slowestNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
            lostAt = 0;
            assertThat(reply).isEqualTo("OK");
            unanswered.remove(n);
            acked.set(n);
            countSent.incrementAndGet();
            lastSentAt = System.nanoTime();
            countAcked.set(jedis.incr(prefix + ":count"));
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
                if (unanswered.contains(n)) {
                    continue; // its reply was lost with its connection: it may or may not be there
                }
                assertThat(jedis.get(prefix + ":" + n)).as("%s:%d on %d", prefix, n, node.port())
                        .isEqualTo(Long.toString(n));
            }
            if (last > 0) {
                assertThat(jedis.get(prefix + ":" + last)).as("%s:%d on %d", prefix, last, node.port())
                        .isEqualTo(Long.toString(last));
            }
            String count = jedis.get(prefix + ":count");
            long c = count == null ? 0 : Long.parseLong(count);
            assertThat(c).as("counter %s on %d", prefix, node.port()).isBetween(countAcked.get(), countSent.get());
        }
    }
}
