package tandem.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The write pause of a hot swap: {@code --clients} threads write {@code SET} one at a time (pipeline depth 1) without
 * end, each write's latency recorded, while the caller swaps bundles and marks each swap on standard input:
 *
 * <pre>
 * begin NAME   the writes completed since the previous mark are the steady state before this swap
 * end          the writes completed since "begin" are the swap's, up to a write that every writer started after
 *              this mark: prints one line (so a write still held by the swap is counted once it ends)
 * quit
 * </pre>
 *
 * <p>Each {@code end} prints {@code NAME steady_p99_us steady_max_us steady_writes pause_us swap_writes errors drops}:
 * the pause is the longest write completed during the swap (a write that started before it and ended inside counts),
 * errors are writes answered with an error, drops are connections that closed (the writer reconnects). Latencies in
 * microseconds (HdrHistogram, 3 significant digits). A closed loop: a stalled write holds its writer, so the pause
 * shows as one long write, which is what a client of the node sees. A swap that closes the connection (the RESP
 * server's restart) loses the reply of the write in flight: the writer reconnects, and its first write answered on
 * the new connection counts from when the lost one was sent, so the pause covers the reconnection too.
 *
 * <pre>
 * java -cp ... tandem.benchmarks.SwapPause --port 6379 [--clients 2] [--value-size 64] [--stall-command CMD]
 * </pre>
 *
 * <p>{@code --stall-command} is run ({@code bash -c}) once for each write still unanswered after 5 s, while it is
 * held: the script passes one that takes the node's thread dump and status, so that a stall can be explained.
 */
public final class SwapPause {

    private static final long HIGHEST_US = TimeUnit.SECONDS.toMicros(120);

    private SwapPause() {
    }

    public static void main(String[] args) throws Exception {
        int port = -1;
        int clients = 2;
        int valueSize = 64;
        String stallCommand = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--value-size" -> valueSize = Integer.parseInt(args[++i]);
                case "--stall-command" -> stallCommand = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (port < 0) {
            throw new IllegalArgumentException("--port is required");
        }
        Recorder recorder = new Recorder(HIGHEST_US, 3);
        AtomicLong errors = new AtomicLong();
        AtomicLong drops = new AtomicLong();
        AtomicLongArray lastStarted = new AtomicLongArray(clients); // start of each writer's last completed write
        AtomicLongArray inFlight = new AtomicLongArray(clients); // start of each writer's write in flight, 0: none
        for (int t = 0; t < clients; t++) {
            int thread = t;
            int p = port;
            int size = valueSize;
            Thread w = new Thread(() -> write(p, thread, size, recorder, errors, drops, lastStarted, inFlight),
                    "swap-writer-" + t);
            w.setDaemon(true);
            w.start();
        }
        if (stallCommand != null) {
            String command = stallCommand;
            Thread watchdog = new Thread(() -> watchStalls(command, inFlight), "swap-stall-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        String name = null;
        Histogram steady = null;
        long errorsAt = 0;
        long dropsAt = 0;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("begin ")) {
                name = line.substring(6).trim();
                steady = recorder.getIntervalHistogram();
                errorsAt = errors.get();
                dropsAt = drops.get();
            } else if (line.equals("end") && steady != null) {
                long mark = System.nanoTime();
                long deadline = mark + TimeUnit.SECONDS.toNanos(120);
                for (int t = 0; t < clients; t++) {
                    while (lastStarted.get(t) - mark < 0 && System.nanoTime() - deadline < 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }
                Histogram swap = recorder.getIntervalHistogram();
                System.out.printf("%s %d %d %d %d %d %d %d%n", name.replace(' ', '_'), steady.getValueAtPercentile(99),
                        steady.getMaxValue(), steady.getTotalCount(), swap.getMaxValue(), swap.getTotalCount(),
                        errors.get() - errorsAt, drops.get() - dropsAt);
                System.out.flush();
                steady = null;
            } else if (line.equals("quit")) {
                break;
            }
        }
    }

    /** Runs {@code command} once for each write unanswered for 5 s, while it is still held. */
    private static void watchStalls(String command, AtomicLongArray inFlight) {
        long[] reported = new long[inFlight.length()];
        while (true) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            for (int t = 0; t < inFlight.length(); t++) {
                long since = inFlight.get(t);
                if (since != 0 && since != reported[t] && System.nanoTime() - since > TimeUnit.SECONDS.toNanos(5)) {
                    reported[t] = since;
                    System.err.printf("writer %d: a write unanswered for 5 s; running the stall command%n", t);
                    try {
                        new ProcessBuilder("bash", "-c", command).inheritIO().start().waitFor();
                    } catch (IOException e) {
                        System.err.println("stall command failed: " + e);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    private static void write(int port, int thread, int valueSize, Recorder recorder, AtomicLong errors,
            AtomicLong drops, AtomicLongArray lastStarted, AtomicLongArray inFlight) {
        int i = 0;
        long lostAt = 0; // when the write whose reply a closed connection lost was sent; 0: none
        while (true) {
            ReplicationLatency.Client c;
            try {
                c = new ReplicationLatency.Client("127.0.0.1", port, thread, valueSize, false);
            } catch (IOException e) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // the listener is not back yet
                continue;
            }
            try (c) {
                while (true) {
                    long sentAt = System.nanoTime();
                    long start = lostAt != 0 ? lostAt : sentAt;
                    inFlight.set(thread, start);
                    try {
                        c.write(i++ % 100_000);
                    } catch (IOException e) {
                        if (e.getMessage() == null || !e.getMessage().startsWith("SET answered")) {
                            throw e;
                        }
                        errors.incrementAndGet(); // answered with an error: the connection stays
                    }
                    inFlight.set(thread, 0);
                    recorder.recordValue(Math.min(HIGHEST_US, (System.nanoTime() - start) / 1000));
                    lastStarted.set(thread, sentAt);
                    lostAt = 0;
                }
            } catch (IOException e) {
                drops.incrementAndGet();
                lostAt = inFlight.get(thread); // the write in flight when it closed (0: none)
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // before reconnecting
            }
        }
    }
}
