package tandem.replication;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import tandem.api.auth.ReplicaAuthorizer;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.JournalReader;
import tandem.api.journal.SegmentInfo;
import tandem.api.journal.SlotVisitor;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameSession;
import tandem.protocol.replication.Ack;
import tandem.protocol.replication.Challenge;
import tandem.protocol.replication.ChallengeResponse;
import tandem.protocol.replication.FrameException;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.Handshake;
import tandem.protocol.replication.Heartbeat;
import tandem.protocol.replication.Rotate;
import tandem.protocol.replication.SegmentSeedBegin;
import tandem.protocol.replication.Signal;
import tandem.protocol.replication.SnapshotBegin;
import tandem.protocol.replication.SnapshotEnd;
import tandem.protocol.replication.StreamStart;

/**
 * The primary's side of one replica connection. On the transport's thread: Challenge, the signed response, the
 * Handshake, then the replica's Acks. On a sender thread of its own: the handshake's validation against the journal,
 * StreamStart, catch-up from the journal files, then the live frames of the replica's {@link Outbox}, and a
 * Heartbeat whenever the link was idle.
 */
final class PrimarySession implements FrameSession, Fanout.Sink {

    private static final Logger LOG = System.getLogger("tandem.replication");
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Catch-up frames are sent once this many bytes are framed. */
    private static final int CATCH_UP_FLUSH = 64 * 1024;
    /** How long a handshake ahead of the durable journal may wait for it (the replica may get batches first). */
    private static final int SETTLE_ATTEMPTS = 8;
    private static final long SETTLE_PAUSE_MS = 50;
    /**
     * The checkpoint stream's trailer names a psync replication id; the journal protocol's snapshot is positioned
     * by SnapshotBegin's sequence instead, so its trailer carries this token and offset 0.
     */
    static final String TRAILER_ID = "journal";

    enum State { AUTHENTICATING, HANDSHAKING, CATCHING_UP, STREAMING, CLOSED }

    private final PrimaryContext node;
    private final byte[] nonce = new byte[Frames.HASH_LENGTH];
    private final ReentrantLock writableLock = new ReentrantLock();
    private final Condition writableAgain = writableLock.newCondition();
    private volatile State state = State.AUTHENTICATING;
    private volatile FrameLink link;
    private volatile String id = "";
    private volatile long sentHighWater;
    private volatile long inMemory;
    private volatile long acked;
    private volatile long lastAckNanos;
    private final AckRoundTrip ackRoundTrip = new AckRoundTrip();
    private volatile ReplicationHub.ReplicaSlot slot;
    private volatile Thread sender;
    private ScheduledFuture<?> handshakeTimeout;
    private volatile Outbox outbox;
    private volatile Transfer transfer;
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
    private long handshakeLast;
    private byte[] handshakeChain;

    /** What a session needs from the component. */
    interface PrimaryContext {
        JournalReader journal();

        ReplicationHub hub();

        ReplicaAuthorizer authorizer();

        ReplicationSettings settings();

        long epoch();

        Fanout fanout();

        /** @return the checkpoint service, or null while none is active */
        Checkpoints checkpoints();

        /** @return true when the key is new to the registry (persisted before this returns) */
        boolean register(String id);

        /** Closes any other session of the same replica: a reconnection replaces its stale predecessor. */
        void replaceOthers(PrimarySession session);

        void ended(PrimarySession session);

        /** A snapshot (checkpoint and segment seed) is about to be sent to a replica: a full sync, counted. */
        default void snapshotSent() {
        }

        /**
         * The restart fence: a replica showed its position, ahead of this journal or not.
         *
         * @return false when this primary is fenced and the replica is ahead: it is sent nothing (no HashMismatch
         *         that would make it discard what it holds) and the fence names it
         */
        boolean shown(String id, String address, long replicaLast, boolean ahead);

        /** A replica has seen a higher epoch than this primary's: another node was promoted after this one. */
        void superseded(String id, String address, long replicaEpoch);

        ScheduledFuture<?> schedule(Runnable task, long delayMs);
    }

    PrimarySession(PrimaryContext node) {
        this.node = node;
    }

    /** @return the ack round trips measured since the last call */
    org.HdrHistogram.Histogram ackRoundTrips() {
        return ackRoundTrip.interval();
    }

    String id() {
        return id;
    }

    State state() {
        return state;
    }

    @Override
    public void opened(FrameLink l) {
        this.link = l;
        RANDOM.nextBytes(nonce);
        l.send(ByteBuffer.wrap(Challenge.frame(nonce)));
        handshakeTimeout = node.schedule(() -> {
            if (state == State.AUTHENTICATING || state == State.HANDSHAKING) {
                l.close("no " + (state == State.AUTHENTICATING ? "challenge response" : "handshake") + " within "
                        + node.settings().handshakeTimeoutMs() + " ms");
            }
        }, node.settings().handshakeTimeoutMs());
    }

    @Override
    public void frame(ByteBuffer payload) {
        byte tag = Frames.tag(payload);
        if (payload.remaining() > Frames.MAX_CONTROL_FRAME && state != State.CLOSED) {
            // a replica sends control frames only: auth, handshake and acks are all within this limit
            throw new FrameException("a " + payload.remaining() + "-byte " + Frames.name(tag)
                    + " frame from a replica (the limit is " + Frames.MAX_CONTROL_FRAME + ")");
        }
        switch (state) {
            case AUTHENTICATING -> authenticate(payload, tag);
            case HANDSHAKING -> handshake(payload, tag);
            case CATCHING_UP, STREAMING -> {
                if (tag == Frames.TAG_ACK) {
                    ack(payload);
                }
                // other replica frames after the handshake are ignored, as the spec's primary does
            }
            default -> {
            }
        }
    }

    private void authenticate(ByteBuffer p, byte tag) {
        if (tag != Frames.TAG_CHALLENGE_RESPONSE) {
            throw new FrameException("expected ChallengeResponse before anything else, got " + Frames.name(tag));
        }
        ChallengeResponse.check(p);
        byte[] key = ChallengeResponse.publicKey(p);
        ReplicaAuthorizer authorizer = node.authorizer();
        if (authorizer == null) {
            // not AuthFailed: the key is not refused, it cannot be checked now; the replica retries
            link.close("no replica authorizer: tandem.auth is not active");
            return;
        }
        ReplicaAuthorizer.Verdict verdict = authorizer.verify(key, nonce, ChallengeResponse.signature(p));
        String keyText = Base64.getEncoder().encodeToString(key);
        if (verdict != ReplicaAuthorizer.Verdict.ALLOWED) {
            link.send(ByteBuffer.wrap(Signal.AUTH_FAILED.frame()));
            LOG.log(Level.WARNING, "replica {0} with key {1} refused: {2}", link.remoteAddress(), keyText, verdict);
            link.close("authentication failed: " + verdict);
            return;
        }
        id = keyText;
        state = State.HANDSHAKING;
        link.send(ByteBuffer.wrap(Signal.AUTH_OK.frame()));
    }

    private void handshake(ByteBuffer p, byte tag) {
        if (tag != Frames.TAG_HANDSHAKE) {
            throw new FrameException("expected Handshake after AuthOk, got " + Frames.name(tag));
        }
        Handshake.check(p);
        int version = Handshake.protocolVersion(p);
        if (version != Frames.PROTOCOL_VERSION) {
            LOG.log(Level.WARNING, "replica {0} speaks protocol version {1}, this primary {2}: refused",
                    link.remoteAddress(), version, Frames.PROTOCOL_VERSION);
            link.close("protocol version " + version + ", the primary speaks " + Frames.PROTOCOL_VERSION);
            return;
        }
        long replicaEpoch = Handshake.epoch(p);
        if (replicaEpoch > node.epoch()) {
            LOG.log(Level.ERROR, "replica {0} has seen epoch {1}, this primary is at {2}: another node was promoted "
                    + "after this one; refusing it", link.remoteAddress(), replicaEpoch, node.epoch());
            node.superseded(id, link.remoteAddress(), replicaEpoch);
            link.close("the replica's epoch " + replicaEpoch + " is above this primary's " + node.epoch());
            return;
        }
        if (node.hub().upstream() != null) {
            LOG.log(Level.WARNING, "replica {0} ({1}) refused: this node follows {2} itself", link.remoteAddress(), id,
                    node.hub().upstream());
            link.close("this node is a replica of " + node.hub().upstream() + ": no chained replication");
            return;
        }
        node.replaceOthers(this);
        ReplicationHub.ReplicaSlot s = node.hub().attach(id, "journal", link.remoteAddress());
        if (s == null) {
            LOG.log(Level.WARNING, "replica {0} ({1}) refused: this primary already serves {2} replicas",
                    link.remoteAddress(), id, ReplicationHub.MAX_REPLICAS);
            link.close("the primary already serves " + ReplicationHub.MAX_REPLICAS + " replicas");
            return;
        }
        slot = s;
        handshakeLast = Handshake.lastSequence(p);
        handshakeChain = Handshake.chainHash(p);
        handshakeTimeout.cancel(false);
        state = State.CATCHING_UP;
        Thread t = new Thread(this::send, "tandem-repl-sender-" + link.remoteAddress());
        t.setDaemon(true);
        sender = t;
        t.start();
    }

    private void ack(ByteBuffer p) {
        Ack.check(p);
        long a = Ack.ackedSequence(p);
        long m = Ack.inMemorySequence(p);
        long sent = sentHighWater;
        if (m > sent || a > m) {
            LOG.log(Level.ERROR, "replica {0} evicted: its ack claims in-memory {1} and durable {2} but it was sent "
                    + "up to {3}", id, m, a, sent);
            link.close("ack beyond what was sent (in-memory " + m + ", durable " + a + ", sent " + sent + ")");
            return;
        }
        inMemory = Math.max(inMemory, m);
        acked = Math.max(acked, a);
        lastAckNanos = System.nanoTime();
        ackRoundTrip.acknowledged(m);
        ReplicationHub.ReplicaSlot s = slot;
        if (s != null) {
            s.ack(m, a);
        }
    }

    @Override
    public void writable() {
        writableLock.lock();
        try {
            writableAgain.signalAll();
        } finally {
            writableLock.unlock();
        }
    }

    @Override
    public void closed(String reason) {
        teardown(reason);
    }

    /** Releases everything the session holds, once, whichever of the link or the component ends it first. */
    private void teardown(String reason) {
        State was;
        synchronized (this) {
            was = state;
            if (was == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
        Outbox o = outbox;
        if (o != null) {
            node.fanout().remove(this);
            o.close();
        }
        ReplicationHub.ReplicaSlot s = slot;
        if (s != null) {
            s.detach();
        }
        Thread t = sender;
        if (t != null) {
            t.interrupt();
        }
        writable();
        if (was == State.STREAMING || was == State.CATCHING_UP) {
            LOG.log(Level.INFO, "replica {0} ({1}) disconnected at sequence {2}: {3}", id, remote(), sentHighWater,
                    reason);
        } else {
            LOG.log(Level.INFO, "replica connection {0} closed before streaming: {1}", remote(), reason);
        }
        node.ended(this);
    }

    void close(String reason) {
        FrameLink l = link;
        if (l != null) {
            l.close(reason);
        }
    }

    /**
     * The component is stopping: closes the link and releases the replica's slot now, without waiting for the
     * transport to report the close (a transport that is stopping too may never report it).
     */
    void shutdown(String reason) {
        close(reason);
        teardown(reason);
    }

    private String remote() {
        FrameLink l = link;
        return l == null ? "?" : l.remoteAddress();
    }

    ReplicationStatus.Replica status(long lastSequence) {
        long since = lastAckNanos == 0 ? -1 : (System.nanoTime() - lastAckNanos) / 1_000_000;
        String s = switch (state) {
            case AUTHENTICATING, HANDSHAKING -> "connecting";
            case CATCHING_UP -> "catching-up";
            case STREAMING -> "streaming";
            case CLOSED -> "disconnected";
        };
        Transfer t = transfer;
        return new ReplicationStatus.Replica(id, remote(), t != null ? "snapshot" : s, sentHighWater, inMemory, acked,
                Math.max(0, lastSequence - acked), since, t == null ? null : t.status());
    }

    // ---- the sender thread ------------------------------------------------------------------------------------

    private void send() {
        try {
            stream();
        } catch (InterruptedException e) {
            // closed
        } catch (RuntimeException | Error e) {
            // an Error too (out of memory while large entries are read): the session closes with the reason and
            // the replica reconnects from its position, rather than the thread dying with its session open
            if (state != State.CLOSED) {
                LOG.log(Level.WARNING, "replication sender for " + id + " failed", e);
                close("sender failed: " + e.getMessage());
            }
        }
    }

    private void stream() throws InterruptedException {
        JournalReader journal = node.journal();
        long last = handshakeLast;
        Validation validation = validate(journal, last, handshakeChain);
        if (!node.shown(id, remote(), last, validation.ahead())) {
            close("fenced: the replica is ahead of this restarted primary");
            return;
        }
        String divergence = validation.divergence();
        SegmentInfo origin = journal.segments().get(0);
        boolean behind = divergence == null && last + 1 < origin.startSequence();
        SegmentInfo start = origin;
        if (divergence != null || behind) {
            String why = divergence != null ? "diverged: " + divergence : "is at sequence " + last
                    + " but the journal starts at " + origin.startSequence();
            Snapshot snapshot = prepareSnapshot(journal, why);
            if (snapshot == null) {
                return;
            }
            register();
            try {
                Signal signal = divergence != null ? Signal.HASH_MISMATCH : Signal.NEED_SNAPSHOT;
                sendFrames(ByteBuffer.wrap(signal.frame()));
                node.snapshotSent();
                sendSnapshot(snapshot);
            } finally {
                snapshot.close();
            }
            last = snapshot.sequence;
            start = snapshot.seedSegment;
            origin = journal.segments().get(0);
        } else {
            register();
        }
        slot.seed(last);
        inMemory = last;
        acked = last;
        sentHighWater = last;
        outbox = new Outbox(node.settings().ringMaxBytes());
        node.fanout().add(this); // before the catch-up, so that nothing journaled from now on is missed
        boolean genesisKnown = origin.startSequence() == 1 && origin.sealed();
        sendFrames(ByteBuffer.wrap(StreamStart.frame(last, start.startSequence(), start.anchor(), node.epoch(),
                node.hub().ackPolicy().wire(), genesisKnown, genesisKnown ? origin.entries() : 0,
                start.replicationOffset())));
        long position = catchUp(journal, last, Long.MAX_VALUE);
        LOG.log(Level.INFO, "replica {0} ({1}) caught up from sequence {2} to {3}; streaming", id, remote(), last,
                position);
        state = State.STREAMING;
        live(journal, position);
    }

    /**
     * A snapshot for this replica: a checkpoint of the store at its applied sequence S, the chain value at S, and
     * the segment seed (the raw prefix of the segment that holds S+1), copied at the cut so that a rotation or a
     * purge during the transfer cannot change it.
     */
    private final class Snapshot implements AutoCloseable {
        final Checkpoints.Cut cut;
        final long sequence;
        final byte[] chain;
        final java.nio.file.Path seed;
        final long seedLength;
        final SegmentInfo seedSegment;

        Snapshot(Checkpoints.Cut cut, long sequence, byte[] chain, java.nio.file.Path seed, long seedLength,
                SegmentInfo seedSegment) {
            this.cut = cut;
            this.sequence = sequence;
            this.chain = chain;
            this.seed = seed;
            this.seedLength = seedLength;
            this.seedSegment = seedSegment;
        }

        @Override
        public void close() {
            cut.close();
            try {
                java.nio.file.Files.deleteIfExists(seed);
            } catch (java.io.IOException e) {
                LOG.log(Level.WARNING, "cannot delete the segment seed copy {0}: {1}", seed, e.getMessage());
            }
        }
    }

    /**
     * Cuts everything a snapshot needs before anything is sent, so that a primary that cannot serve one leaves the
     * replica's journal as it is (the replica only retries).
     *
     * @return the snapshot, or null when it cannot be served (the link is then closed, with the reason logged)
     */
    private Snapshot prepareSnapshot(JournalReader journal, String why) {
        Checkpoints checkpoints = node.checkpoints();
        if (checkpoints == null) {
            LOG.log(Level.ERROR, "replica {0} ({1}) {2}: it needs a snapshot, but no checkpoint service is active "
                    + "(tandem.checkpoint); closing", id, remote(), why);
            close("a snapshot is needed but cannot be served: tandem.checkpoint is not active");
            return null;
        }
        Checkpoints.Cut cut = null;
        java.nio.file.Path seed = null;
        try {
            cut = checkpoints.cut(id);
            long s = cut.appliedSequence();
            byte[] chain = journal.chainAt(s);
            if (chain == null) {
                throw new IllegalStateException("the journal has no chain value at the checkpoint's sequence " + s);
            }
            java.nio.file.Path dir = node.settings().stateDirectory();
            java.nio.file.Files.createDirectories(dir);
            seed = java.nio.file.Files.createTempFile(dir, "seed-", ".tmp");
            long seedLength;
            try (java.nio.channels.FileChannel out = java.nio.channels.FileChannel.open(seed,
                    java.nio.file.StandardOpenOption.WRITE)) {
                seedLength = journal.writeSeed(s, out);
            }
            SegmentInfo seedSegment = seedSegment(seed);
            LOG.log(Level.WARNING, "replica {0} ({1}) {2}: sending a snapshot at sequence {3} ({4} bytes of "
                    + "checkpoint, a {5}-byte segment seed)", id, remote(), why, s,
                    cut.streamLength(TRAILER_ID, 0), seedLength);
            return new Snapshot(cut, s, chain, seed, seedLength, seedSegment);
        } catch (java.io.IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "replica {0} ({1}) {2}: it needs a snapshot, which cannot be prepared: {3}; "
                    + "closing", id, remote(), why, String.valueOf(e.getMessage()));
            if (cut != null) {
                cut.close();
            }
            if (seed != null) {
                try {
                    java.nio.file.Files.deleteIfExists(seed);
                } catch (java.io.IOException ignored) {
                    // a temporary file in the state directory; the next seed gets another name
                }
            }
            close("a snapshot is needed but cannot be prepared: " + e.getMessage());
            return null;
        }
    }

    /** The identity of the segment a seed is the prefix of: its header, as the replica will have it. */
    private static SegmentInfo seedSegment(java.nio.file.Path seed) throws java.io.IOException {
        ByteBuffer header = ByteBuffer.allocate(tandem.protocol.journal.SegmentHeader.SIZE);
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(seed)) {
            while (header.hasRemaining() && in.read(header) >= 0) {
                // fill the header
            }
        }
        tandem.protocol.journal.SegmentHeader h = new tandem.protocol.journal.SegmentHeader().wrap(header, 0);
        String bad = h.check(new java.util.zip.CRC32C());
        if (bad != null) {
            throw new java.io.IOException("the segment seed's header is not sound: " + bad);
        }
        return new SegmentInfo("seed", h.startingSequence(), h.startingSequence() - 1, h.anchor(),
                h.replicationOffset(), false);
    }

    /**
     * SnapshotBegin, the checkpoint stream in SnapshotChunks, SnapshotEnd with its CRC32C; then SegmentSeedBegin,
     * the seed in SnapshotChunks, SnapshotEnd. Progress is visible in {@code repl:status} meanwhile.
     */
    private void sendSnapshot(Snapshot snapshot) throws InterruptedException {
        long length = snapshot.cut.streamLength(TRAILER_ID, 0);
        long started = System.nanoTime();
        sendFrames(ByteBuffer.wrap(SnapshotBegin.frame(length, snapshot.sequence, snapshot.chain)));
        ChunkChannel body = new ChunkChannel(this::sendFrames);
        transfer = new Transfer("snapshot", body, length, started);
        try {
            snapshot.cut.send(TRAILER_ID, 0, body);
        } catch (java.io.IOException e) {
            if (state == State.CLOSED || Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("closed during the snapshot");
            }
            throw new java.io.UncheckedIOException("sending the checkpoint: " + e.getMessage(), e);
        }
        flush(body);
        sendFrames(ByteBuffer.wrap(SnapshotEnd.frame(body.crc())));
        ChunkChannel seed = new ChunkChannel(this::sendFrames);
        transfer = new Transfer("segment seed", seed, snapshot.seedLength, System.nanoTime());
        sendFrames(ByteBuffer.wrap(SegmentSeedBegin.frame(snapshot.seedLength)));
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(snapshot.seed)) {
            long at = 0;
            while (at < snapshot.seedLength) {
                long n = in.transferTo(at, snapshot.seedLength - at, seed);
                if (n <= 0) {
                    throw new java.io.IOException("the seed copy ends at byte " + at + " of " + snapshot.seedLength);
                }
                at += n;
            }
        } catch (java.io.IOException e) {
            if (state == State.CLOSED || Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("closed during the segment seed");
            }
            throw new java.io.UncheckedIOException("sending the segment seed: " + e.getMessage(), e);
        }
        flush(seed);
        sendFrames(ByteBuffer.wrap(SnapshotEnd.frame(seed.crc())));
        long ms = (System.nanoTime() - started) / 1_000_000;
        LOG.log(Level.INFO, "replica {0} ({1}): snapshot at sequence {2} sent: {3} bytes of checkpoint and {4} of "
                + "seed in {5} ms", id, remote(), snapshot.sequence, length, snapshot.seedLength, ms);
        transfer = null;
    }

    private void flush(ChunkChannel body) throws InterruptedException {
        try {
            body.flush();
        } catch (java.io.IOException e) {
            throw new InterruptedException("closed during the transfer");
        }
    }

    /** A body being sent, for status. */
    private record Transfer(String what, ChunkChannel channel, long total, long startedNanos) {
        ReplicationStatus.Transfer status() {
            long elapsed = System.nanoTime() - startedNanos;
            long done = channel.written();
            return new ReplicationStatus.Transfer(what, done, total, elapsed <= 0 ? 0 : done * 1e9 / elapsed);
        }
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
                    return state != State.CLOSED;
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
                return state != State.CLOSED;
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
            if (direct && state == State.STREAMING && o.isEmpty() && link.writable()) {
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
                ackRoundTrip.sent(last);
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
        while (state != State.CLOSED) {
            boolean queued = outbox.awaitChunk(heartbeatNanos);
            if (outbox.overflowed()) {
                LOG.log(Level.WARNING, "replica {0} ({1}) evicted: it fell more than ring.max.bytes={2} behind; it "
                        + "will catch up from the journal", id, remote(), node.settings().ringMaxBytes());
                close("fell behind the replication ring");
                return;
            }
            if (!queued) {
                synchronized (order) {
                    if (System.nanoTime() - lastSendNanos >= heartbeatNanos && state != State.CLOSED) {
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
            while (!l.writable() && state != State.CLOSED) {
                writableAgain.await(100, TimeUnit.MILLISECONDS);
            }
        } finally {
            writableLock.unlock();
        }
        if (state == State.CLOSED) {
            throw new InterruptedException("closed");
        }
    }
}
