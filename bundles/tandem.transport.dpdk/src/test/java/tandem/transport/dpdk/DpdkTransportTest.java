package tandem.transport.dpdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.osgi.util.converter.Converters;

import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;

/**
 * The DPDK transport's links, listeners and lifecycle over in-memory ports: the same link loop, reliability layer,
 * rendezvous and control sockets as over memif, on any machine. {@code MemifTransportTest} runs the same over real
 * memif ports where DPDK is built.
 */
@Timeout(60)
class DpdkTransportTest {

    private static final int MAX_FRAME = 1 << 20;
    private Path dir;
    private final List<DpdkTransport> transports = new ArrayList<>();

    @BeforeEach
    void dir() throws IOException {
        dir = Files.createTempDirectory("tdpdk");
    }

    @AfterEach
    void stop() throws IOException {
        transports.forEach(DpdkTransport::deactivate);
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    static DpdkTransport.Config config(Path dir, Map<String, Object> extra) {
        Map<String, Object> m = new HashMap<>(Map.of("socket.directory", dir.toString()));
        m.putAll(extra);
        return Converters.standardConverter().convert(m).to(DpdkTransport.Config.class);
    }

    private DpdkTransport transport(MemoryPorts ports, Map<String, Object> extra) {
        DpdkTransport t = new DpdkTransport(config(dir, extra), ports);
        transports.add(t);
        return t;
    }

    @Test
    void framesOfEverySizeCrossBothWaysInOrder() throws Exception {
        exchange(new MemoryPorts(0, null));
    }

    @Test
    void aLossyLinkLosesNothing() throws Exception {
        MemoryPorts lossy = new MemoryPorts(0.05, null);
        DpdkTransport t = exchange(lossy);
        assertThat(t.counters().get("retransmitted")).isPositive();
    }

    private DpdkTransport exchange(MemoryPorts ports) throws Exception {
        DpdkTransport t = transport(ports, Map.of());
        Session server = new Session();
        try (FrameListener l = t.listen("127.0.0.1", 0, MAX_FRAME, () -> server)) {
            Session client = new Session();
            t.connect("127.0.0.1", l.port(), MAX_FRAME, 5000, client);
            FrameLink c = client.awaitOpened();
            FrameLink s = server.awaitOpened();
            Random random = new Random(1);
            List<byte[]> toServer = new ArrayList<>();
            List<byte[]> toClient = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                int size = i % 50 == 0 ? 1 + random.nextInt(MAX_FRAME) : 1 + random.nextInt(3000);
                byte[] f = new byte[size];
                random.nextBytes(f);
                (i % 3 == 0 ? toClient : toServer).add(f);
            }
            for (byte[] f : toServer) {
                c.send(framed(f));
            }
            for (byte[] f : toClient) {
                s.send(framed(f));
            }
            server.awaitFrames(toServer.size());
            client.awaitFrames(toClient.size());
            assertThat(server.frames).containsExactlyElementsOf(toServer);
            assertThat(client.frames).containsExactlyElementsOf(toClient);
            assertThat(server.badViews).isEmpty();
        }
        return t;
    }

    @Test
    void aCloseDeliversTheLastFrameThenTellsThePeer() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, null), Map.of());
        Session server = new Session();
        try (FrameListener l = t.listen("127.0.0.1", 0, MAX_FRAME, () -> server)) {
            Session client = new Session();
            t.connect("127.0.0.1", l.port(), MAX_FRAME, 5000, client);
            client.awaitOpened();
            FrameLink s = server.awaitOpened();
            s.send(framed(new byte[] {9, 9, 9}));
            s.close("refused: wrong epoch");
            assertThat(client.awaitClosed()).isEqualTo(DpdkLink.PEER_CLOSED);
            assertThat(client.frames).containsExactly(new byte[] {9, 9, 9});
            assertThat(server.awaitClosed()).isEqualTo("refused: wrong epoch");
        }
    }

    @Test
    void anOversizedLengthClosesTheLinkWithTheLength() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, null), Map.of());
        Session server = new Session();
        try (FrameListener l = t.listen("127.0.0.1", 0, 100, () -> server)) {
            Session client = new Session();
            t.connect("127.0.0.1", l.port(), 1000, 5000, client);
            client.awaitOpened().send(framed(new byte[101]));
            assertThat(server.awaitClosed()).isEqualTo("frame length 101 exceeds the limit of 100 bytes");
            assertThat(client.awaitClosed()).isEqualTo(DpdkLink.PEER_CLOSED);
            assertThat(server.frames).isEmpty();
        }
    }

    @Test
    void aLengthOfZeroClosesTheLink() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, null), Map.of());
        Session server = new Session();
        try (FrameListener l = t.listen("127.0.0.1", 0, 100, () -> server)) {
            Session client = new Session();
            t.connect("127.0.0.1", l.port(), 1000, 5000, client);
            client.awaitOpened().send(ByteBuffer.allocate(4));
            assertThat(server.awaitClosed()).isEqualTo("empty frame (declared length 0)");
        }
    }

    @Test
    void connectWithoutAListenerSaysSo() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, null), Map.of());
        Session client = new Session();
        t.connect("127.0.0.1", 4242, MAX_FRAME, 1000, client);
        assertThat(client.awaitClosed()).startsWith("connect to 127.0.0.1:4242 failed: no DPDK listener at "
                + dir.resolve("tandem-4242.sock"));
        assertThat(client.opened).isEmpty();
    }

    @Test
    void memifReachesOnlyThisHost() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, null), Map.of());
        Session client = new Session();
        t.connect("192.0.2.7", 4242, MAX_FRAME, 1000, client);
        assertThat(client.awaitClosed()).isEqualTo("connect to 192.0.2.7:4242 failed: memif reaches only "
                + "processes of this host, and 192.0.2.7 is not one of its addresses");
    }

    @Test
    void whereDpdkCannotStartTheTransportSaysWhy() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, "EAL init failed: no memory"), Map.of());
        assertThat(t.unavailableReason()).isEqualTo("EAL init failed: no memory");
        assertThatThrownBy(() -> t.listen("127.0.0.1", 4243, MAX_FRAME, Session::new))
                .isInstanceOf(IOException.class).hasMessage("cannot listen on DPDK port 4243: EAL init failed: no memory");
        Session client = new Session();
        t.connect("127.0.0.1", 4243, MAX_FRAME, 1000, client);
        assertThat(client.awaitClosed()).isEqualTo("connect to 127.0.0.1:4243 failed: EAL init failed: no memory");
    }

    @Test
    void aStaleSocketIsRemovedButALiveOneIsNotStolen() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, null), Map.of());
        Files.createFile(dir.resolve("tandem-4244.sock"));
        try (FrameListener l = t.listen("127.0.0.1", 4244, MAX_FRAME, Session::new)) {
            assertThat(l.port()).isEqualTo(4244);
            assertThatThrownBy(() -> t.listen("127.0.0.1", 4244, MAX_FRAME, Session::new))
                    .isInstanceOf(IOException.class).hasMessageContaining("another process listens there");
        }
        assertThat(dir.resolve("tandem-4244.sock")).doesNotExist();
    }

    @Test
    void closingTheListenerOrStoppingTheTransportClosesItsLinks() throws Exception {
        DpdkTransport t = transport(new MemoryPorts(0, null), Map.of());
        Session server = new Session();
        FrameListener l = t.listen("127.0.0.1", 0, MAX_FRAME, () -> server);
        Session client = new Session();
        t.connect("127.0.0.1", l.port(), MAX_FRAME, 5000, client);
        client.awaitOpened();
        server.awaitOpened();
        l.close();
        assertThat(server.awaitClosed()).isEqualTo(DpdkListener.CLOSED);
        assertThat(client.awaitClosed()).isEqualTo(DpdkLink.PEER_CLOSED);

        Session server2 = new Session();
        FrameListener l2 = t.listen("127.0.0.1", 0, MAX_FRAME, () -> server2);
        Session client2 = new Session();
        t.connect("127.0.0.1", l2.port(), MAX_FRAME, 5000, client2);
        client2.awaitOpened();
        server2.awaitOpened();
        t.deactivate();
        assertThat(server2.awaitClosed()).isEqualTo(DpdkTransport.STOPPED);
        assertThat(client2.awaitClosed()).isEqualTo(DpdkTransport.STOPPED);
        assertThat(t.openLinks()).isZero();
    }

    @Test
    void aSilentPeerIsClosedAfterTheTimeout() throws Exception {
        MemoryPorts ports = new MemoryPorts(0, null);
        DpdkTransport t = transport(ports, Map.of("heartbeat.ms", 10, "peer.timeout.ms", 200));
        Session server = new Session();
        try (FrameListener l = t.listen("127.0.0.1", 0, MAX_FRAME, () -> server)) {
            Session client = new Session();
            t.connect("127.0.0.1", l.port(), MAX_FRAME, 5000, client);
            client.awaitOpened();
            server.awaitOpened();
            ports.dropRate = 1; // the data path goes quiet while both processes live, as a hung peer's would
            // each end times out on its own; the one that closes first is seen closing by the other
            List<String> reasons = List.of(server.awaitClosed(), client.awaitClosed());
            assertThat(reasons).anyMatch(r -> r.startsWith("the peer was silent for"))
                    .allMatch(r -> r.startsWith("the peer was silent for") || r.equals(DpdkLink.PEER_CLOSED));
        }
    }

    static ByteBuffer framed(byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(4 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(payload.length).put(payload).flip();
        return b;
    }

    /** Keeps what the transport told it; payloads are copied, since the buffer is valid only during the call. */
    static final class Session implements FrameSession {
        final List<byte[]> frames = new CopyOnWriteArrayList<>();
        final List<FrameLink> opened = new CopyOnWriteArrayList<>();
        final List<String> badViews = new CopyOnWriteArrayList<>();
        final BlockingQueue<String> closed = new LinkedBlockingQueue<>();

        @Override
        public void opened(FrameLink link) {
            opened.add(link);
        }

        @Override
        public void frame(ByteBuffer payload) {
            if (payload.order() != ByteOrder.LITTLE_ENDIAN) {
                badViews.add("byte order " + payload.order());
            }
            byte[] b = new byte[payload.remaining()];
            payload.duplicate().get(b);
            frames.add(b);
        }

        @Override
        public void closed(String reason) {
            closed.add(reason);
        }

        FrameLink awaitOpened() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (opened.isEmpty()) {
                assertThat(closed.peek()).as("closed before it opened").isNull();
                assertThat(System.nanoTime()).as("opened within 10 s").isLessThan(deadline);
                LockSupport.parkNanos(100_000);
            }
            return opened.get(0);
        }

        void awaitFrames(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (frames.size() < n) {
                assertThat(closed.peek()).as("closed before %d frames arrived", n).isNull();
                assertThat(System.nanoTime()).as("%d frames within 30 s", n).isLessThan(deadline);
                LockSupport.parkNanos(1_000_000);
            }
        }

        String awaitClosed() throws InterruptedException {
            String r = closed.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("closed within 10 s").isNotNull();
            return r;
        }
    }
}
