package tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.osgi.util.converter.Converters;

import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameListener;

/** The transport over real loopback sockets: listen, connect, frames both ways, back-pressure and shutdown. */
@Timeout(60)
class TcpTransportTest {

    private static final int MAX = 64 * 1024;

    private final List<TcpTransport> transports = new ArrayList<>();

    @AfterEach
    void stopAll() {
        transports.forEach(TcpTransport::deactivate);
    }

    static TcpTransport.Config config(Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return Converters.standardConverter().convert(props).to(TcpTransport.Config.class);
    }

    private TcpTransport transport(boolean allowEpoll, Object... keyValues) {
        TcpTransport t = new TcpTransport(config(keyValues), allowEpoll);
        transports.add(t);
        return t;
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertThat(latch.await(20, TimeUnit.SECONDS)).as(what).isTrue();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void tenThousandFramesBothWaysInOrder(boolean allowEpoll) throws Exception {
        TcpTransport t = transport(allowEpoll);
        int count = 10_000;
        RecordingSession server = new RecordingSession();
        server.framesLatch = new CountDownLatch(count);
        // the server echoes each frame, so the client's frames cross the link both ways
        server.onFrame = (link, payload) -> link.send(ByteBuffer.wrap(RecordingSession.frame(payload)));
        FrameListener listener = t.listen("127.0.0.1", 0, MAX, () -> server);
        assertThat(listener.port()).isPositive();

        RecordingSession client = new RecordingSession();
        client.framesLatch = new CountDownLatch(count);
        t.connect("127.0.0.1", listener.port(), MAX, 5000, client);
        await(client.openedLatch, "client opened");
        FrameLink link = client.link;
        assertThat(link.remoteAddress()).isEqualTo("127.0.0.1:" + listener.port());

        Random random = new Random(7);
        List<byte[]> sent = new ArrayList<>();
        ByteBuffer batch = ByteBuffer.allocate(4 * MAX).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            int size = switch (random.nextInt(10)) {
                case 0 -> MAX - random.nextInt(1000);
                case 1, 2, 3 -> 5 + random.nextInt(4000);
                default -> 5 + random.nextInt(60);
            };
            byte[] p = new byte[size];
            random.nextBytes(p);
            ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).put((byte) 1).putInt(i);
            sent.add(p);
            if (batch.remaining() < 4 + size) {
                send(link, client, batch);
            }
            batch.putInt(size).put(p);
            if (random.nextInt(4) == 0) { // sometimes one frame per send, sometimes several
                send(link, client, batch);
            }
        }
        send(link, client, batch);

        await(server.framesLatch, "server received every frame");
        await(client.framesLatch, "client received every echo");
        assertThat(server.frames).containsExactlyElementsOf(sent);
        assertThat(client.frames).containsExactlyElementsOf(sent);
        assertThat(server.badViews).hasValue(0);
        assertThat(client.badViews).hasValue(0);
        assertThat(server.link.remoteAddress()).startsWith("127.0.0.1:");

        listener.close();
        await(server.closedLatch, "accepted link closed with its listener");
        await(client.closedLatch, "client sees the close");
        assertThat(server.closedReasons).containsExactly("listener closed");
        assertThat(client.closedReasons).containsExactly(FrameSessionAdapter.PEER_CLOSED);
    }

    /** Sends what {@code batch} holds, first waiting while the link is over its high-water mark. */
    private static void send(FrameLink link, RecordingSession session, ByteBuffer batch) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!link.writable()) {
            CountDownLatch signal = new CountDownLatch(1);
            session.onWritable = signal::countDown;
            if (!link.writable()) {
                signal.await(50, TimeUnit.MILLISECONDS); // the callback may have fired before it was set
            }
            assertThat(System.nanoTime()).as("link writable again in time").isLessThan(deadline);
        }
        batch.flip();
        link.send(batch);
        batch.clear();
    }

    @Test
    void closingTheListenerReleasesThePortAndClosesItsLinks() throws Exception {
        TcpTransport t = transport(true);
        RecordingSession server = new RecordingSession();
        FrameListener listener = t.listen("127.0.0.1", 0, MAX, () -> server);
        int port = listener.port();
        RecordingSession client = new RecordingSession();
        t.connect("127.0.0.1", port, MAX, 5000, client);
        await(server.openedLatch, "accepted");
        listener.close();
        await(server.closedLatch, "accepted link closed");
        // the port is free again as soon as close returned
        try (ServerSocket again = new ServerSocket()) {
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        }
        listener.close(); // idempotent
    }

    @Test
    void connectingToAClosedPortReportsWhy() throws Exception {
        TcpTransport t = transport(true);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        RecordingSession client = new RecordingSession();
        t.connect("127.0.0.1", port, MAX, 5000, client);
        await(client.closedLatch, "connect failure reported");
        assertThat(client.opened).hasValue(0);
        assertThat(client.closedReasons).singleElement().asString()
                .startsWith("connect to 127.0.0.1:" + port + " failed: ");
    }

    @Test
    void hostNamesAreRefusedWithoutALookup() throws Exception {
        TcpTransport t = transport(true);
        RecordingSession client = new RecordingSession();
        t.connect("localhost", 6380, MAX, 5000, client);
        await(client.closedLatch, "refusal reported");
        assertThat(client.closedReasons).singleElement().asString()
                .contains("connect to localhost:6380 failed").contains("host names are refused");
        assertThatThrownBy(() -> t.listen("example.invalid", 0, MAX, RecordingSession::new))
                .isInstanceOf(UnknownHostException.class).hasMessageContaining("example.invalid");
    }

    @Test
    void listeningOnAPortInUseFails() throws Exception {
        TcpTransport t = transport(true);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> t.listen("127.0.0.1", taken.getLocalPort(), MAX, RecordingSession::new))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void aPeerThatDoesNotReadMakesTheLinkUnwritableUntilItDoes() throws Exception {
        TcpTransport t = transport(true, "write.buffer.high.bytes", 64 * 1024, "write.buffer.low.bytes", 16 * 1024);
        int frameSize = 16 * 1024;
        AtomicLong sentBytes = new AtomicLong();
        AtomicBoolean sawUnwritable = new AtomicBoolean();
        CountDownLatch flooded = new CountDownLatch(1);
        RecordingSession server = new RecordingSession() {
            @Override
            public void opened(FrameLink l) {
                super.opened(l);
                // the peer reads nothing yet: the kernel buffers fill, then the transport's own
                byte[] frame = RecordingSession.frame(new byte[frameSize]);
                while (l.writable() && sentBytes.get() < 256L * 1024 * 1024) {
                    l.send(ByteBuffer.wrap(frame));
                    sentBytes.addAndGet(frame.length);
                }
                sawUnwritable.set(!l.writable());
                flooded.countDown();
            }
        };
        FrameListener listener = t.listen("127.0.0.1", 0, MAX, () -> server);
        try (Socket peer = new Socket()) {
            peer.setReceiveBufferSize(8 * 1024);
            peer.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.port()), 5000);
            await(flooded, "flood done");
            assertThat(sawUnwritable).isTrue();

            DataInputStream in = new DataInputStream(peer.getInputStream());
            byte[] header = new byte[4];
            byte[] body = new byte[frameSize];
            for (long read = 0; read < sentBytes.get(); read += 4 + frameSize) {
                in.readFully(header);
                assertThat(ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(frameSize);
                in.readFully(body);
            }
            await(server.writableLatch, "writable again once the peer read");
            assertThat(server.link.writable()).isTrue();
        }
    }

    @Test
    void deactivationClosesEveryLinkQuickly() throws Exception {
        TcpTransport t = new TcpTransport(config(), true);
        List<RecordingSession> accepted = new CopyOnWriteArrayList<>();
        CountDownLatch acceptedOpened = new CountDownLatch(2);
        FrameListener listener = t.listen("127.0.0.1", 0, MAX, () -> {
            RecordingSession s = new RecordingSession() {
                @Override
                public void opened(FrameLink l) {
                    super.opened(l);
                    acceptedOpened.countDown();
                }
            };
            accepted.add(s);
            return s;
        });
        RecordingSession a = new RecordingSession();
        RecordingSession b = new RecordingSession();
        t.connect("127.0.0.1", listener.port(), MAX, 5000, a);
        t.connect("127.0.0.1", listener.port(), MAX, 5000, b);
        await(a.openedLatch, "a opened");
        await(b.openedLatch, "b opened");
        await(acceptedOpened, "both links accepted");
        assertThat(t.openLinks()).isEqualTo(4);

        long start = System.nanoTime();
        t.deactivate();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(millis).as("deactivate took %d ms", millis).isLessThan(3000);

        List<RecordingSession> all = new ArrayList<>(accepted);
        all.add(a);
        all.add(b);
        assertThat(all).hasSize(4);
        for (RecordingSession s : all) {
            assertThat(s.closedLatch.await(0, TimeUnit.SECONDS)).as("closed when deactivate returned").isTrue();
            assertThat(s.closedReasons).containsExactly(TcpTransport.STOPPED);
        }
        assertThat(t.openLinks()).isZero();

        RecordingSession late = new RecordingSession();
        t.connect("127.0.0.1", listener.port(), MAX, 5000, late);
        await(late.closedLatch, "a connect after deactivation is refused");
        assertThat(late.closedReasons).singleElement().asString().contains(TcpTransport.STOPPED);
        assertThatThrownBy(() -> t.listen("127.0.0.1", 0, MAX, RecordingSession::new))
                .isInstanceOf(IOException.class).hasMessageContaining(TcpTransport.STOPPED);
    }

    @Test
    void aSessionSupplierThatFailsRefusesTheLink() throws Exception {
        TcpTransport t = transport(true);
        FrameListener listener = t.listen("127.0.0.1", 0, MAX, () -> {
            throw new IllegalStateException("no replica slot");
        });
        RecordingSession client = new RecordingSession();
        t.connect("127.0.0.1", listener.port(), MAX, 5000, client);
        await(client.closedLatch, "refused link closed");
        assertThat(client.closedReasons).containsExactly(FrameSessionAdapter.PEER_CLOSED);
    }

    @Test
    void anInvalidChangeIsRefusedAndALiveOneApplies() throws Exception {
        TcpTransport t = transport(true);
        assertThat(t.name()).isEqualTo("tcp");
        RecordingSession server = new RecordingSession();
        FrameListener listener = t.listen("127.0.0.1", 0, MAX, () -> server);
        RecordingSession client = new RecordingSession();
        t.connect("127.0.0.1", listener.port(), MAX, 5000, client);
        await(server.openedLatch, "accepted");
        t.modified(config("write.buffer.high.bytes", 2048, "write.buffer.low.bytes", 4096));
        io.netty.channel.ChannelConfig open = ((NettyFrameLink) server.link).channel().config();
        assertThat(open.getWriteBufferHighWaterMark()).isEqualTo(4 * 1024 * 1024);
        t.modified(config("write.buffer.high.bytes", 8192, "write.buffer.low.bytes", 2048, "tcp.nodelay", false));
        assertThat(open.getWriteBufferHighWaterMark()).isEqualTo(8192);
        assertThat(open.getWriteBufferLowWaterMark()).isEqualTo(2048);
        assertThat(open.getOption(io.netty.channel.ChannelOption.TCP_NODELAY)).isFalse();
    }
}
