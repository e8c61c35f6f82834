package tandem.transport.tcp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameSession;

/**
 * A session that keeps what it was told. Payloads are copied because the transport's buffer is valid only during
 * the call; the byte order and position seen are recorded too, since the contract promises both.
 */
class RecordingSession implements FrameSession {

    final List<byte[]> frames = new CopyOnWriteArrayList<>();
    final List<String> closedReasons = new CopyOnWriteArrayList<>();
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger writableCalls = new AtomicInteger();
    final AtomicInteger badViews = new AtomicInteger();
    final CountDownLatch openedLatch = new CountDownLatch(1);
    final CountDownLatch closedLatch = new CountDownLatch(1);
    final CountDownLatch writableLatch = new CountDownLatch(1);
    volatile FrameLink link;
    volatile CountDownLatch framesLatch = new CountDownLatch(0);
    /** Called for each frame after it is recorded, on the transport thread. */
    volatile BiConsumer<FrameLink, byte[]> onFrame = (l, f) -> {
    };
    /** Called on each writable() callback, on the transport thread. */
    volatile Runnable onWritable = () -> {
    };

    @Override
    public void opened(FrameLink l) {
        link = l;
        opened.incrementAndGet();
        openedLatch.countDown();
    }

    @Override
    public void frame(ByteBuffer payload) {
        if (payload.order() != ByteOrder.LITTLE_ENDIAN) {
            badViews.incrementAndGet();
        }
        byte[] copy = new byte[payload.remaining()];
        payload.get(copy);
        frames.add(copy);
        onFrame.accept(link, copy);
        framesLatch.countDown();
    }

    @Override
    public void writable() {
        writableCalls.incrementAndGet();
        writableLatch.countDown();
        onWritable.run();
    }

    @Override
    public void closed(String reason) {
        closedReasons.add(reason);
        closedLatch.countDown();
    }

    /** {@code [length u32 LE][payload]} */
    static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(4 + payload.length).order(ByteOrder.LITTLE_ENDIAN).putInt(payload.length)
                .put(payload).array();
    }
}
