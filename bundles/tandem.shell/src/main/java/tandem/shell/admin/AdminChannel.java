package tandem.shell.admin;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import tandem.api.home.NodeHome;

/**
 * Serves Gogo sessions on an owner-only Unix-domain socket so that a headless node can be administered from another
 * terminal of the same machine ({@code bin/tandem shell --home DIR}).
 *
 * <p>The socket lives in a fresh directory with mode 0700 under {@code /tmp}, because socket paths are limited to
 * 107 bytes and a node's home may be deeper than that; its path is recorded in {@code <home>/data/shell.path},
 * where the client finds it. Only the owner of the node's process can reach it; nothing listens on the network.
 * Each connection is one Gogo session, so variables persist between the lines of an interactive session.
 *
 * <p>A command may stop, update or refresh the bundle that serves it ({@code update <shell id>}). Felix stops the
 * bundle on the thread that asks (Gogo's {@code update} and {@code stop} call {@code Bundle.update()} and
 * {@code Bundle.stop()} on the session's own thread) or, for {@code refresh}, on its refresh thread while the
 * command returns. Either way this component deactivates while the command still runs, so deactivation closes only
 * the idle sessions at once: a session running a command finishes it, sends its answer and only then closes. The
 * client sees its answer and exit status as for any command, then the end of the channel; the bundle's new
 * revision serves the next connection. A command line read by a session that is closing is not run.
 */
@Component(immediate = true)
public final class AdminChannel {

    /** Where, under the home, the socket's path is recorded. */
    public static final String PATH_RECORD = "data/shell.path";

    private static final Logger LOG = System.getLogger("tandem.shell");
    private static final int MAX_SESSIONS = 8;
    private static final int MAX_SOCKET_PATH = 107;

    private final CommandProcessor processor;
    private final Path directory;
    private final Path socket;
    private final Path record;
    private final ServerSocketChannel server;
    private final Thread acceptor;
    private final Semaphore sessions = new Semaphore(MAX_SESSIONS);
    private final Set<Session> open = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;

    @Activate
    public AdminChannel(@Reference CommandProcessor processor, @Reference NodeHome home) throws IOException {
        this(processor, named(home));
    }

    AdminChannel(CommandProcessor processor, Path home) throws IOException {
        this.processor = processor;
        this.record = home.resolve(PATH_RECORD);
        removeStale(record);
        Path base = Files.isWritable(Path.of("/tmp")) ? Path.of("/tmp") : Path.of(System.getProperty("java.io.tmpdir"));
        this.directory = Files.createTempDirectory(base, "tandem-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        this.socket = directory.resolve("shell.sock");
        if (socket.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
            Files.deleteIfExists(directory);
            throw new IOException("admin socket path " + socket + " is longer than " + MAX_SOCKET_PATH + " bytes");
        }
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        Files.createDirectories(record.getParent());
        Path tmp = record.resolveSibling(record.getFileName() + ".tmp");
        Files.writeString(tmp, socket + "\n");
        Files.move(tmp, record, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        this.acceptor = new Thread(this::acceptLoop, "tandem-admin-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        LOG.log(Level.INFO, "admin shell listening on {0} (recorded in {1})", socket, record);
    }

    private static Path named(NodeHome home) {
        if (!home.isSet()) {
            throw new IllegalStateException("framework property " + NodeHome.PROPERTY
                    + " is not set: the admin channel needs the node's home to record its socket path");
        }
        return home.directory();
    }

    /** The socket of a node killed with -9 stays behind: remove it and its directory when it is ours and dead. */
    private static void removeStale(Path record) {
        try {
            if (!Files.isRegularFile(record)) {
                return;
            }
            Path old = Path.of(Files.readString(record).trim());
            if (old.getFileName() != null && old.getFileName().toString().equals("shell.sock")
                    && old.getParent() != null && old.getParent().getFileName().toString().startsWith("tandem-")) {
                Files.deleteIfExists(old);
                Files.deleteIfExists(old.getParent());
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "could not remove a stale admin socket", e);
        }
    }

    private void acceptLoop() {
        while (running) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                if (running) {
                    LOG.log(Level.WARNING, "admin channel accept failed", e);
                }
                return;
            }
            if (!sessions.tryAcquire()) {
                LOG.log(Level.WARNING, "admin session refused: {0} sessions are open", MAX_SESSIONS);
                closeQuietly(channel);
                continue;
            }
            Session session = new Session(channel);
            open.add(session);
            if (!running) {
                session.close(); // deactivated between accept and add: deactivate may not have seen it
            }
            Thread t = new Thread(() -> {
                try {
                    serve(session);
                } finally {
                    open.remove(session);
                    closeQuietly(channel);
                    sessions.release();
                }
            }, "tandem-admin-session");
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(Session connection) {
        SocketChannel channel = connection.channel;
        try {
            DataInputStream in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel)));
            OutputStream raw = Channels.newOutputStream(channel);
            PrintStream out = new PrintStream(new FrameOutputStream(raw, AdminFrames.OUT), true,
                    StandardCharsets.UTF_8);
            PrintStream err = new PrintStream(new FrameOutputStream(raw, AdminFrames.ERR), true,
                    StandardCharsets.UTF_8);
            CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, err);
            session.put(AdminFrames.PROGRESS_ATTRIBUTE, (java.util.function.Consumer<String>) line -> {
                byte[] b = line.getBytes(StandardCharsets.UTF_8);
                try {
                    synchronized (raw) {
                        AdminFrames.write(raw, AdminFrames.PROGRESS, b, 0, Math.min(b.length, 4096));
                    }
                } catch (IOException e) {
                    // the client went away: the command's result has nowhere to go either, and says so itself
                }
            });
            try {
                AdminFrames.Frame frame;
                while ((frame = AdminFrames.read(in)) != null) {
                    if (frame.type() != AdminFrames.COMMAND) {
                        throw new IOException("admin channel: unexpected frame type " + frame.type());
                    }
                    if (!connection.begin()) {
                        return; // the component went away: a line it has not started is not run
                    }
                    byte status = execute(session, new String(frame.payload(), StandardCharsets.UTF_8), out, err);
                    out.flush();
                    err.flush();
                    synchronized (raw) {
                        AdminFrames.write(raw, AdminFrames.EXIT, new byte[] {status}, 0, 1);
                    }
                    if (!connection.end()) {
                        return; // the command stopped, updated or refreshed this bundle: answered, now closed
                    }
                }
            } finally {
                session.close();
            }
        } catch (IOException e) {
            if (running) {
                LOG.log(Level.INFO, "admin session ended: {0}", e.getMessage());
            }
        }
    }

    private static byte execute(CommandSession session, String line, PrintStream out, PrintStream err) {
        if (line.isBlank()) {
            return 0;
        }
        try {
            Object result = session.execute(line);
            if (result != null) {
                out.println(session.format(result, Converter.INSPECT));
            }
            return 0;
        } catch (Exception e) {
            err.println("gogo: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return 1;
        }
    }

    @Deactivate
    void deactivate() {
        running = false;
        closeQuietly(server);
        open.forEach(Session::close);
        try {
            acceptor.join(2000);
            Files.deleteIfExists(socket);
            Files.deleteIfExists(directory);
            if (Files.isRegularFile(record) && Files.readString(record).trim().equals(socket.toString())) {
                Files.delete(record);
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not remove the admin socket " + socket, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing on the way out: nothing left to do with the error
        }
    }

    /**
     * One connection, and whether a command runs on it: deactivation closes an idle one at once and leaves one that
     * runs a command to close itself once it has answered (the command may be the one that deactivates).
     */
    private static final class Session {

        final SocketChannel channel;
        private boolean busy;
        private boolean closing;

        Session(SocketChannel channel) {
            this.channel = channel;
        }

        /** @return false when the session is closing: the command line read is not run */
        synchronized boolean begin() {
            busy = !closing;
            return busy;
        }

        /** @return false when the session was closed while the command ran: its answer is sent, it ends */
        synchronized boolean end() {
            busy = false;
            return !closing;
        }

        synchronized void close() {
            closing = true;
            if (!busy) {
                closeQuietly(channel); // wakes the session's thread from its read
            }
        }
    }

    /** Sends every write as one frame of the given type. */
    private static final class FrameOutputStream extends OutputStream {

        private final OutputStream raw;
        private final byte type;

        FrameOutputStream(OutputStream raw, byte type) {
            this.raw = raw;
            this.type = type;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            synchronized (raw) {
                for (int done = 0; done < len; done += AdminFrames.MAX_PAYLOAD) {
                    AdminFrames.write(raw, type, b, off + done, Math.min(AdminFrames.MAX_PAYLOAD, len - done));
                }
            }
        }
    }
}
