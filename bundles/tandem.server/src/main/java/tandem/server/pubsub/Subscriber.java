package tandem.server.pubsub;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * One connection as publishers see it: the subscriptions in effect (its event loop's alone) and its mailbox, which
 * any publishing thread fills and the event loop drains into the socket.
 *
 * <p>A publisher takes the mailbox's lock only to queue a shared frame; the event loop takes it only to swap the
 * queue for an empty one, and writes outside it. So messages of one publisher arrive in the order it published
 * them, and the steady state allocates nothing per message and subscriber: two queues take turns, and a written
 * frame is a pooled duplicate.
 *
 * <p>The subscriber's unsent output (its mailbox and the channel's outbound buffer) is held to
 * {@code client-output-buffer-limit pubsub}: past the hard limit, or over the soft limit for its seconds, the
 * connection is closed, the reason logged, and what it had queued is dropped, so a subscriber that does not read
 * cannot exhaust the node's memory.
 */
public final class Subscriber {

    private static final Logger LOG = System.getLogger("tandem.server");
    /** What a RESP3 connection reads instead of a frame's first byte, {@code *}: the frame is a push. */
    private static final ByteBuf PUSH = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[] {'>'}));

    private final Channel channel;
    private final String client;
    private final PubSubRegistry registry;
    /** 2 or 3: the connection's protocol now (HELLO may change it while subscribed). */
    private final java.util.function.IntSupplier protocol;
    /** The subscriptions in effect: their confirmations have been written. The event loop's alone. */
    final Map<Kind, Set<Name>> effective = new EnumMap<>(Kind.class);

    private final Object lock = new Object();
    private ArrayDeque<Delivery> queue = new ArrayDeque<>();
    private ArrayDeque<Delivery> spare = new ArrayDeque<>();
    private long queuedBytes;
    private boolean scheduled;
    private boolean closed;
    /** When the output went over the soft limit (System.nanoTime), 0 while under it. */
    private long overSoftSince;
    private final Runnable drain = this::drain;
    private final Runnable recheck = this::recheck;

    /**
     * @param client the connection as logs name it ({@code id=5 addr=127.0.0.1:40000})
     */
    public Subscriber(Channel channel, String client, PubSubRegistry registry,
            java.util.function.IntSupplier protocol) {
        this.channel = channel;
        this.client = client;
        this.registry = registry;
        this.protocol = protocol;
        for (Kind kind : Kind.values()) {
            effective.put(kind, new HashSet<>());
        }
    }

    /** @return whether any subscription is in effect; the event loop's */
    boolean subscribed() {
        for (Set<Name> names : effective.values()) {
            if (!names.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Queues {@code d} for the event loop to write; any thread.
     *
     * @return false when the subscriber is closed, or has just been closed for its output buffer limit
     */
    boolean offer(Delivery d) {
        String over;
        boolean schedule = false;
        synchronized (lock) {
            if (closed) {
                return false;
            }
            int size = d.frame().readableBytes();
            over = exceeded(queuedBytes + size);
            if (over == null) {
                d.frame().retain();
                queue.add(d);
                queuedBytes += size;
                schedule = !scheduled;
                scheduled = true;
            }
        }
        if (over != null) {
            close(over);
            return false;
        }
        if (schedule) {
            if (channel.eventLoop().inEventLoop()) {
                drain(); // published on the subscriber's own event loop: no lock is held here
            } else {
                channel.eventLoop().execute(drain);
            }
        }
        return true;
    }

    /**
     * Queues a frame written as it is, whatever the subscriptions (an invalidation of client-side caching); any
     * thread. The frame is retained, not released.
     *
     * @return false when the subscriber is closed
     */
    public boolean push(ByteBuf frame) {
        return offer(new Delivery(null, null, frame));
    }

    /** Writes what the mailbox holds, for the subscriptions still in effect; on the event loop. */
    void drain() {
        ArrayDeque<Delivery> batch;
        synchronized (lock) {
            batch = queue;
            queue = spare;
            spare = batch;
            queuedBytes = 0;
            scheduled = false;
        }
        boolean wrote = false;
        for (Delivery d = batch.poll(); d != null; d = batch.poll()) {
            try {
                // a monitor's line (no kind) goes as it is; a message only for a subscription still in effect
                if (channel.isActive() && (d.kind() == null || effective.get(d.kind()).contains(d.name()))) {
                    ByteBuf frame = d.frame();
                    if (d.kind() != null && protocol.getAsInt() == 3) {
                        // frames are shared RESP2 arrays: a push differs only in its first byte
                        channel.write(PUSH.duplicate(), channel.voidPromise());
                        channel.write(frame.retainedSlice(frame.readerIndex() + 1, frame.readableBytes() - 1),
                                channel.voidPromise());
                    } else {
                        channel.write(frame.retainedDuplicate(), channel.voidPromise());
                    }
                    wrote = true;
                }
            } finally {
                d.frame().release();
            }
        }
        if (wrote) {
            channel.flush();
            String over;
            synchronized (lock) {
                over = closed ? null : exceeded(queuedBytes);
            }
            if (over != null) {
                close(over);
            }
        }
    }

    /** The soft limit's time may have run out with nothing published since: look again. */
    private void recheck() {
        String over;
        synchronized (lock) {
            over = closed ? null : exceeded(queuedBytes);
        }
        if (over != null) {
            close(over);
        }
    }

    /**
     * @param queued what the mailbox would hold
     * @return why the connection must close, or null; keeps the time the soft limit was first passed (under the
     *         lock), and asks to look again when that time runs out
     */
    private String exceeded(long queued) {
        OutputLimit limit = registry.limit();
        long bytes = queued + pending();
        long now = System.nanoTime();
        if (!limit.overSoft(bytes)) {
            overSoftSince = 0;
        } else if (overSoftSince == 0) {
            overSoftSince = now;
            channel.eventLoop().schedule(recheck, limit.softSeconds() * 1000L + 1, TimeUnit.MILLISECONDS);
        }
        return limit.exceeded(bytes, overSoftSince, now);
    }

    /** @return the bytes written to the channel and not yet to the socket */
    private long pending() {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    private void close(String why) {
        LOG.log(Level.WARNING, "closing client {0}: {1} (client-output-buffer-limit pubsub)", client, why);
        dropQueued();
        channel.close();
    }

    /** The connection closed or is closing: nothing more is queued, what was is dropped. Any thread. */
    void dropQueued() {
        ArrayDeque<Delivery> dropped;
        synchronized (lock) {
            closed = true;
            dropped = queue;
            queue = new ArrayDeque<>();
            queuedBytes = 0;
        }
        dropped.forEach(d -> d.frame().release());
    }
}
