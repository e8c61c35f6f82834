package tandem.system;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A real TCP hop between a replica and its primary's replication port, on loopback, that understands the journal
 * protocol's framing ({@code [len u32 LE][payload]}) in the primary-to-replica direction. It can flip one byte in
 * the data of the next SnapshotChunk (corruption in transit, once), and pace the primary's bytes (a slow link, so
 * that a test can act in the middle of a transfer). Everything else passes through unchanged.
 */
final class FrameProxy implements AutoCloseable {

    private static final byte TAG_SNAPSHOT_CHUNK = 0x14;

    private final ServerSocket server;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicBoolean corruptNextChunk = new AtomicBoolean();
    private final AtomicLong chunksCorrupted = new AtomicLong();
    private final AtomicLong snapshotBytes = new AtomicLong();
    private volatile long bytesPerSecond;
    private volatile boolean closed;

    FrameProxy(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"));
        Thread t = new Thread(this::accept, "frame-proxy-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Flips one byte in the data of the next SnapshotChunk that passes. */
    void corruptNextSnapshotChunk() {
        corruptNextChunk.set(true);
    }

    long chunksCorrupted() {
        return chunksCorrupted.get();
    }

    /** @return the SnapshotChunk data bytes passed so far */
    long snapshotBytes() {
        return snapshotBytes.get();
    }

    /** Paces the primary's bytes to this rate; 0 for no pacing. */
    void throttle(long rate) {
        bytesPerSecond = rate;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket replica = server.accept();
                Socket primary = new Socket();
                primary.connect(new InetSocketAddress("127.0.0.1", target), 2000);
                replica.setTcpNoDelay(true);
                primary.setTcpNoDelay(true);
                sockets.add(replica);
                sockets.add(primary);
                pump("up", replica.getInputStream(), primary.getOutputStream(), false, replica, primary);
                pump("down", primary.getInputStream(), replica.getOutputStream(), true, replica, primary);
            } catch (IOException e) {
                if (!closed) {
                    System.getLogger("tandem.system").log(System.Logger.Level.INFO, "proxy: " + e);
                }
            }
        }
    }

    private void pump(String name, InputStream in, OutputStream out, boolean frames, Socket a, Socket b) {
        Thread t = new Thread(() -> {
            try {
                if (frames) {
                    frames(new DataInputStream(in), out);
                } else {
                    in.transferTo(out);
                }
            } catch (IOException e) {
                // one side closed: close both, as a real hop would
            } finally {
                closeQuietly(a);
                closeQuietly(b);
            }
        }, "frame-proxy-" + name);
        t.setDaemon(true);
        t.start();
    }

    private void frames(DataInputStream in, OutputStream out) throws IOException {
        byte[] prefix = new byte[4];
        byte[] payload = new byte[1024 * 1024];
        while (true) {
            try {
                in.readFully(prefix);
            } catch (EOFException e) {
                return;
            }
            int len = (prefix[0] & 0xFF) | (prefix[1] & 0xFF) << 8 | (prefix[2] & 0xFF) << 16 | (prefix[3] & 0xFF) << 24;
            if (len < 0 || len > 64 * 1024 * 1024) {
                throw new IOException("frame of " + len + " bytes");
            }
            if (payload.length < len) {
                payload = new byte[len];
            }
            in.readFully(payload, 0, len);
            if (len > 1 && payload[0] == TAG_SNAPSHOT_CHUNK) {
                snapshotBytes.addAndGet(len - 1);
                // a chunk of some size carries a file's data at its middle, not the stream's framing
                if (len - 1 >= 4096 && corruptNextChunk.compareAndSet(true, false)) {
                    payload[1 + (len - 1) / 2] ^= 0x5A;
                    chunksCorrupted.incrementAndGet();
                }
            }
            pace(4 + len);
            out.write(prefix);
            out.write(payload, 0, len);
            out.flush();
        }
    }

    /** A rate limit, not a wait for a condition: parks as long as the bytes take at the configured rate. */
    private void pace(int bytes) {
        long rate = bytesPerSecond;
        if (rate > 0) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1) * bytes / rate);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** Drops every connection through the proxy (replicas reconnect). */
    void dropConnections() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        dropConnections();
    }
}
