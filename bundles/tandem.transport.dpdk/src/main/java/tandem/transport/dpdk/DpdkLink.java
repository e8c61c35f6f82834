package tandem.transport.dpdk;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;

import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameSession;
import tandem.dpdk.MemifPort;

/**
 * One link of the DPDK transport and the thread that owns it. The thread brings the data path up (its
 * {@link Setup}), then runs rounds: send what the reliability layer has due, receive and deliver what arrived,
 * watch the peer, and wait by the configured strategy when a round found nothing to do. Every session callback
 * runs on it, one at a time, as the contract asks.
 *
 * <p>A close from this side lingers until the peer has acknowledged everything sent (at most
 * {@link #LINGER_NANOS}), as a TCP close does, so that a last frame (an error the protocol sends before it hangs
 * up) arrives; then the data port and the control socket close, which the peer sees at once.
 */
final class DpdkLink implements FrameLink {

    private static final Logger LOG = System.getLogger("tandem.transport.dpdk");

    static final String PEER_CLOSED = "connection closed by peer";
    private static final long LINGER_NANOS = 500_000_000L;
    private static final long WATCH_NANOS = 1_000_000L;
    /** The longest a closing end waits for its peer to stop polling and close its port. */
    private static final long QUIESCE_MAX_NANOS = 1_000_000_000L;
    private static final long RESTART_NANOS = 100_000_000L;
    private static final int BATCH = 32;

    /** Brings the data path up on the link's thread; throws with the reason when it cannot. */
    interface Setup {
        Ready run(DpdkLink link) throws IOException;
    }

    /** What a successful setup hands over. */
    record Ready(SocketChannel control, MemifPort port, int epoch, boolean client, FrameSession session) {
    }

    private final DpdkTransport owner;
    private final String remote;
    private final int maxFrame;
    private final Setup setup;
    private final FrameSession presetSession;
    private volatile DpdkSettings settings;
    private volatile ReliableStream stream;
    private volatile String closeReason;
    private volatile boolean notWritable;
    private volatile boolean parked;
    /** The peer closed its control socket: nothing it sends can arrive any more, so a close does not linger. */
    private boolean peerGone;
    private volatile Thread thread;

    DpdkLink(DpdkTransport owner, String remote, int maxFrame, DpdkSettings settings, Setup setup,
            FrameSession session) {
        this.owner = owner;
        this.remote = remote;
        this.maxFrame = maxFrame;
        this.settings = settings;
        this.setup = setup;
        this.presetSession = session;
    }

    void start(String name) {
        Thread t = new Thread(this::run, name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    void settings(DpdkSettings s) {
        settings = s;
    }

    @Override
    public void send(ByteBuffer frames) {
        ReliableStream s = stream;
        if (s == null || closeReason != null || !frames.hasRemaining()) {
            return; // not open yet (a session sends only after opened) or closing: as TCP drops onto a closed channel
        }
        s.append(frames);
        if (s.queued() > settings.writeBufferHighBytes()) {
            notWritable = true;
        }
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public boolean writable() {
        return !notWritable;
    }

    @Override
    public void close(String reason) {
        recordReason(reason == null ? "closed" : reason);
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private synchronized boolean recordReason(String reason) {
        if (closeReason != null) {
            return false;
        }
        closeReason = reason;
        return true;
    }

    boolean closing() {
        return closeReason != null;
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public String toString() {
        return "dpdk link " + remote;
    }

    /** Waits until the thread has ended, at most {@code millis}; for the transport's deactivation. */
    boolean join(long millis) {
        Thread t = thread;
        if (t == null || t == Thread.currentThread()) {
            return true;
        }
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !t.isAlive();
    }

    private void run() {
        Ready ready;
        try {
            ready = setup.run(this);
        } catch (IOException | RuntimeException e) {
            String reason = closeReason != null ? closeReason : e.getMessage();
            LOG.log(Level.DEBUG, "{0}: not opened: {1}", this, reason);
            owner.ended(this);
            if (presetSession != null) {
                closedQuietly(presetSession, reason);
            }
            return;
        }
        FrameSession session = ready.session();
        String reason;
        try {
            reason = loop(ready, session);
        } catch (RuntimeException e) {
            reason = "the DPDK link failed: " + e;
            LOG.log(Level.ERROR, this + ": " + reason, e);
        } finally {
            if (!peerGone) {
                // memif unmaps a link's rings when either end closes its port, and DPDK does not guard a poll running
                // at that moment on the other end (a replica died of SIGSEGV in rx when its primary's transport
                // restarted under load, after a fixed 20 ms wait). So the end that closes first half-closes its
                // control socket and waits until the peer, which stops polling and closes its port on seeing that,
                // closes its control socket too; only then are the rings unmapped here
                awaitPeerClosed(ready.control());
            }
            ready.port().close();
            try {
                ready.control().close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "{0}: closing the control socket: {1}", this, e.getMessage());
            }
            owner.ended(this);
        }
        closedQuietly(session, reason);
    }

    /**
     * Half-closes the control socket and waits, at most {@link #QUIESCE_MAX_NANOS}, until the peer closes its own:
     * it has then stopped polling and closed its port. A peer that hangs is not waited for longer.
     */
    private void awaitPeerClosed(SocketChannel control) {
        long deadline = System.nanoTime() + QUIESCE_MAX_NANOS;
        ByteBuffer probe = ByteBuffer.allocate(64);
        try {
            control.shutdownOutput();
            while (System.nanoTime() - deadline < 0) {
                probe.clear();
                int n = control.read(probe);
                if (n < 0) {
                    return;
                }
                if (n == 0) {
                    LockSupport.parkNanos(200_000L);
                }
            }
            LOG.log(Level.WARNING, "{0}: the peer did not close its end within {1} ms; its port may still be polled",
                    this, QUIESCE_MAX_NANOS / 1_000_000);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: the control socket failed while closing: {1}", this, e.getMessage());
        }
    }

    private String loop(Ready ready, FrameSession session) {
        DpdkSettings s = settings;
        if (s.dedicatedCore() >= 0 && !owner.pin(s.dedicatedCore())) {
            LOG.log(Level.WARNING, "{0}: could not pin the I/O thread to core {1}; it floats", this,
                    s.dedicatedCore());
        }
        MemifPort port = ready.port();
        long now = System.nanoTime();
        ReliableStream st = new ReliableStream(ready.epoch(), maxFrame, s.heartbeatNanos(), owner.counterSet(),
                session::frame, now);
        stream = st;
        ByteBuffer out = ByteBuffer.allocateDirect(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        out.flip();
        ByteBuffer in = ByteBuffer.allocateDirect(BATCH * (Segment.MAX_FRAME + 2)).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer probe = ByteBuffer.allocate(1);
        WaitStrategy.Idle idle = new WaitStrategy.Idle(s.waitStrategy(), s.maxParkNanos());
        long nextWatch = now + WATCH_NANOS;
        long lastRestart = now;
        long lingerUntil = 0;
        if (!callback(session, () -> session.opened(this), "opened")) {
            return closeReason;
        }
        while (true) {
            now = System.nanoTime();
            boolean work = false;
            if (closeReason != null) {
                if (lingerUntil == 0) {
                    lingerUntil = now + LINGER_NANOS;
                }
                if (st.drained() || now - lingerUntil > 0 || peerGone) {
                    return closeReason;
                }
            }
            // send: what the port did not take last round first, then what is due now
            if (!out.hasRemaining()) {
                out.clear();
                st.emit(out, now);
                out.flip();
            }
            if (out.hasRemaining() && port.send(out) > 0) {
                work = true;
            }
            in.clear();
            int frames = port.receive(in, BATCH);
            if (frames > 0) {
                work = true;
                in.flip();
                try {
                    // a closing link still takes the peer's acknowledgements, which its linger waits for; the
                    // stream delivers nothing more to the session once closing() says so
                    for (int i = 0; i < frames; i++) {
                        int size = in.getShort() & 0xFFFF;
                        int at = in.position();
                        st.receive(in, at, size, now, this::closing);
                        in.position(at + size);
                    }
                } catch (FrameAssembler.BadLength e) {
                    LOG.log(Level.WARNING, "closing {0}: {1}", this, e.getMessage());
                    recordReason(e.getMessage());
                } catch (RuntimeException e) {
                    sessionFailed("frame", e);
                }
            }
            if (notWritable && st.queued() < settings.writeBufferLowBytes() && closeReason == null) {
                notWritable = false;
                callback(session, session::writable, "writable");
            }
            if (now - nextWatch > 0) {
                nextWatch = now + WATCH_NANOS;
                String why = watch(ready, st, probe, now);
                if (why != null) {
                    peerGone = true;
                    if (recordReason(why)) {
                        LOG.log(Level.DEBUG, "closing {0}: {1}", this, why);
                    }
                }
                if (ready.client() && !port.linkUp() && now - lastRestart > RESTART_NANOS) {
                    lastRestart = now;
                    port.restart();
                }
            }
            if (work) {
                idle.reset();
            } else if (idle.willPark()) {
                // announced before the check, so that a send racing the park either is seen or unparks us
                parked = true;
                if (!st.hasUnsent() && closeReason == null) {
                    idle.idle();
                }
                parked = false;
            } else {
                idle.idle();
            }
        }
    }

    /** @return why the link must close, or null: the peer closed its control socket, or went silent */
    private String watch(Ready ready, ReliableStream st, ByteBuffer probe, long now) {
        try {
            probe.clear();
            int n = ready.control().read(probe);
            if (n < 0) {
                return PEER_CLOSED;
            }
            if (n > 0) {
                return "rendezvous: the peer sent bytes on the control socket after the exchange";
            }
        } catch (IOException e) {
            return "control socket: " + e.getMessage();
        }
        long silent = now - st.lastHeardNanos();
        if (silent > settings.peerTimeoutNanos()) {
            return "the peer was silent for " + silent / 1_000_000 + " ms (peer.timeout.ms="
                    + settings.peerTimeoutNanos() / 1_000_000 + ")";
        }
        return null;
    }

    private boolean callback(FrameSession session, Runnable call, String name) {
        try {
            call.run();
            return true;
        } catch (RuntimeException e) {
            sessionFailed(name, e);
            return false;
        }
    }

    private void sessionFailed(String callback, RuntimeException e) {
        String m = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getName() : e.getMessage();
        LOG.log(Level.WARNING, "closing " + this + ": its session failed in " + callback + ": " + m, e);
        recordReason(m);
    }

    private void closedQuietly(FrameSession session, String reason) {
        try {
            session.closed(reason);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "session of " + this + " failed in closed(" + reason + ")", e);
        }
    }
}
