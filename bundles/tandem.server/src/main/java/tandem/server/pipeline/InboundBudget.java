package tandem.server.pipeline;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.Channel;

/**
 * Bounds the bytes of requests that have been received but not yet executed, over every connection: once they
 * pass the bound, the connection that pushed them over is no longer read until the node has caught up to half of
 * it. Without it, clients that pipeline large writes faster than the journal syncs them fill the heap with requests
 * waiting for their turn, and whatever thread meets the end of the heap first fails, the logic thread included.
 *
 * <p>Added to on the connection's event loop as a request is decoded; released on the logic thread once the request
 * ran (or its connection closed). A request larger than the bound is still taken: the decoder has it already.
 */
public final class InboundBudget {

    private static final Logger LOG = System.getLogger("tandem.server");
    /** What a request costs beside its arguments' bytes: the arrays and objects that hold them. */
    private static final int OVERHEAD = 64;

    private final long limit;
    private final AtomicLong queued = new AtomicLong();
    private final Set<Connection> paused = ConcurrentHashMap.newKeySet();

    /** @param limit the bytes of received, unexecuted requests beyond which reading pauses */
    public InboundBudget(long limit) {
        this.limit = limit;
    }

    /** A quarter of the heap: room for the requests in flight beside the values being built. */
    public static InboundBudget ofHeap() {
        return new InboundBudget(Math.max(1L << 20, Runtime.getRuntime().maxMemory() / 4));
    }

    /** @return what {@code args} costs while it waits */
    static long cost(byte[][] args) {
        long n = OVERHEAD;
        for (byte[] a : args) {
            n += a.length + 16;
        }
        return n;
    }

    /** A request of {@code bytes} arrived on {@code c}; called on its event loop. */
    void received(Connection c, long bytes) {
        c.inbound.addAndGet(bytes);
        if (queued.addAndGet(bytes) > limit && !c.budgetPaused) {
            c.budgetPaused = true;
            paused.add(c);
            c.channel().config().setAutoRead(false);
            LOG.log(Level.DEBUG, "{0} bytes of requests wait to run: client {1} is not read until the node catches up",
                    queued.get(), c.session().remoteAddress());
        }
    }

    /** {@code bytes} of {@code c}'s requests ran. */
    void released(Connection c, long bytes) {
        c.inbound.addAndGet(-bytes);
        if (queued.addAndGet(-bytes) <= limit / 2 && !paused.isEmpty()) {
            for (Connection p : paused) {
                if (paused.remove(p)) {
                    p.budgetPaused = false;
                    Channel ch = p.channel();
                    ch.eventLoop().execute(() -> ch.config().setAutoRead(ch.isWritable() && !p.budgetPaused
                            && !p.holding));
                }
            }
        }
    }

    /** {@code c} closed: what it still had waiting is released. */
    void closed(Connection c) {
        paused.remove(c);
        c.budgetPaused = false;
        released(c, c.inbound.get());
    }

    /** @return the bytes of requests received and not yet run */
    public long queued() {
        return queued.get();
    }
}
