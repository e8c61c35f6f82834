package tandem.system;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real TCP hop on loopback between a replica and its primary that passes bytes through unchanged, except that it
 * can flip one byte of the primary's stream at a given position, in the first connection whose stream gets that far
 * (corruption in transit, once), and can hold every byte in both directions until released (a partition: the
 * connections stay open, nothing gets through, the senders' socket buffers fill; released, everything held arrives
 * in order).
 */
final class ByteProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final long corruptAt;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicLong corrupted = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean held;
    private final Object release = new Object();

    /** @param corruptAt the position, in the primary's bytes of a connection, of the byte to flip (once in all) */
    ByteProxy(int target, long corruptAt) throws IOException {
        this.target = target;
        this.corruptAt = corruptAt;
        this.server = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"));
        Thread t = new Thread(this::accept, "byte-proxy-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** A proxy that corrupts nothing. */
    ByteProxy(int target) throws IOException {
        this(target, -1);
    }

    /** Holds every byte, in both directions, from now on, until {@link #heal()}. */
    void partition() {
        held = true;
    }

    /** Lets what was held, and what follows, through. */
    void heal() {
        synchronized (release) {
            held = false;
            release.notifyAll();
        }
    }

    long corrupted() {
        return corrupted.get();
    }

    int connections() {
        return connections.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket replica = server.accept();
                Socket primary = new Socket();
                primary.connect(new InetSocketAddress("127.0.0.1", target), 5000);
                sockets.add(replica);
                sockets.add(primary);
                connections.incrementAndGet();
                pump(replica.getInputStream(), primary.getOutputStream(), -1, replica, primary);
                pump(primary.getInputStream(), replica.getOutputStream(), corruptAt, primary, replica);
            } catch (IOException e) {
                if (!closed) {
                    System.getLogger("tandem.system").log(System.Logger.Level.WARNING, "proxy: " + e);
                }
            }
        }
    }

    private void pump(InputStream in, OutputStream out, long flipAt, Socket a, Socket b) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            long at = 0;
            try {
                for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                    if (flipAt >= at && flipAt < at + n && corrupted.compareAndSet(0, 1)) {
                        buf[(int) (flipAt - at)] ^= 0x5A;
                    }
                    at += n;
                    awaitHealed();
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away: so does the other
            } finally {
                closeQuietly(a);
                closeQuietly(b);
            }
        }, "byte-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void awaitHealed() throws IOException {
        synchronized (release) {
            while (held && !closed) {
                try {
                    release.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted");
                }
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing is all that is wanted
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        heal();
        server.close();
        sockets.forEach(ByteProxy::closeQuietly);
    }
}
