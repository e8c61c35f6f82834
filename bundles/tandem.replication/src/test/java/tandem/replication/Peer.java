package tandem.replication;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameSession;
import tandem.protocol.replication.Frames;
import tandem.transport.tcp.TcpTransport;

/**
 * The far end of one link: an {@link EmbeddedChannel} carrying the real TCP pipeline
 * ({@link TcpTransport#initPipeline}) for a session under test. The test writes the peer's bytes in and reads the
 * session's frames out.
 *
 * <p>An EmbeddedChannel is not thread-safe and runs every operation on the calling thread, while the sessions send
 * from threads of their own (the primary's sender, the replica's acker). So the session's link is wrapped: every
 * send and close takes this peer's lock, and so does every test access to the channel. In production the same
 * calls from a foreign thread are queued onto the channel's event loop by Netty.
 */
final class Peer implements AutoCloseable {

    static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final ReentrantLock lock = new ReentrantLock();
    private final EmbeddedChannel channel;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final List<byte[]> frames = new ArrayList<>();
    private int cursor;
    private volatile String closedReason;
    private volatile FrameLink link;

    Peer(FrameSession session, int maxFrame) {
        this.channel = new EmbeddedChannel();
        lock.lock();
        try {
            TcpTransport.initPipeline(channel.pipeline(), maxFrame, new Wrapper(session));
        } finally {
            lock.unlock();
        }
    }

    /** The link the session was handed (the locking wrapper). */
    FrameLink link() {
        return link;
    }

    String closedReason() {
        return closedReason;
    }

    boolean isOpen() {
        lock.lock();
        try {
            return channel.isOpen();
        } finally {
            lock.unlock();
        }
    }

    /** Writes bytes as if the peer sent them: in one buffer, or one byte per read. Stops once the link closed. */
    void feed(byte[] bytes, boolean byteByByte) {
        if (!byteByByte) {
            lock.lock();
            try {
                if (channel.isOpen()) {
                    channel.writeInbound(Unpooled.wrappedBuffer(bytes));
                }
            } finally {
                lock.unlock();
            }
            return;
        }
        for (byte b : bytes) {
            lock.lock();
            try {
                if (!channel.isOpen()) {
                    return;
                }
                channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
            } finally {
                lock.unlock();
            }
        }
    }

    /** @return every frame payload the session sent so far (tag first), in order */
    List<byte[]> frames() {
        drain();
        synchronized (frames) {
            return List.copyOf(frames);
        }
    }

    /** @return the tags of every frame sent so far */
    List<Byte> tags() {
        List<Byte> t = new ArrayList<>();
        for (byte[] f : frames()) {
            t.add(f[0]);
        }
        return t;
    }

    /** @return the next frame not yet taken, waiting for it up to the deadline */
    byte[] next() {
        await(() -> {
            drain();
            synchronized (frames) {
                return frames.size() > cursor;
            }
        }, "a frame from the session (got " + tags() + ", " + cursor + " taken)");
        synchronized (frames) {
            return frames.get(cursor++);
        }
    }

    /** @return the next frame with {@code tag}, skipping (and taking) others, e.g. heartbeats */
    byte[] next(byte tag) {
        while (true) {
            byte[] f = next();
            if (f[0] == tag) {
                return f;
            }
        }
    }

    /** @return the next frame, which must have {@code tag} */
    byte[] expect(byte tag) {
        byte[] f = next();
        if (f[0] != tag) {
            throw new AssertionError("expected " + Frames.name(tag) + ", got " + Frames.name(f[0]) + " (all: "
                    + names() + ")");
        }
        return f;
    }

    /** @return how many frames were taken with {@link #next} */
    int taken() {
        return cursor;
    }

    List<String> names() {
        List<String> n = new ArrayList<>();
        for (byte t : tags()) {
            n.add(Frames.name(t));
        }
        return n;
    }

    void awaitClosed() {
        await(() -> closedReason != null, "the link to close (frames " + names() + ")");
    }

    private void drain() {
        lock.lock();
        try {
            ByteBuf b;
            while ((b = channel.readOutbound()) != null) {
                try {
                    byte[] bytes = new byte[b.readableBytes()];
                    b.readBytes(bytes);
                    pending.writeBytes(bytes);
                } finally {
                    b.release();
                }
            }
            byte[] all = pending.toByteArray();
            int p = 0;
            synchronized (frames) {
                while (all.length - p >= Frames.LENGTH_PREFIX) {
                    int len = ByteBuffer.wrap(all, p, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                    if (all.length - p - Frames.LENGTH_PREFIX < len) {
                        break;
                    }
                    frames.add(Arrays.copyOfRange(all, p + 4, p + 4 + len));
                    p += 4 + len;
                }
            }
            pending.reset();
            pending.write(all, p, all.length - p);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            channel.finishAndReleaseAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a condition, failing after {@link #DEADLINE_NANOS}. */
    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Hands the session a link whose every call holds the peer's lock; records the close. */
    private final class Wrapper implements FrameSession {
        private final FrameSession session;

        Wrapper(FrameSession session) {
            this.session = session;
        }

        @Override
        public void opened(FrameLink l) {
            FrameLink locked = new FrameLink() {
                @Override
                public void send(ByteBuffer f) {
                    lock.lock();
                    try {
                        l.send(f);
                    } finally {
                        lock.unlock();
                    }
                }

                @Override
                public boolean writable() {
                    return l.writable();
                }

                @Override
                public void close(String reason) {
                    lock.lock();
                    try {
                        l.close(reason);
                    } finally {
                        lock.unlock();
                    }
                }

                @Override
                public String remoteAddress() {
                    return l.remoteAddress();
                }
            };
            link = locked;
            session.opened(locked);
        }

        @Override
        public void frame(ByteBuffer payload) {
            session.frame(payload);
        }

        @Override
        public void writable() {
            session.writable();
        }

        @Override
        public void closed(String reason) {
            closedReason = reason;
            session.closed(reason);
        }
    }
}
