package tandem.transport.dpdk;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;
import tandem.dpdk.MemifPort;

/**
 * A primary's DPDK listener: a unix control socket, {@code <socket.directory>/tandem-<port>.sock}, where each
 * replica's link starts. Every accepted link gets its own memif data path, {@code tandem-<port>-<n>.memif}, so
 * that links never share a port and a replica that dies takes only its own with it.
 */
final class DpdkListener implements FrameListener {

    private static final Logger LOG = System.getLogger("tandem.transport.dpdk");
    static final String CLOSED = "listener closed";
    private static final long SETUP_NANOS = 5_000_000_000L;

    private final DpdkTransport owner;
    private final int port;
    private final Path controlPath;
    private final ServerSocketChannel server;
    private final int maxFrame;
    private final Supplier<FrameSession> sessions;
    private final Set<DpdkLink> links = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger accepted = new AtomicInteger();
    private final Thread acceptor;

    private DpdkListener(DpdkTransport owner, int port, Path controlPath, ServerSocketChannel server, int maxFrame,
            Supplier<FrameSession> sessions) {
        this.owner = owner;
        this.port = port;
        this.controlPath = controlPath;
        this.server = server;
        this.maxFrame = maxFrame;
        this.sessions = sessions;
        this.acceptor = new Thread(this::accept, "tandem-dpdk-accept-" + port);
        acceptor.setDaemon(true);
    }

    /** Binds the control socket of {@code port} (0: the first free one from 49152) in {@code dir}. */
    static DpdkListener open(DpdkTransport owner, Path dir, int port, int maxFrame, Supplier<FrameSession> sessions)
            throws IOException {
        Files.createDirectories(dir);
        int p = port;
        if (p == 0) {
            p = 49152;
            while (p <= 65535 && Files.exists(controlPath(dir, p))) {
                p++;
            }
            if (p > 65535) {
                throw new IOException("no free DPDK port in " + dir);
            }
        }
        Path path = controlPath(dir, p);
        removeStale(path);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            server.close();
            throw new IOException("cannot listen on " + path + ": " + e.getMessage(), e);
        }
        DpdkListener l = new DpdkListener(owner, p, path, server, maxFrame, sessions);
        l.acceptor.start();
        return l;
    }

    static Path controlPath(Path dir, int port) {
        return dir.resolve("tandem-" + port + ".sock");
    }

    /**
     * Removes the socket a killed node left behind, which would block the bind; a live listener's socket answers a
     * connect, and is refused instead of stolen.
     */
    private static void removeStale(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        boolean live;
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            live = probe.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            live = false;
        }
        if (live) {
            throw new IOException("cannot listen on " + path + ": another process listens there");
        }
        LOG.log(Level.INFO, "removing the stale DPDK socket {0}", path);
        Files.deleteIfExists(path);
    }

    private void accept() {
        while (!closed.get()) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.log(Level.WARNING, "{0}: accept failed: {1}", this, e.getMessage());
                }
                return;
            }
            int n = accepted.incrementAndGet();
            DpdkLink link = new DpdkLink(owner, "memif:" + port + "-" + n, maxFrame, owner.settings(),
                    l -> handshake(ch, n), null);
            links.add(link);
            owner.track(link);
            if (closed.get()) {
                link.close(CLOSED);
            }
            link.start("tandem-dpdk-link-" + port + "-" + n);
        }
    }

    /** The server's half of {@link Rendezvous}, on the new link's thread. */
    private DpdkLink.Ready handshake(SocketChannel ch, int n) throws IOException {
        MemifPort data = null;
        try {
            ch.configureBlocking(false);
            long deadline = System.nanoTime() + SETUP_NANOS;
            String hello = Rendezvous.readLine(ch, deadline);
            if (!Rendezvous.HELLO.equals(hello)) {
                Rendezvous.writeLine(ch, "ERR expected " + Rendezvous.HELLO, deadline);
                throw new IOException("rendezvous: not a Tandem DPDK peer (it said \"" + hello + "\")");
            }
            Path memif = controlPath.resolveSibling("tandem-" + port + "-" + n + ".memif");
            try {
                data = owner.runtime().openMemif(memif.toString(), true);
            } catch (IOException e) {
                Rendezvous.writeLine(ch, "ERR " + e.getMessage(), deadline);
                throw e;
            }
            int epoch = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
            Rendezvous.writeLine(ch, String.format("OK %08x %s", epoch, memif), deadline);
            // made last, so that a session exists only for a link that opens (the replica sees a refusal as the
            // control socket closing)
            FrameSession session = sessions.get();
            if (session == null) {
                throw new IOException("refused a link: no session");
            }
            return new DpdkLink.Ready(ch, data, epoch, false, session);
        } catch (IOException | RuntimeException e) {
            if (data != null) {
                data.close();
            }
            ch.close();
            throw e;
        }
    }

    void forget(DpdkLink link) {
        links.remove(link);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void close() {
        close(CLOSED);
    }

    void close(String reason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            server.close();
            Files.deleteIfExists(controlPath);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: closing: {1}", this, e.getMessage());
        }
        for (DpdkLink link : links) {
            link.close(reason);
        }
        owner.forget(this);
    }

    @Override
    public String toString() {
        return "listener " + controlPath;
    }
}
