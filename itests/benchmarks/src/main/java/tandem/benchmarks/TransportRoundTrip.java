package tandem.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.osgi.util.converter.Converters;

import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;
import tandem.dpdk.DpdkRuntime;
import tandem.dpdk.internal.DpdkRuntimeComponent;
import tandem.transport.dpdk.DpdkTransport;
import tandem.transport.tcp.TcpTransport;

/**
 * The replication transports side by side in one JVM, through the {@link FrameTransport} contract the journal
 * protocol uses: TCP (Netty, epoll) and DPDK memif with each wait strategy (busy-spin, spin-then-yield, back-off).
 * Both ends of each link live in this process (for DPDK on one EAL, as two nodes of a host each have their own).
 *
 * <ul>
 *   <li><b>Round trip</b>: a frame of 64 and of 1024 bytes sent, echoed by the other end, received; {@code --ops}
 *       times after {@code --warmup}, driven from the transports' own threads (the next ping leaves from the
 *       callback that received the echo), HdrHistogram in microseconds.</li>
 *   <li><b>Throughput</b>: 16 KiB frames one way for {@code --bulk-seconds}, as fast as the link stays writable;
 *       MB/s received, and the CPU the process used meanwhile (cores: CPU time over wall time).</li>
 *   <li><b>Idle cost</b>: the CPU the process uses with the link open and nothing to send, for
 *       {@code --idle-seconds}.</li>
 * </ul>
 *
 * Prints one line per measurement: {@code rtt <transport> <bytes> <p50_us> <p99_us> <p999_us>},
 * {@code bulk <transport> <MB/s> <cores>}, {@code idle <transport> <cores>}.
 */
public final class TransportRoundTrip {

    private static final int MAX_FRAME = 1 << 20;
    private static final int BULK_FRAME = 16 * 1024;

    private TransportRoundTrip() {
    }

    public static void main(String[] args) throws Exception {
        int ops = 20_000;
        int warmup = 5_000;
        int bulkSeconds = 3;
        int idleSeconds = 3;
        String only = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--bulk-seconds" -> bulkSeconds = Integer.parseInt(args[++i]);
                case "--idle-seconds" -> idleSeconds = Integer.parseInt(args[++i]);
                case "--only" -> only = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Map<String, FrameTransport> transports = new LinkedHashMap<>();
        transports.put("tcp", new TcpTransport(config(TcpTransport.Config.class, Map.of())));
        DpdkRuntime runtime = new DpdkRuntimeComponent(config(DpdkRuntimeComponent.Config.class, Map.of()));
        if (runtime.unavailableReason() != null) {
            throw new IllegalStateException("DPDK is unavailable: " + runtime.unavailableReason());
        }
        String dir = System.getProperty("java.io.tmpdir") + "/tandem-dpdk-bench-" + ProcessHandle.current().pid();
        for (String wait : List.of("busy-spin", "spin-then-yield", "back-off")) {
            transports.put("dpdk-" + wait, new DpdkTransport(config(DpdkTransport.Config.class,
                    Map.of("wait.strategy", wait, "socket.directory", dir)), runtime));
        }
        int port = 47000 + (int) (ProcessHandle.current().pid() % 1000);
        for (Map.Entry<String, FrameTransport> e : transports.entrySet()) {
            if (!e.getKey().matches(only.isEmpty() ? ".*" : only)) {
                continue;
            }
            for (int size : new int[] {64, 1024}) {
                Histogram h = roundTrips(e.getValue(), port++, size, warmup, ops);
                System.out.printf("rtt %s %d %.1f %.1f %.1f%n", e.getKey(), size, h.getValueAtPercentile(50) / 1e3,
                        h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3);
            }
            bulkAndIdle(e.getKey(), e.getValue(), port++, bulkSeconds, idleSeconds);
        }
        System.exit(0); // the transports' threads are not daemons everywhere; a benchmark run simply ends
    }

    private static <T> T config(Class<T> type, Map<String, Object> values) {
        return Converters.standardConverter().convert(values).to(type);
    }

    private static ByteBuffer framed(int size) {
        ByteBuffer b = ByteBuffer.allocateDirect(4 + size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(size);
        for (int i = 0; i < size; i++) {
            b.put((byte) i);
        }
        return b.flip();
    }

    /** One link through {@code t}: {@code server} answers, {@code client} starts; returns once both opened. */
    private static FrameListener link(FrameTransport t, int port, FrameSession server, FrameSession client,
            CountDownLatch opened) throws Exception {
        FrameListener l = t.listen("127.0.0.1", port, MAX_FRAME, () -> server);
        t.connect("127.0.0.1", l.port(), MAX_FRAME, 5000, client);
        if (!opened.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(t.name() + ": the link did not open");
        }
        return l;
    }

    private static Histogram roundTrips(FrameTransport t, int port, int size, int warmup, int ops)
            throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        CountDownLatch opened = new CountDownLatch(2);
        CountDownLatch done = new CountDownLatch(1);
        FrameSession echo = new Session(opened) {
            private final ByteBuffer reply = framed(size);

            @Override
            public void frame(ByteBuffer payload) {
                link.send(reply.duplicate());
            }
        };
        FrameSession pinger = new Session(opened) {
            private final ByteBuffer ping = framed(size);
            private long sentAt;
            private int count;

            @Override
            public void opened(FrameLink l) {
                super.opened(l);
                sentAt = System.nanoTime();
                l.send(ping.duplicate());
            }

            @Override
            public void frame(ByteBuffer payload) {
                long now = System.nanoTime();
                if (++count > warmup) {
                    h.recordValue(Math.min(now - sentAt, TimeUnit.SECONDS.toNanos(10)));
                }
                if (count == warmup + ops) {
                    done.countDown();
                    return;
                }
                sentAt = System.nanoTime();
                link.send(ping.duplicate());
            }
        };
        try (FrameListener l = link(t, port, echo, pinger, opened)) {
            if (!done.await(300, TimeUnit.SECONDS)) {
                throw new IllegalStateException(t.name() + ": round trips did not finish");
            }
            ((Session) pinger).link.close("done");
        }
        return h;
    }

    private static void bulkAndIdle(String label, FrameTransport t, int port, int bulkSeconds, int idleSeconds)
            throws Exception {
        AtomicLong received = new AtomicLong();
        CountDownLatch opened = new CountDownLatch(2);
        FrameSession sink = new Session(opened) {
            @Override
            public void frame(ByteBuffer payload) {
                received.addAndGet(payload.remaining());
            }
        };
        Session source = new Session(opened);
        try (FrameListener l = link(t, port, sink, source, opened)) {
            ByteBuffer frame = framed(BULK_FRAME);
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            long r0 = received.get();
            long end = t0 + TimeUnit.SECONDS.toNanos(bulkSeconds);
            while (System.nanoTime() < end) {
                if (source.link.writable()) {
                    source.link.send(frame.duplicate());
                } else {
                    LockSupport.parkNanos(20_000);
                }
            }
            long bytes = received.get() - r0;
            long wall = System.nanoTime() - t0;
            double cores = (os.getProcessCpuTime() - cpu0) / (double) wall;
            System.out.printf("bulk %s %.0f %.2f%n", label, bytes / (wall / 1e9) / 1e6, cores);
            // let what is queued drain before the idle measurement
            long drainEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long last = -1;
            while (received.get() != last && System.nanoTime() < drainEnd) {
                last = received.get();
                LockSupport.parkNanos(200_000_000L);
            }
            cpu0 = os.getProcessCpuTime();
            t0 = System.nanoTime();
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(idleSeconds));
            cores = (os.getProcessCpuTime() - cpu0) / (double) (System.nanoTime() - t0);
            System.out.printf("idle %s %.2f%n", label, cores);
            source.link.close("done");
        }
    }

    /** Keeps its link and counts the opening. */
    private static class Session implements FrameSession {
        private final CountDownLatch opened;
        volatile FrameLink link;

        Session(CountDownLatch opened) {
            this.opened = opened;
        }

        @Override
        public void opened(FrameLink l) {
            link = l;
            opened.countDown();
        }

        @Override
        public void frame(ByteBuffer payload) {
        }

        @Override
        public void closed(String reason) {
        }
    }
}
