package tandem.replication;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.JournalReader;
import tandem.api.journal.SegmentInfo;
import tandem.api.journal.SlotVisitor;
import tandem.api.replication.ReplicationStatus;
import tandem.api.transport.FrameLink;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.Heartbeat;
import tandem.protocol.replication.Rotate;
import tandem.protocol.replication.Signal;
import tandem.protocol.replication.StreamStart;

/**
 * The sender of one replica's {@link PrimarySession}, on a thread of its own once the handshake is done: the
 * handshake's validation against the journal, a snapshot when the replica needs one ({@link OutgoingSnapshot}),
 * StreamStart, catch-up from the journal files, then the live frames of the replica's {@link Outbox}, and a
 * Heartbeat whenever the link was idle. While the outbox is drained, the journal thread sends a live batch itself
 * instead of waking this thread.
 */
final class PrimarySender implements Fanout.Sink {

    private static final Logger LOG = System.getLogger("tandem.replication");
    /** Catch-up frames are sent once this many bytes are framed. */
    private static final int CATCH_UP_FLUSH = 64 * 1024;
    /** How long a handshake ahead of the durable journal may wait for it (the replica may get batches first). */
    private static final int SETTLE_ATTEMPTS = 8;
    private static final long SETTLE_PAUSE_MS = 50;

    private final PrimarySession session;
    private final PrimarySession.PrimaryContext node;
    private final FrameLink link;
    private final String id;
    private final String remote;
    private final long handshakeLast;
    private final byte[] handshakeChain;
    private final Thread thread;
    private final ReentrantLock writableLock = new ReentrantLock();
    private final Condition writableAgain = writableLock.newCondition();
    private volatile long sentHighWater;
    private volatile Outbox outbox;
    private volatile Fanout fanout;
    private volatile OutgoingSnapshot snapshot;
    /**
     * Orders the live frames on the link: the sender thread and, once the outbox is drained, the journal thread
     * itself (which then sends a batch at once instead of waking the sender). Held only for non-blocking work.
     */
    private final Object order = new Object();
    /** True while the journal thread may send directly; guarded by {@link #order}. */
    private boolean direct;
    /** The last sequence sent in the live stream; guarded by {@link #order}. */
    private long livePosition;
    private volatile long lastSendNanos;

    /** Streams from the replica's position as its handshake gave it: {@code last} and the chain value there. */
    PrimarySender(PrimarySession session, PrimarySession.PrimaryContext node, FrameLink link, long last,
            byte[] chain) {
        this.session = session;
        this.node = node;
        this.link = link;
        this.id = session.id();
        this.remote = link.remoteAddress();
        this.handshakeLast = last;
        this.handshakeChain = chain;
        this.thread = new Thread(this::send, "tandem-repl-sender-" + remote);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** The session ended: the live frames stop and the thread ends. */
    void stop() {
        Outbox o = outbox;
        if (o != null) {
            fanout.remove(this);
            o.close();
        }
        thread.interrupt();
        writable();
    }

    /** The link's outbound buffer has room again, or the session ended. */
    void writable() {
        writableLock.lock();
        try {
            writableAgain.signalAll();
        } finally {
            writableLock.unlock();
        }
    }

    /** @return the highest sequence sent to the replica */
    long sentHighWater() {
        return sentHighWater;
    }

    /** @return the snapshot transfer under way, or null */
    ReplicationStatus.Transfer transfer() {
        OutgoingSnapshot s = snapshot;
        return s == null ? null : s.status();
    }

    private void send() {
        try {
            stream();
        } catch (InterruptedException e) {
            // closed
        } catch (RuntimeException | Error e) {
            // an Error too (out of memory while large entries are read): the session closes with the reason and
            // the replica reconnects from its position, rather than the thread dying with its session open
            if (!session.isClosed()) {
                LOG.log(Level.WARNING, "replication sender for " + id + " failed", e);
                session.close("sender failed: " + e.getMessage());
            }
        }
    }

    private void stream() throws InterruptedException {
        JournalReader journal = node.journal();
        long last = handshakeLast;
        Validation validation = validate(journal, last, handshakeChain);
        if (!node.shown(id, remote, last, validation.ahead())) {
            session.close("fenced: the replica is ahead of this restarted primary");
            return;
        }
        String divergence = validation.divergence();
        SegmentInfo origin = journal.segments().get(0);
        boolean behind = divergence == null && last + 1 < origin.startSequence();
        SegmentInfo start = origin;
        if (divergence != null || behind) {
            String why = divergence != null ? "diverged: " + divergence : "is at sequence " + last
                    + " but the journal starts at " + origin.startSequence();
            OutgoingSnapshot s = prepareSnapshot(journal, why);
            if (s == null) {
                return;
            }
            register();
            try {
                Signal signal = divergence != null ? Signal.HASH_MISMATCH : Signal.NEED_SNAPSHOT;
                sendFrames(ByteBuffer.wrap(signal.frame()));
                node.snapshotSent();
                sendSnapshot(s);
            } finally {
                snapshot = null;
                s.close();
            }
            last = s.sequence();
            start = s.seedSegment();
            origin = journal.segments().get(0);
        } else {
            register();
        }
        session.startsAt(last);
        sentHighWater = last;
        Fanout f = node.fanout();
        fanout = f;
        outbox = new Outbox(node.settings().ringMaxBytes());
        f.add(this); // before the catch-up, so that nothing journaled from now on is missed
        // appended before this sender joined the fan-out, so never offered to it; the catch-up below reads only what
        // is durable when it reads, so these may still be syncing then: they are bridged from the files before the
        // live stream starts, or no later batch may ever come to reveal the gap (its writers wait for this replica)
        long appendedBeforeJoining = journal.lastSequence();
        boolean genesisKnown = origin.startSequence() == 1 && origin.sealed();
        sendFrames(ByteBuffer.wrap(StreamStart.frame(last, start.startSequence(), start.anchor(), node.epoch(),
                node.hub().ackPolicy().wire(), genesisKnown, genesisKnown ? origin.entries() : 0,
                start.replicationOffset(), node.psyncId())));
        long position = catchUp(journal, last, Long.MAX_VALUE);
        if (position < appendedBeforeJoining) {
            position = bridge(journal, position, appendedBeforeJoining);
        }
        LOG.log(Level.INFO, "replica {0} ({1}) caught up from sequence {2} to {3}; streaming", id, remote, last,
                position);
        session.streaming();
        live(journal, position);
    }

    /**
     * Cuts everything a snapshot needs before anything is sent, so that a primary that cannot serve one leaves the
     * replica's journal as it is (the replica only retries).
     *
     * @return the snapshot, or null when it cannot be served (the link is then closed, with the reason logged)
     */
    private OutgoingSnapshot prepareSnapshot(JournalReader journal, String why) {
        Checkpoints checkpoints = node.checkpoints();
        if (checkpoints == null) {
            LOG.log(Level.ERROR, "replica {0} ({1}) {2}: it needs a snapshot, but no checkpoint service is active "
                    + "(tandem.checkpoint); closing", id, remote, why);
            session.close("a snapshot is needed but cannot be served: tandem.checkpoint is not active");
            return null;
        }
        try {
            OutgoingSnapshot s = OutgoingSnapshot.cut(checkpoints, journal, id, node.settings().stateDirectory());
            LOG.log(Level.WARNING, "replica {0} ({1}) {2}: sending a snapshot at sequence {3} ({4} bytes of "
                    + "checkpoint, a {5}-byte segment seed)", id, remote, why, s.sequence(), s.streamLength(),
                    s.seedLength());
            return s;
        } catch (java.io.IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "replica {0} ({1}) {2}: it needs a snapshot, which cannot be prepared: {3}; "
                    + "closing", id, remote, why, String.valueOf(e.getMessage()));
            session.close("a snapshot is needed but cannot be prepared: " + e.getMessage());
            return null;
        }
    }

    /** Sends the snapshot, its progress visible in {@code repl:status} meanwhile. */
    private void sendSnapshot(OutgoingSnapshot s) throws InterruptedException {
        long started = System.nanoTime();
        snapshot = s;
        s.send(this::sendFrames, session::isClosed);
        long ms = (System.nanoTime() - started) / 1_000_000;
        LOG.log(Level.INFO, "replica {0} ({1}): snapshot at sequence {2} sent: {3} bytes of checkpoint and {4} of "
                + "seed in {5} ms", id, remote, s.sequence(), s.streamLength(), s.seedLength(), ms);
    }

    /** Persists the replica in the registry before it receives anything it could acknowledge. */
    private void register() {
        if (node.register(id)) {
            LOG.log(Level.INFO, "replica {0} registered", id);
        }
    }

    /**
     * What a handshake says of the replica's history against this journal's.
     *
     * @param ahead      the replica holds sequences beyond this journal's end
     * @param divergence null when its history is a prefix of this journal's, else why not
     */
    private record Validation(boolean ahead, String divergence) {
    }

    private static Validation validate(JournalReader journal, long last, byte[] chain) throws InterruptedException {
        if (last == 0) {
            return new Validation(false, null);
        }
        for (int attempt = 0; ; attempt++) {
            if (last <= journal.durableSequence()) {
                break;
            }
            if (attempt == SETTLE_ATTEMPTS || last > journal.lastSequence()) {
                return new Validation(true, "the replica is at sequence " + last + ", beyond this journal's end "
                        + journal.lastSequence());
            }
            // the replica may have received and synced a batch before this node's own fsync finished; a bounded
            // pause, not a wait for a condition: the journal offers no event for "durable or never"
            Thread.sleep(SETTLE_PAUSE_MS);
        }
        byte[] ours = journal.chainAt(last);
        if (ours == null) {
            return new Validation(false, null); // before the retained history: the catch-up decides (NeedSnapshot)
        }
        if (!Arrays.equals(chain, new byte[chain.length]) && !Arrays.equals(ours, chain)) {
            return new Validation(false, "chain mismatch at sequence " + last);
        }
        return new Validation(false, null);
    }

    /** Sends the durable entries after {@code from}, up to {@code upTo}; @return the last sequence sent */
    private long catchUp(JournalReader journal, long from, long upTo) throws InterruptedException {
        SlotFramer framer = new SlotFramer(node.settings().maxFrameBytes());
        long[] position = {from};
        InterruptedException[] interrupted = {null};
        journal.readSlots(from, new SlotVisitor() {
            @Override
            public boolean segment(long startSequence, byte[] anchor) {
                try {
                    flush(framer);
                    sendFrames(ByteBuffer.wrap(Rotate.frame(startSequence - 1, anchor)));
                    return !session.isClosed();
                } catch (InterruptedException e) {
                    interrupted[0] = e;
                    return false;
                }
            }

            @Override
            public boolean slot(long sequence, ByteBuffer slot) {
                if (sequence > upTo) {
                    return false;
                }
                framer.add(sequence, slot);
                position[0] = sequence;
                if (framer.size() >= CATCH_UP_FLUSH) {
                    try {
                        flush(framer);
                    } catch (InterruptedException e) {
                        interrupted[0] = e;
                        return false;
                    }
                }
                return !session.isClosed();
            }
        });
        if (interrupted[0] != null) {
            throw interrupted[0];
        }
        flush(framer);
        return position[0];
    }

    private void flush(SlotFramer framer) throws InterruptedException {
        if (framer.isEmpty()) {
            return;
        }
        sentHighWater = Math.max(sentHighWater, framer.last());
        sendFrames(framer.finish());
        framer.reset();
    }

    /** Journal thread: a live frame for this replica, sent at once when nothing is queued before it. */
    @Override
    public void offer(Outbox.Kind kind, ByteBuffer frames, long first, long last) {
        Outbox o = outbox;
        synchronized (order) {
            if (direct && session.state() == PrimarySession.State.STREAMING && o.isEmpty() && link.writable()) {
                if (forward(kind, frames, first, last)) {
                    return;
                }
                direct = false; // a gap: the sender fills it from the files
            }
            o.offer(kind, frames, first, last);
        }
    }

    /**
     * Sends live frames if they follow the position. Holds {@link #order}; never blocks.
     *
     * @return false when entries are missing before them (the sender must bridge from the files first)
     */
    private boolean forward(Outbox.Kind kind, ByteBuffer frames, long first, long last) {
        switch (kind) {
            case BATCH -> {
                if (last <= livePosition) {
                    return true; // already sent by the catch-up
                }
                if (first > livePosition + 1) {
                    return false;
                }
                sentHighWater = Math.max(sentHighWater, last);
                link.send(frames);
                session.sent(last);
                livePosition = last;
            }
            case ROTATE -> {
                if (first > livePosition) {
                    return false;
                }
                if (first == livePosition) {
                    link.send(frames);
                }
            }
            case CHAIN_CHECK -> {
                if (first == livePosition) {
                    link.send(frames);
                }
            }
            default -> throw new IllegalStateException(kind.toString());
        }
        lastSendNanos = System.nanoTime();
        return true;
    }

    /**
     * Forwards the outbox's frames as they are, filling from the journal files any gap before them, and hands the
     * live stream to the journal thread whenever the outbox is drained.
     */
    private void live(JournalReader journal, long position) throws InterruptedException {
        long heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(node.settings().heartbeatMs());
        ByteBuffer heartbeat = ByteBuffer.allocate(Frames.LENGTH_PREFIX + Heartbeat.LENGTH);
        synchronized (order) {
            livePosition = position;
        }
        lastSendNanos = System.nanoTime();
        while (!session.isClosed()) {
            boolean queued = outbox.awaitChunk(heartbeatNanos);
            if (outbox.overflowed()) {
                LOG.log(Level.WARNING, "replica {0} ({1}) evicted: it fell more than ring.max.bytes={2} behind; it "
                        + "will catch up from the journal", id, remote, node.settings().ringMaxBytes());
                session.close("fell behind the replication ring");
                return;
            }
            if (!queued) {
                synchronized (order) {
                    if (System.nanoTime() - lastSendNanos >= heartbeatNanos && !session.isClosed()) {
                        heartbeat.clear();
                        Heartbeat.write(heartbeat, livePosition, node.hub().ackPolicy().wire());
                        link.send(heartbeat.flip());
                        lastSendNanos = System.nanoTime();
                    }
                    direct = outbox.isEmpty();
                }
                continue;
            }
            awaitWritable(); // outside the lock: the journal thread must never wait for a slow replica
            Outbox.Chunk c;
            boolean gap;
            long from;
            synchronized (order) {
                c = outbox.pollNow();
                if (c == null) {
                    continue;
                }
                gap = !forward(c.kind, c.frames(), c.first, c.last);
                if (gap) {
                    direct = false;
                }
                from = livePosition;
            }
            try {
                if (gap) {
                    long upTo = c.kind == Outbox.Kind.BATCH ? c.first - 1 : c.first;
                    long reached = bridge(journal, from, upTo);
                    synchronized (order) {
                        livePosition = reached;
                        if (!forward(c.kind, c.frames(), c.first, c.last)) {
                            throw new IllegalStateException("the journal files end at " + reached + " before "
                                    + upTo);
                        }
                    }
                }
            } finally {
                outbox.release(c);
            }
            synchronized (order) {
                direct = outbox.isEmpty();
            }
        }
    }

    /** Sends from the files what lies between the position and the outbox's next frame, once it is durable. */
    private long bridge(JournalReader journal, long position, long upTo) throws InterruptedException {
        // rare: a batch queued before this replica's outbox existed may still be syncing
        journal.awaitDurable(upTo);
        return catchUp(journal, position, upTo);
    }

    /** Hands frames to the transport, waiting while its outbound buffer is full. */
    private void sendFrames(ByteBuffer frames) throws InterruptedException {
        awaitWritable();
        link.send(frames);
    }

    private void awaitWritable() throws InterruptedException {
        FrameLink l = link;
        writableLock.lock();
        try {
            while (!l.writable() && !session.isClosed()) {
                writableAgain.await(100, TimeUnit.MILLISECONDS);
            }
        } finally {
            writableLock.unlock();
        }
        if (session.isClosed()) {
            throw new InterruptedException("closed");
        }
    }
}
