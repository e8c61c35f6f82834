package tandem.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Loads a keyspace into a Redis-protocol server: {@code --keys} keys {@code snap:<i>}, each with a value of
 * {@code --value-size} pseudo-random bytes drawn from a generator seeded by {@code i}, so that two servers loaded
 * with the same arguments hold the same data (and neither RocksDB nor Redis' RDB can compress it away). SETs are
 * pipelined {@code --pipeline} deep on {@code --connections} connections, each taking every
 * {@code connections}-th key.
 *
 * <pre>
 * java -cp ... tandem.benchmarks.Populate --port 6379 [--host 127.0.0.1] [--keys 1100000] [--value-size 1000]
 *      [--connections 4] [--pipeline 64]
 * </pre>
 *
 * Prints {@code keys bytes seconds} (bytes: keys and values). A plain socket speaking RESP, as
 * {@link ReplicationLatency}: both servers are loaded through the same code.
 */
public final class Populate {

    private Populate() {
    }

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = -1;
        long keys = 1_100_000;
        int valueSize = 1000;
        int connections = 4;
        int pipeline = 64;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--keys" -> keys = Long.parseLong(args[++i]);
                case "--value-size" -> valueSize = Integer.parseInt(args[++i]);
                case "--connections" -> connections = Integer.parseInt(args[++i]);
                case "--pipeline" -> pipeline = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: Populate --port N [--host H] [--keys K] [--value-size S] "
                            + "[--connections C] [--pipeline P]");
                    System.exit(2);
                }
            }
        }
        if (port <= 0 || keys <= 0 || valueSize <= 0 || connections <= 0 || pipeline <= 0) {
            System.err.println("Populate: --port is required; counts must be positive");
            System.exit(2);
        }
        long started = System.nanoTime();
        Thread[] threads = new Thread[connections];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] bytes = new long[connections];
        for (int c = 0; c < connections; c++) {
            int id = c;
            String h = host;
            int p = port;
            long k = keys;
            int vs = valueSize;
            int conns = connections;
            int depth = pipeline;
            threads[c] = new Thread(() -> {
                try {
                    bytes[id] = load(h, p, id, conns, k, vs, depth);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "populate-" + c);
            threads[c].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("populate failed", failure.get());
        }
        long total = 0;
        for (long b : bytes) {
            total += b;
        }
        System.out.printf("%d %d %.1f%n", keys, total, (System.nanoTime() - started) / 1e9);
    }

    private static long load(String host, int port, int id, int connections, long keys, int valueSize, int depth)
            throws IOException {
        long bytes = 0;
        byte[] value = new byte[valueSize];
        byte[] header = ("$" + valueSize + "\r\n").getBytes(StandardCharsets.US_ASCII);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 5000);
            s.setTcpNoDelay(true);
            OutputStream out = new BufferedOutputStream(s.getOutputStream(), 256 * 1024);
            InputStream in = new BufferedInputStream(s.getInputStream(), 64 * 1024);
            int inFlight = 0;
            for (long i = id; i < keys; i += connections) {
                byte[] key = ("snap:" + i).getBytes(StandardCharsets.US_ASCII);
                new SplittableRandom(i).nextBytes(value);
                out.write("*3\r\n$3\r\nSET\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(("$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(key);
                out.write('\r');
                out.write('\n');
                out.write(header);
                out.write(value);
                out.write('\r');
                out.write('\n');
                bytes += key.length + valueSize;
                if (++inFlight == depth) {
                    out.flush();
                    readOks(in, inFlight);
                    inFlight = 0;
                }
            }
            out.flush();
            readOks(in, inFlight);
        }
        return bytes;
    }

    private static void readOks(InputStream in, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) != '\n') {
                if (b < 0) {
                    throw new IOException("the server closed the connection");
                }
                line.append((char) b);
            }
            if (!line.toString().equals("+OK\r")) {
                throw new IOException("unexpected reply to SET: " + line);
            }
        }
    }
}
