package tandem.transport.tcp;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import tandem.api.transport.FrameSession;

/**
 * Bridges one channel to the transport contract: Netty events in, {@link FrameSession} callbacks out, on the
 * channel's event loop, one at a time.
 *
 * <p>The contract promises {@code opened} at most once and {@code closed} exactly once, so both are guarded here
 * rather than trusted to Netty's event order: a handler added to a channel that is already active (an embedded
 * channel in a test) sees no {@code channelActive}, and a connection that never opened sees no
 * {@code channelInactive} but must still be reported closed.
 *
 * <p>Once this side has decided to close (an error, a session that threw, a {@link NettyFrameLink#close}), frames
 * still decoded from the same read are released undelivered: a session that asked to stop, or failed, must not be
 * fed more.
 */
final class FrameSessionAdapter extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = System.getLogger("tandem.transport.tcp");

    static final String PEER_CLOSED = "connection closed by peer";

    private final FrameSession session;
    private final NettyFrameLink link;
    private ByteBuffer heap = ByteBuffer.allocate(0);
    private boolean opened;
    private boolean closed;

    FrameSessionAdapter(FrameSession session, NettyFrameLink link) {
        this.session = session;
        this.link = link;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            open();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        open();
        ctx.fireChannelActive();
    }

    private void open() {
        if (opened || closed) {
            return;
        }
        opened = true;
        try {
            session.opened(link);
        } catch (RuntimeException e) {
            sessionFailed("opened", e);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (link.closing() || closed) {
                return;
            }
            try {
                session.frame(view(frame));
            } catch (RuntimeException e) {
                sessionFailed("frame", e);
            }
        } finally {
            frame.release();
        }
    }

    /** A little-endian view positioned at the tag; a copy only when the frame spans several memory regions. */
    private ByteBuffer view(ByteBuf frame) {
        ByteBuffer payload;
        if (frame.nioBufferCount() == 1) {
            payload = frame.nioBuffer();
        } else {
            int n = frame.readableBytes();
            if (heap.capacity() < n) {
                heap = ByteBuffer.allocate(Math.max(n, Math.min(heap.capacity() * 2, FrameLengthDecoder.MAX_FRAME)));
            }
            heap.clear();
            frame.getBytes(frame.readerIndex(), heap.limit(n));
            heap.flip();
            payload = heap;
        }
        return payload.order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && opened && !closed && !link.closing()) {
            try {
                session.writable();
            } catch (RuntimeException e) {
                sessionFailed("writable", e);
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        String reason = link.closeReason();
        notifyClosed(reason == null ? PEER_CLOSED : reason);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String reason = reason(cause);
        if (closed || !link.recordReason(reason)) {
            // the link is already going down for its first reason; what fails on the way is a consequence
            LOG.log(Level.DEBUG, "{0}: after close: {1}", link, reason);
            return;
        }
        if (cause instanceof IOException || cause instanceof DecoderException) {
            LOG.log(Level.WARNING, "closing {0}: {1}", link, reason);
        } else {
            LOG.log(Level.WARNING, "closing " + link + ": " + reason, cause);
        }
        ctx.channel().close();
    }

    /**
     * Reports the link closed, at most once; for a link that never opened (a failed connect) too.
     */
    void notifyClosed(String reason) {
        if (closed) {
            return;
        }
        closed = true;
        LOG.log(Level.DEBUG, "{0} closed: {1}", link, reason);
        try {
            session.closed(reason);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "session of " + link + " failed in closed(" + reason + ")", e);
        }
    }

    private void sessionFailed(String callback, RuntimeException e) {
        String reason = reason(e);
        // a bug in the session deserves its stack trace; the link cannot go on in an unknown protocol state
        LOG.log(Level.WARNING, "closing " + link + ": its session failed in " + callback + ": " + reason, e);
        link.close(reason);
    }

    private static String reason(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getName() : m;
    }
}
