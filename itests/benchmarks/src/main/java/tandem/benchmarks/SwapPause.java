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
 * shows as one long write, which is what a client of the node sees.
 *
 * <pre>
 * java -cp ... tandem.benchmarks.SwapPause --port 6379 [--clients 2] [--value-size 64]
 * </pre>
 */
public final class SwapPause {

    private static final long HIGHEST_US = TimeUnit.SECONDS.toMicros(120);

    private SwapPause() {
    }

    public static void main(String[] args) throws Exception {
        int port = -1;
        int clients = 2;
        int valueSize = 64;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--value-size" -> valueSize = Integer.parseInt(args[++i]);
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
        for (int t = 0; t < clients; t++) {
            int thread = t;
            int p = port;
            int size = valueSize;
            Thread w = new Thread(() -> write(p, thread, size, recorder, errors, drops, lastStarted),
                    "swap-writer-" + t);
            w.setDaemon(true);
            w.start();
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

    private static void write(int port, int thread, int valueSize, Recorder recorder, AtomicLong errors,
            AtomicLong drops, AtomicLongArray lastStarted) {
        int i = 0;
        while (true) {
            try (ReplicationLatency.Client c = new ReplicationLatency.Client("127.0.0.1", port, thread, valueSize,
                    false)) {
                while (true) {
                    long start = System.nanoTime();
                    try {
                        c.write(i++ % 100_000);
                    } catch (IOException e) {
                        if (e.getMessage() == null || !e.getMessage().startsWith("SET answered")) {
                            throw e;
                        }
                        errors.incrementAndGet(); // answered with an error: the connection stays
                    }
                    recorder.recordValue(Math.min(HIGHEST_US, (System.nanoTime() - start) / 1000));
                    lastStarted.set(thread, start);
                }
            } catch (IOException e) {
                drops.incrementAndGet();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // before reconnecting
            }
        }
    }
}
