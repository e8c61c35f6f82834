package tandem.dpdk.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

import tandem.dpdk.MemifPort;

/**
 * A memif port backed by the shim's ethdev port {@link #port}.
 *
 * <p>After close the ethdev id may already belong to a port opened since, so every data-path call checks
 * {@link #closed} before it crosses into native code: a call after close fails instead of touching another port.
 * That check is not a lock: the {@link MemifPort} contract requires the owner thread to have stopped before close.
 */
final class NativeMemifPort implements MemifPort {

    private static final Logger LOG = System.getLogger("tandem.dpdk.runtime");

    private final int port;
    private final String name;
    private final String socketPath;
    private final boolean server;
    private final Consumer<NativeMemifPort> onClose;
    private volatile boolean closed;

    NativeMemifPort(int port, String name, String socketPath, boolean server, Consumer<NativeMemifPort> onClose) {
        this.port = port;
        this.name = name;
        this.socketPath = socketPath;
        this.server = server;
        this.onClose = onClose;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean linkUp() {
        open();
        return Native.linkUp(port) == 1;
    }

    @Override
    public void restart() {
        open();
        int rc = Native.portRestart(port);
        if (rc < 0) {
            // the normal outcome while a client's server is away: the owner retries
            LOG.log(Level.DEBUG, "{0}: restart left the link down: {1}", this, Native.strerror(rc));
        }
    }

    @Override
    public int send(ByteBuffer src) {
        direct(src, "src");
        open();
        int position = src.position();
        int limit = src.limit();
        if (position == limit) {
            return 0;
        }
        long r = Native.tx(port, src, position, limit);
        src.position(position + (int) r);
        return (int) (r >>> 32);
    }

    @Override
    public int receive(ByteBuffer dst, int maxFrames) {
        direct(dst, "dst");
        if (maxFrames < 0) {
            throw new IllegalArgumentException("maxFrames=" + maxFrames + " must be >= 0");
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
        open();
        int position = dst.position();
        int limit = dst.limit();
        if (maxFrames == 0 || limit - position < 2) {
            return 0;
        }
        long r = Native.rx(port, dst, position, limit, maxFrames);
        dst.position(position + (int) r);
        return (int) (r >>> 32);
    }

    @Override
    public long[] stats() {
        open();
        long[] out = new long[8];
        int rc = Native.stats(port, out);
        if (rc < 0) {
            throw new IllegalStateException(name + ": rte_eth_stats_get failed: " + Native.strerror(rc));
        }
        return out;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        int rc = Native.portClose(port);
        if (rc < 0) {
            LOG.log(Level.WARNING, "{0}: closing left an error: {1}", this, Native.strerror(rc));
        } else {
            LOG.log(Level.DEBUG, "{0} closed", this);
        }
        onClose.accept(this);
    }

    boolean isClosed() {
        return closed;
    }

    boolean isServer() {
        return server;
    }

    String socketPath() {
        return socketPath;
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    private static void direct(ByteBuffer b, String what) {
        if (!b.isDirect()) {
            throw new IllegalArgumentException(what + " must be a direct buffer");
        }
    }

    @Override
    public String toString() {
        return name + " (" + (server ? "server" : "client") + ", socket " + socketPath + ")";
    }
}
