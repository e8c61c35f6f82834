package tandem.psync;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.frpl.FrplStreams;
import tandem.api.journal.Journal;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.Replconf;

/**
 * A psync replica's link to its primary, on a thread of its own: the handshake ({@code AUTH} with
 * {@code masterauth}, {@code REPLCONF listening-port}, {@code capa eof capa psync2}, {@code tandem-version}), then
 * {@code PSYNC <id> <offset>} — {@code PSYNC ? -1} when it holds no history — and either a full sync (the
 * checkpoint stream verified while it arrives, staged, installed) or {@code +CONTINUE}; then the FRPL stream,
 * journaled in this node's lineage by a {@link StreamApplier}, with {@code REPLCONF ACK <offset>} of what is applied
 * every {@code ack.interval.ms} and when a {@code GETACK} asks. Reconnects with a doubling pause.
 *
 * <p>A full sync is crash-safe in this order: the identity is cleared (a crash from here on asks {@code ? -1}),
 * the checkpoint installed, the journal reset to the checkpoint's position with a new anchor (the store's origin),
 * and only then the primary's id adopted.
 */
final class ReplicaClient {

    private static final Logger LOG = System.getLogger("tandem.psync");
    private static final int CONNECT_TIMEOUT_MS = 5000;
    /** A primary cuts its checkpoint before it answers a full sync's PSYNC. */
    private static final int PSYNC_REPLY_TIMEOUT_MS = 120_000;
    private static final int LINE_MAX = 64 * 1024;

    /** What a replica needs of its component. */
    interface Context {
        Journal journal();

        ReplicationHub hub();

        Checkpoints checkpoints();

        /** @return the FRPL command stream, or null while {@code tandem.frpl} is not active */
        FrplStreams frpl();

        /** @return the index of the first key of the command {@code name} (lower case), 0 when it has none */
        int firstKey(String name);

        Identity identity();

        void identity(Identity next) throws IOException;

        PsyncSettings settings();

        /**
         * @return this node's RESP port, announced with {@code REPLCONF listening-port}: its TLS port when it
         *         connects over TLS (as Redis announces)
         */
        int listeningPort();

        /**
         * @return the node's TLS material when the replica connects over TLS ({@code tls-replication yes}), else
         *         null
         * @throws IOException when TLS replication is configured but cannot be served (no material)
         */
        tandem.api.tls.TlsMaterial replicationTls() throws IOException;

        String version();
    }

    private final Context ctx;
    private final InetSocketAddress primary;
    private final String address;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile Socket socket;
    private volatile String state = "connecting";
    private volatile String lastError;
    private volatile long lastFrameNanos;
    private volatile Checkpoints.Receive receiving;

    ReplicaClient(Context ctx, InetSocketAddress primary, String address) {
        this.ctx = ctx;
        this.primary = primary;
        this.address = address;
        this.thread = new Thread(this::run, "tandem-psync-replica-" + address);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    String address() {
        return address;
    }

    String state() {
        return state;
    }

    /** Stops the link and waits for its thread: nothing is appended to the journal once this returns. */
    void close() {
        stopped = true;
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing is all that is wanted
            }
        }
        thread.interrupt();
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    ReplicationStatus.Upstream status() {
        long last = lastFrameNanos;
        ReplicationStatus.Transfer transfer = null;
        Checkpoints.Receive r = receiving;
        if (r != null) {
            Checkpoints.Progress p = r.progress();
            transfer = new ReplicationStatus.Transfer("full sync", p.bytes(), p.totalBytes(), p.bytesPerSecond());
        }
        return new ReplicationStatus.Upstream(address, state, ctx.journal().lastSequence(),
                ctx.hub().appliedSequence(), last == 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - last),
                lastError, transfer);
    }

    private void run() {
        long pause = 100;
        while (!stopped) {
            try {
                session();
                pause = 100;
            } catch (InterruptedException e) {
                if (stopped) {
                    break;
                }
            } catch (IOException | RuntimeException | Error e) {
                // an Error too (out of memory on a large frame): the link retries instead of its thread dying
                if (stopped) {
                    break;
                }
                String why = e.getMessage() == null ? e.toString() : e.getMessage();
                lastError = why;
                LOG.log(Level.WARNING, "psync replica of {0}: {1}; retrying in {2} ms", address, why, pause);
            } finally {
                Socket s = socket;
                socket = null;
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // already broken
                    }
                }
                Checkpoints.Receive r = receiving;
                receiving = null;
                if (r != null) {
                    r.close();
                }
            }
            if (stopped) {
                break;
            }
            state = "disconnected";
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                if (stopped) {
                    break;
                }
            }
            pause = Math.min(pause * 2, ctx.settings().reconnectMaxMs());
        }
        state = "stopped";
    }

    private void session() throws IOException, InterruptedException {
        state = "connecting";
        if (ctx.checkpoints() == null) {
            // any PSYNC may be answered with a full sync: ask only once one could be received
            throw new IOException("waiting for tandem.checkpoint, which a full sync needs");
        }
        if (ctx.frpl() == null) {
            throw new IOException("waiting for tandem.frpl, which applies the primary's command stream");
        }
        int port = ctx.listeningPort();
        if (port <= 0) {
            throw new IOException("this node's RESP listener is not up (see the tandem.server log), so there is no "
                    + "port to announce to the primary");
        }
        tandem.api.tls.TlsMaterial tls = ctx.replicationTls();
        Socket s = new Socket();
        socket = s;
        if (stopped) {
            return;
        }
        s.setTcpNoDelay(true);
        s.connect(primary, CONNECT_TIMEOUT_MS);
        s.setSoTimeout(ctx.settings().handshakeTimeoutMs());
        if (tls != null) {
            state = "tls handshake";
            try {
                s = tls.clientSocket(s, primary.getAddress().getHostAddress(), primary.getPort());
            } catch (IOException e) {
                throw new IOException("the TLS handshake with the primary failed: "
                        + tandem.protocol.net.TlsFailures.reason(e), e);
            }
            socket = s;
        }
        Wire wire = new Wire(s.getInputStream());
        OutputStream out = s.getOutputStream();
        state = "handshaking";
        String auth = ctx.settings().masterAuth();
        String user = ctx.settings().masterUser();
        if (auth != null && user != null) {
            expectOk(wire, out, "AUTH", user, auth);
        } else if (auth != null) {
            expectOk(wire, out, "AUTH", auth);
        }
        expectOk(wire, out, "REPLCONF", "listening-port", Integer.toString(port));
        expectOk(wire, out, "REPLCONF", "capa", "eof", "capa", "psync2");
        expectOk(wire, out, "REPLCONF", "tandem-version", ctx.version());
        Journal journal = ctx.journal();
        journal.awaitDurable(journal.lastSequence()); // ask for exactly what the journal holds
        long held = Math.max(0, journal.offsetAfter(journal.durableSequence()));
        Identity identity = ctx.identity();
        boolean fresh = !identity.hasHistory() || held == 0;
        send(out, "PSYNC", fresh ? "?" : identity.replicationId(), fresh ? "-1" : Long.toString(held));
        s.setSoTimeout(PSYNC_REPLY_TIMEOUT_MS);
        String reply = wire.line();
        if (reply.startsWith("+FULLRESYNC ")) {
            String[] f = reply.split(" ");
            if (f.length < 3 || !Identity.isId(f[1])) {
                throw new IOException("a malformed +FULLRESYNC: '" + reply + "'");
            }
            long offset;
            try {
                offset = Long.parseLong(f[2]);
            } catch (NumberFormatException e) {
                throw new IOException("a malformed +FULLRESYNC offset: '" + reply + "'");
            }
            fullSync(wire, f[1], offset);
            held = offset;
        } else if (reply.equals("+CONTINUE") || reply.startsWith("+CONTINUE ")) {
            String id = reply.length() > "+CONTINUE ".length() ? reply.substring("+CONTINUE ".length()).trim() : "";
            if (!id.isEmpty()) {
                if (!Identity.isId(id)) {
                    throw new IOException("a +CONTINUE with a malformed id: '" + reply + "'");
                }
                if (!id.equalsIgnoreCase(identity.replicationId())) {
                    ctx.identity(identity.shifted(id, held)); // the primary was promoted: its id is ours now
                    LOG.log(Level.INFO, "psync replica of {0}: the primary''s id is {1} now", address, id);
                }
            }
            LOG.log(Level.INFO, "psync replica of {0}: +CONTINUE at offset {1}", address, Long.toString(held));
        } else {
            throw new IOException("PSYNC refused: " + reply);
        }
        stream(s, wire, out, held);
    }

    private void fullSync(Wire wire, String id, long offset) throws IOException, InterruptedException {
        state = "full-sync";
        Checkpoints checkpoints = ctx.checkpoints();
        if (checkpoints == null) {
            throw new IOException("a full sync needs tandem.checkpoint, which is not active");
        }
        ctx.identity(ctx.identity().cleared());
        LOG.log(Level.INFO, "psync replica of {0}: full sync from offset {1}", address, Long.toString(offset));
        long started = System.nanoTime();
        Checkpoints.Receive r = checkpoints.receive(-1);
        receiving = r;
        ByteBuffer b = wire.buffer();
        while (!r.feed(b)) {
            wire.fill();
            b = wire.buffer();
            lastFrameNanos = System.nanoTime();
        }
        Checkpoints.Staged staged = r.commit();
        receiving = null;
        if (!id.equals(staged.replicationId()) || staged.replicationOffset() != offset) {
            throw new IOException("the checkpoint's trailer names " + staged.replicationId() + " at "
                    + staged.replicationOffset() + ", +FULLRESYNC said " + id + " at " + offset);
        }
        state = "installing";
        byte[] anchor = new byte[32];
        new SecureRandom().nextBytes(anchor);
        long applied = ctx.hub().install(staged.directory(), -1, anchor);
        ctx.journal().reset(applied + 1, anchor, offset);
        ctx.identity(ctx.identity().adopted(id));
        LOG.log(Level.INFO, "psync replica of {0}: full sync installed in {1} ms: sequence {2}, offset {3}",
                address, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), Long.toString(applied),
                Long.toString(offset));
    }

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private void stream(Socket s, Wire wire, OutputStream out, long from) throws IOException {
        state = "streaming";
        lastError = null;
        Journal journal = ctx.journal();
        ReplicationHub hub = ctx.hub();
        FrplStreams frpl = ctx.frpl();
        if (frpl == null) {
            throw new IOException("the FRPL stream (tandem.frpl) is not active; this replica reconnects and continues");
        }
        long maxPayload = Math.min(FrplFrame.MAX_PAYLOAD, Runtime.getRuntime().maxMemory() / 4);
        FrplStreams.Inbound applier = frpl.receive(from, maxPayload, ctx::firstKey, journal::append);
        int ackMs = ctx.settings().ackIntervalMs();
        long nextAck = System.nanoTime();
        long owed = -1;
        byte[] chunk = new byte[64 * 1024];
        ByteBuffer leftover = wire.buffer();
        InputStream in = wire.in;
        boolean first = true;
        while (!stopped) {
            ByteBuffer received = NOTHING;
            if (first) {
                first = false;
                received = leftover;
            } else {
                try {
                    s.setSoTimeout(owed >= 0 ? 5 : 100);
                    int n = in.read(chunk);
                    if (n < 0) {
                        throw new EOFException("the primary closed the connection");
                    }
                    lastFrameNanos = System.nanoTime();
                    received = ByteBuffer.wrap(chunk, 0, n);
                } catch (SocketTimeoutException idle) {
                    // time to look at the acks, and at whether the FRPL stream is still there
                }
            }
            try {
                applier.feed(received);
            } catch (FrplStreams.DivergenceException diverged) {
                ctx.identity(ctx.identity().cleared()); // the next attempt full-syncs
                throw new IOException("the stream diverged from this replica's journal, a full sync follows: "
                        + diverged.getMessage());
            }
            long asked = applier.takeOwedAck();
            if (asked >= 0) {
                owed = Math.max(owed, asked);
            }
            long now = System.nanoTime();
            if (owed >= 0 || now - nextAck >= 0) {
                long appliedOffset = journal.offsetAfter(hub.appliedSequence());
                if (appliedOffset >= 0 && (now - nextAck >= 0 || appliedOffset >= owed)) {
                    out.write(Replconf.ack(appliedOffset));
                    out.flush();
                    nextAck = now + TimeUnit.MILLISECONDS.toNanos(ackMs);
                    if (appliedOffset >= owed) {
                        owed = -1;
                    }
                }
            }
        }
    }

    private static void expectOk(Wire wire, OutputStream out, String... command) throws IOException {
        send(out, command);
        String reply = wire.line();
        if (!reply.startsWith("+OK")) {
            String shown = command[0].equals("AUTH") ? "AUTH (masteruser, masterauth)" : String.join(" ", command);
            throw new IOException("the primary answered " + shown + " with '" + reply + "'");
        }
    }

    private static void send(OutputStream out, String... command) throws IOException {
        byte[][] args = new byte[command.length][];
        for (int i = 0; i < command.length; i++) {
            args[i] = command[i].getBytes(StandardCharsets.UTF_8);
        }
        out.write(CommandPayload.encode(args));
        out.flush();
    }

    /**
     * The replica's read side: lines until the payload begins, then raw bytes; what was read past a line stays in
     * the buffer for the checkpoint receiver and the frame decoder.
     */
    private static final class Wire {
        final InputStream in;
        private final ByteBuffer buf = ByteBuffer.allocate(LINE_MAX).flip();

        Wire(InputStream in) {
            this.in = in;
        }

        /** @return the bytes buffered and not consumed yet */
        ByteBuffer buffer() {
            return buf;
        }

        /** Reads more bytes into the buffer (after compacting it). */
        void fill() throws IOException {
            buf.compact();
            try {
                int n = in.read(buf.array(), buf.position(), buf.remaining());
                if (n < 0) {
                    throw new EOFException("the primary closed the connection");
                }
                buf.position(buf.position() + n);
            } finally {
                buf.flip();
            }
        }

        /** @return the next line, without its CRLF; at most {@value #LINE_MAX} bytes */
        String line() throws IOException {
            while (true) {
                for (int i = buf.position(); i + 1 < buf.limit(); i++) {
                    if (buf.get(i) == '\r' && buf.get(i + 1) == '\n') {
                        String line = new String(buf.array(), buf.position(), i - buf.position(),
                                StandardCharsets.ISO_8859_1);
                        buf.position(i + 2);
                        return line;
                    }
                }
                if (buf.remaining() >= LINE_MAX - 1) {
                    throw new IOException("the primary sent a line longer than " + LINE_MAX + " bytes");
                }
                fill();
            }
        }
    }
}
