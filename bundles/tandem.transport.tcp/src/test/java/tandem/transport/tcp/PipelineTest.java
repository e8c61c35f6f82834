package tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import tandem.api.transport.FrameLink;

/**
 * The decoder and the session adapter, installed by {@link TcpTransport#initPipeline} exactly as on a real link,
 * driven through an {@link EmbeddedChannel}: bytes in, session callbacks out.
 */
@Timeout(20)
class PipelineTest {

    private static final int MAX = 1024;

    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final RecordingSession session = new RecordingSession();
    private FrameLink link;

    @AfterEach
    void releaseAll() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    private EmbeddedChannel channel(RecordingSession s) {
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel c) {
                link = TcpTransport.initPipeline(c.pipeline(), MAX, s);
            }
        });
        channels.add(ch);
        return ch;
    }

    private EmbeddedChannel channel() {
        return channel(session);
    }

    private static byte[] payload(Random random, int size) {
        byte[] p = new byte[size];
        random.nextBytes(p);
        return p;
    }

    private static byte[] concat(List<byte[]> payloads) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : payloads) {
            out.writeBytes(RecordingSession.frame(p));
        }
        return out.toByteArray();
    }

    @Test
    void opensOnceWithTheLinkItReturns() {
        EmbeddedChannel ch = channel();
        assertThat(session.opened).hasValue(1);
        assertThat(session.link).isSameAs(link);
        assertThat(link.writable()).isTrue();
        assertThat(ch.pipeline().names()).startsWith("frame-decoder", "frame-session");
    }

    @Test
    void initPipelineOnAnAlreadyActiveChannelOpensAtOnce() {
        EmbeddedChannel ch = new EmbeddedChannel();
        channels.add(ch);
        FrameLink l = TcpTransport.initPipeline(ch.pipeline(), MAX, session);
        assertThat(session.opened).hasValue(1);
        assertThat(session.link).isSameAs(l);
        ch.writeInbound(Unpooled.wrappedBuffer(RecordingSession.frame(new byte[] {7})));
        assertThat(session.frames).containsExactly(new byte[] {7});
    }

    @Test
    void framesFedByteByByteArriveWhole() {
        EmbeddedChannel ch = channel();
        Random random = new Random(1);
        List<byte[]> payloads = List.of(new byte[] {1}, payload(random, 10), payload(random, 300),
                payload(random, MAX));
        for (byte b : concat(payloads)) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertThat(session.frames).containsExactlyElementsOf(payloads);
        assertThat(session.badViews).hasValue(0);
        assertThat(session.closedReasons).isEmpty();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void payloadIsALittleEndianViewPositionedAtTheTag() {
        List<String> seen = new ArrayList<>();
        RecordingSession s = new RecordingSession() {
            @Override
            public void frame(ByteBuffer payload) {
                seen.add(payload.order() + " pos=" + payload.position() + " tag=" + payload.get(payload.position())
                        + " int=" + Integer.toHexString(payload.getInt(payload.position() + 1)));
            }
        };
        EmbeddedChannel ch = channel(s);
        byte[] p = ByteBuffer.allocate(5).order(ByteOrder.LITTLE_ENDIAN).put((byte) 9).putInt(0x01020304).array();
        ch.writeInbound(Unpooled.wrappedBuffer(RecordingSession.frame(p)));
        assertThat(seen).containsExactly("LITTLE_ENDIAN pos=0 tag=9 int=1020304");
    }

    @Test
    void framesFedInRandomFragmentsArriveWholeAndInOrder() {
        EmbeddedChannel ch = channel();
        Random random = new Random(42);
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            payloads.add(payload(random, 1 + random.nextInt(random.nextBoolean() ? 16 : MAX)));
        }
        byte[] stream = concat(payloads);
        for (int at = 0; at < stream.length;) {
            int n = Math.min(stream.length - at, 1 + random.nextInt(random.nextInt(10) == 0 ? 3000 : 40));
            ch.writeInbound(Unpooled.copiedBuffer(stream, at, n));
            at += n;
        }
        assertThat(session.frames).containsExactlyElementsOf(payloads);
        assertThat(session.closedReasons).isEmpty();
    }

    @Test
    void aDeclaredLengthOverTheLimitClosesTheLinkNamingIt() {
        EmbeddedChannel ch = channel();
        byte[] header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(5000).array();
        for (byte b : header) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertThat(ch.isOpen()).isFalse();
        assertThat(session.frames).isEmpty();
        assertThat(session.closedReasons).singleElement().asString().contains("5000").contains("1024");
    }

    @Test
    void aLengthOneOverTheLimitIsRefusedAndTheLimitItselfAccepted() {
        EmbeddedChannel ok = channel();
        ok.writeInbound(Unpooled.wrappedBuffer(RecordingSession.frame(new byte[MAX])));
        assertThat(session.frames).hasSize(1);

        RecordingSession other = new RecordingSession();
        EmbeddedChannel tooLong = channel(other);
        tooLong.writeInbound(Unpooled.wrappedBuffer(RecordingSession.frame(new byte[MAX + 1])));
        assertThat(other.frames).isEmpty();
        assertThat(other.closedReasons).singleElement().asString().contains(Integer.toString(MAX + 1));
    }

    @Test
    void anUnsignedHugeLengthIsRefusedAtOnce() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {-1, -1, -1, -1, 1, 2, 3}));
        assertThat(ch.isOpen()).isFalse();
        assertThat(session.closedReasons).singleElement().asString().contains("4294967295");
    }

    @Test
    void aDeclaredLengthOfZeroClosesTheLink() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 0, 5}));
        assertThat(ch.isOpen()).isFalse();
        assertThat(session.frames).isEmpty();
        assertThat(session.closedReasons).singleElement().asString().contains("empty frame");
    }

    @Test
    void garbageAfterAValidFrameDeliversTheFrameThenCloses() {
        EmbeddedChannel ch = channel();
        byte[] valid = RecordingSession.frame(new byte[] {3, 4, 5});
        ByteBuf in = Unpooled.buffer().writeBytes(valid).writeBytes(new byte[] {-1, -1, -1, 127, 9, 9, 9, 9});
        ch.writeInbound(in);
        assertThat(session.frames).containsExactly(new byte[] {3, 4, 5});
        assertThat(ch.isOpen()).isFalse();
        assertThat(session.closedReasons).singleElement().asString().contains(Long.toString(0x7fffffffL));
    }

    @Test
    void closedIsCalledExactlyOnce() {
        EmbeddedChannel ch = channel();
        link.close("done here");
        link.close("again");
        ch.close();
        ch.runPendingTasks();
        assertThat(session.closedReasons).containsExactly("done here");
    }

    @Test
    void theFirstReasonWins() {
        EmbeddedChannel ch = channel();
        ch.pipeline().fireExceptionCaught(new IOException("first"));
        link.close("second");
        ch.runPendingTasks();
        assertThat(session.closedReasons).containsExactly("first");
    }

    @Test
    void aClosedChannelWithoutAReasonReportsThePeer() {
        EmbeddedChannel ch = channel();
        ch.close();
        assertThat(session.closedReasons).containsExactly("connection closed by peer");
    }

    @Test
    void anExceptionClosesTheLinkWithItsMessage() {
        EmbeddedChannel ch = channel();
        ch.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
        assertThat(ch.isOpen()).isFalse();
        assertThat(session.closedReasons).containsExactly("Connection reset by peer");
    }

    @Test
    void aSessionThrowingFromFrameGetsItsLinkClosed() {
        RecordingSession s = new RecordingSession();
        s.onFrame = (l, f) -> {
            if (f[0] == 2) {
                throw new IllegalStateException("unexpected tag 2");
            }
        };
        EmbeddedChannel ch = channel(s);
        ch.writeInbound(Unpooled.wrappedBuffer(concat(List.of(new byte[] {1}, new byte[] {2}, new byte[] {3}))));
        assertThat(ch.isOpen()).isFalse();
        // the third frame, decoded in the same read, is not delivered to a session that failed
        assertThat(s.frames).containsExactly(new byte[] {1}, new byte[] {2});
        assertThat(s.closedReasons).containsExactly("unexpected tag 2");
    }

    @Test
    void sendCopiesTheRemainingBytesIntoADirectBufferAndFlushes() {
        EmbeddedChannel ch = channel();
        ByteBuffer frames = ByteBuffer.wrap(concat(List.of(new byte[] {1, 2}, new byte[] {3})));
        frames.position(1);
        link.send(frames);
        frames.put(1, (byte) 99); // the caller may reuse its buffer at once
        ByteBuf out = ch.readOutbound();
        try {
            assertThat(out.isDirect()).isTrue();
            byte[] sent = new byte[out.readableBytes()];
            out.readBytes(sent);
            byte[] expected = concat(List.of(new byte[] {1, 2}, new byte[] {3}));
            assertThat(sent).containsExactly(java.util.Arrays.copyOfRange(expected, 1, expected.length));
        } finally {
            out.release();
        }
        assertThat(frames.position()).isEqualTo(1);
    }

    @Test
    void aFrameInSeveralMemoryRegionsIsCopiedIntoOneView() {
        // the decoder's cumulation is contiguous in practice; the adapter alone is fed a composite frame here
        EmbeddedChannel ch = new EmbeddedChannel();
        channels.add(ch);
        ch.pipeline().addLast(new FrameSessionAdapter(session, new NettyFrameLink(ch)));
        for (int round = 0; round < 2; round++) { // the second round reuses the adapter's copy buffer
            io.netty.buffer.CompositeByteBuf frame = Unpooled.compositeBuffer();
            frame.addComponent(true, Unpooled.wrappedBuffer(new byte[] {5, 1, 0}));
            frame.addComponent(true, Unpooled.directBuffer().writeBytes(new byte[] {0, 0, (byte) round}));
            assertThat(frame.nioBufferCount()).isEqualTo(2);
            ch.writeInbound(frame);
            assertThat(frame.refCnt()).isZero();
        }
        assertThat(session.frames).containsExactly(new byte[] {5, 1, 0, 0, 0, 0}, new byte[] {5, 1, 0, 0, 0, 1});
        assertThat(session.badViews).hasValue(0);
    }

    @Test
    void maxFrameIsChecked() {
        EmbeddedChannel ch = new EmbeddedChannel();
        channels.add(ch);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> TcpTransport.initPipeline(ch.pipeline(), 0, session))
                .withMessageContaining("maxFrame=0");
    }
}
