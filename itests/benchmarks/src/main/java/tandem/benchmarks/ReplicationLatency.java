package tandem.benchmarks;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Write-to-reply latency of a Redis-protocol server, closed loop: {@code --clients} threads, one connection each,
 * each sending {@code SET key:<thread>:<i> <value>} one at a time (pipeline depth 1) and waiting for the reply
 * before the next. With {@code --wait}, each SET is followed by {@code WAIT 1 0} in the same write (the two
 * commands leave in one TCP segment, as a client that wants one replica's acknowledgement would send them), and a
 * write's latency runs from sending the SET to receiving the WAIT's reply: the Redis form of "answered once a
 * replica has it". Each thread first does {@code --warmup} writes that are not recorded; all threads then start the
 * measured {@code --ops} writes together.
 *
 * <p>Prints one line: {@code label ops p50_us p99_us p999_us ops_per_s} (latencies in microseconds from an
 * HdrHistogram with 3 significant digits; ops_per_s is the measured writes over the wall time from the common
 * start to the last thread's end). Diagnostics (max, mean) go to standard error.
 *
 * <pre>
 * java -cp ... tandem.benchmarks.ReplicationLatency --port 6379 [--host 127.0.0.1] [--clients 4] [--ops 5000]
 *      [--warmup 1000] [--value-size 64] [--wait] [--label name]
 * </pre>
 *
 * <p>The client is a plain socket speaking RESP (no client library), so that both servers are measured through the
 * same few lines of code. A closed loop does not correct for coordinated omission: a stall delays the next
 * request instead of showing as many slow ones, so the high percentiles are a lower bound.
 */
public final class ReplicationLatency {

    private static final long HIGHEST_US = TimeUnit.SECONDS.toMicros(60);

    private ReplicationLatency() {
    }

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = -1;
        int clients = 4;
        int ops = 5000;
        int warmup = 1000;
        int valueSize = 64;
        boolean wait = false;
        String label = "run";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--value-size" -> valueSize = Integer.parseInt(args[++i]);
                case "--wait" -> wait = true;
                case "--label" -> label = args[++i];
                default -> {
                    System.err.println("unknown argument: " + a);
                    System.err.println("usage: ReplicationLatency --port N [--host H] [--clients C] [--ops N] "
                            + "[--warmup W] [--value-size S] [--wait] [--label L]");
                    System.exit(2);
                }
            }
        }
        if (port <= 0 || clients <= 0 || ops <= 0 || warmup < 0 || valueSize < 0) {
            System.err.println("ReplicationLatency: --port is required; counts must be positive");
            System.exit(2);
        }

        Recorder recorder = new Recorder(HIGHEST_US, 3);
        CyclicBarrier start = new CyclicBarrier(clients + 1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] ends = new long[clients];
        Thread[] threads = new Thread[clients];
        for (int t = 0; t < clients; t++) {
            Client client = new Client(host, port, t, valueSize, wait);
            int thread = t;
            int warm = warmup;
            int measured = ops;
            threads[t] = new Thread(() -> {
                try (client) {
                    for (int i = 0; i < warm; i++) {
                        client.write(i);
                    }
                    start.await();
                    for (int i = 0; i < measured; i++) {
                        long t0 = System.nanoTime();
                        client.write(warm + i);
                        recorder.recordValue(Math.min(HIGHEST_US, (System.nanoTime() - t0) / 1000));
                    }
                    ends[thread] = System.nanoTime();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    start.reset(); // releases the others if this one failed before the barrier
                }
            }, "client-" + t);
            threads[t].start();
        }
        try {
            start.await();
        } catch (Exception e) {
            // a client failed during warm-up: reported below
        }
        long begin = System.nanoTime();
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            System.err.println("ReplicationLatency: " + label + " failed: " + failure.get());
            failure.get().printStackTrace();
            System.exit(1);
        }
        long end = Arrays.stream(ends).max().orElse(begin);
        Histogram h = recorder.getIntervalHistogram();
        double seconds = (end - begin) / 1e9;
        long total = h.getTotalCount();
        System.err.printf("%s: %d writes, mean %.1f us, max %d us, %.2f s%n", label, total, h.getMean(),
                h.getMaxValue(), seconds);
        System.out.printf("%s %d %d %d %d %.0f%n", label, total, h.getValueAtPercentile(50),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), total / seconds);
    }

    /** One connection; {@link #write} sends one SET (and WAIT 1 0) and reads its reply (replies). */
    static final class Client implements AutoCloseable {

        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private final byte[] keyPrefix;
        private final byte[] valueHeader;
        private final byte[] value;
        private final boolean wait;
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream(256);
        private static final byte[] WAIT = "*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n$1\r\n0\r\n".getBytes(StandardCharsets.US_ASCII);

        Client(String host, int port, int thread, int valueSize, boolean wait) throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 10_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 1024);
            keyPrefix = ("key:" + thread + ":").getBytes(StandardCharsets.US_ASCII);
            value = new byte[valueSize];
            Arrays.fill(value, (byte) 'x');
            valueHeader = ("$" + valueSize + "\r\n").getBytes(StandardCharsets.US_ASCII);
            this.wait = wait;
        }

        void write(int i) throws IOException {
            byte[] key = concat(keyPrefix, Integer.toString(i).getBytes(StandardCharsets.US_ASCII));
            buf.reset();
            ascii("*3\r\n$3\r\nSET\r\n$" + key.length + "\r\n");
            buf.write(key);
            ascii("\r\n");
            buf.write(valueHeader);
            buf.write(value);
            ascii("\r\n");
            if (wait) {
                buf.write(WAIT);
            }
            buf.writeTo(out);
            out.flush();
            String reply = line();
            if (!reply.equals("+OK")) {
                throw new IOException("SET answered " + reply);
            }
            if (wait) {
                reply = line();
                if (!reply.startsWith(":") || Long.parseLong(reply.substring(1)) < 1) {
                    throw new IOException("WAIT 1 0 answered " + reply);
                }
            }
        }

        private void ascii(String s) {
            buf.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
        }

        private static byte[] concat(byte[] a, byte[] b) {
            byte[] r = Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, r, a.length, b.length);
            return r;
        }

        /** One simple reply line without its CRLF. */
        private String line() throws IOException {
            StringBuilder sb = new StringBuilder(8);
            while (true) {
                int c = in.read();
                if (c < 0) {
                    throw new IOException("connection closed by the server");
                }
                if (c == '\r') {
                    if (in.read() != '\n') {
                        throw new IOException("malformed reply: " + sb);
                    }
                    return sb.toString();
                }
                sb.append((char) c);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
