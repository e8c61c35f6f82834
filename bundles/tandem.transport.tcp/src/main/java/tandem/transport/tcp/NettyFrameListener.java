package tandem.transport.tcp;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.netty.channel.Channel;
import tandem.api.transport.FrameListener;

/**
 * A bound server channel and the links it accepted, so that closing it ends both: the contract makes a listener
 * the owner of its links, and a replication bundle that stops listening must not leave replicas attached.
 */
final class NettyFrameListener implements FrameListener {

    /** How long {@link #close} waits for the port to be released; the close itself is a single event-loop task. */
    private static final long CLOSE_WAIT_MILLIS = 1000;

    private volatile Channel server;
    private volatile int port;
    private final Set<NettyFrameLink> links = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Consumer<NettyFrameListener> onClose;

    /** Made before the bind, so that a link accepted the instant the port opens already has its owner. */
    NettyFrameListener(Consumer<NettyFrameListener> onClose) {
        this.onClose = onClose;
    }

    void bound(Channel serverChannel) {
        this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        this.server = serverChannel;
    }

    /** Adopts an accepted link; one accepted while the listener closes is closed at once. */
    void accepted(NettyFrameLink link) {
        links.add(link);
        link.channel().closeFuture().addListener(f -> links.remove(link));
        if (closed.get()) {
            link.close("listener closed");
        }
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void close() {
        close("listener closed");
    }

    void close(String reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.close();
        for (NettyFrameLink link : links) {
            link.close(reason);
        }
        onClose.accept(this);
        // The caller may rebind the port right after close returns; waiting on an event loop would deadlock it.
        if (!server.eventLoop().inEventLoop()) {
            server.closeFuture().awaitUninterruptibly(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public String toString() {
        return "listener " + NettyFrameLink.format(server.localAddress());
    }
}
