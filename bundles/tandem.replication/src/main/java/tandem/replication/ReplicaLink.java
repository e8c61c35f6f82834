package tandem.replication;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import tandem.api.auth.NodeIdentity;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.ReplicaJournal;
import tandem.api.journal.JournalStoppedException;
import tandem.api.journal.SegmentInfo;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.replication.Ack;
import tandem.protocol.replication.ChainCheck;
import tandem.protocol.replication.Challenge;
import tandem.protocol.replication.ChallengeResponse;
import tandem.protocol.replication.FrameException;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.Handshake;
import tandem.protocol.replication.Heartbeat;
import tandem.protocol.replication.InputBatch;
import tandem.protocol.replication.Rotate;
import tandem.protocol.replication.StreamStart;

/**
 * A replica's link to its primary: connects (and reconnects with backoff), proves its key, hands over its position,
 * then writes what the primary streams into its own journal with the primary's sequences and timestamps, so that
 * its segments are byte-identical, and acknowledges on two tracks: in memory as soon as a frame is appended, durable
 * once its journal has synced it. Receiving never waits for an {@code fdatasync}: an acker thread does, so the
 * journal's durable sequence is the pending-ack queue (the replica's sequences are the primary's, so there is no
 * translation to keep).
 */
final class ReplicaLink implements AutoCloseable {

    private static final Logger LOG = System.getLogger("tandem.replication");
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    /** Retries double from here to reconnect.max.ms: a primary whose bundle restarts is back within 100 ms or so. */
    private static final long FIRST_BACKOFF_MS = 25;
    /** After a link that streamed: retries this far apart, this many times, before the backoff. */
    static final long QUICK_RETRY_MS = 10;
    /** How often a starting replica looks for the checkpoint service before its first handshake. */
    static final long CHECKPOINTS_POLL_MS = 20;
    static final int QUICK_RETRIES = 50;

    /** What the link needs from the component. */
    interface ReplicaContext {
        ReplicaJournal journal();

        ReplicationHub hub();

        NodeIdentity identity();

        FrameTransport transport();

        ReplicationSettings settings();

        long epoch();

        void epoch(long seen);

        ScheduledFuture<?> schedule(Runnable task, long delayMs);

        /** @return the checkpoint service, or null while none is active */
        Checkpoints checkpoints();

        /**
         * @return true while the checkpoint service is not active but is expected to be soon (the node is starting
         *         and its checkpoint bundle may come up after this one): the first handshake then waits for it
         */
        default boolean checkpointsExpected() {
            return false;
        }

        /**
         * This node's journal is now its primary's history at the same offsets (a StreamStart), named by the
         * primary's psync id {@code psyncId} (null: none), or is about to be replaced (a snapshot, with null): the
         * psync protocol takes that id for the day this node is promoted.
         */
        default void primaryHistory(byte[] psyncId) {
        }
    }

    private final ReplicaContext node;
    private final String host;
    private final int port;
    private final ReentrantLock ackLock = new ReentrantLock();
    private final Condition received = ackLock.newCondition();
    private final Thread acker;
    private volatile boolean running = true;
    private volatile Attempt current;
    private volatile String state = "connecting";
    private volatile String lastError;
    private volatile long lastFrameNanos;
    private volatile long accum;
    private volatile long ackedSent;
    /**
     * The last sequence the acker told the pipeline is durable. The acker wakes on what it has not told yet, not on
     * what was acknowledged: the receiver acknowledges too (each batch, each heartbeat), and once an entry it
     * acknowledged was durable already, waiting on {@link #ackedSent} left the pipeline untold until the next batch.
     */
    private volatile long hubTold;
    private volatile AckPolicy primaryPolicy;
    private volatile long snapshotsInstalled;
    private final AtomicLong chainChecksSkipped = new AtomicLong();
    /**
     * Set when this node found, after StreamStart, that its history differs from the primary's (another genesis):
     * the next handshake then announces a chain value that cannot match, so that the primary answers HashMismatch
     * and the snapshot repair follows; a replica never discards its own journal on its own.
     */
    private volatile boolean claimDivergence;
    private long backoffMs = FIRST_BACKOFF_MS;
    private int quickRetriesLeft;
    /** When the last streaming link was lost ({@code nanoTime}, 0: none since) and the attempts made since. */
    private volatile long lostNanos;
    private volatile int attemptsSinceLost;
    private volatile String lastReported;
    private volatile String lastQuiet;
    private ScheduledFuture<?> reconnect;

    ReplicaLink(ReplicaContext node) {
        this.node = node;
        this.host = node.settings().primaryHost();
        this.port = node.settings().primaryPort();
        this.acker = new Thread(this::ackLoop, "tandem-repl-acker");
        acker.setDaemon(true);
        acker.start();
    }

    void start() {
        connect();
    }

    private synchronized void connect() {
        if (!running) {
            return;
        }
        FrameTransport transport = node.transport();
        if (transport == null) {
            state = "disconnected";
            lastError = "no replication transport is active (feature transport-tcp)";
            report(lastError);
            scheduleReconnect(false);
            return;
        }
        if (node.checkpoints() == null && node.checkpointsExpected()) {
            // a primary that finds this node behind its journal sends the snapshot right after NeedSnapshot: a
            // handshake made before the checkpoint service is up would refuse it, and spend a whole transfer
            state = "waiting for the checkpoint service";
            reconnect = node.schedule(this::connect, CHECKPOINTS_POLL_MS);
            return;
        }
        Attempt a = new Attempt();
        current = a;
        attemptsSinceLost++;
        state = "connecting";
        transport.connect(host, port, node.settings().maxFrameBytes(), CONNECT_TIMEOUT_MS, a);
    }

    /**
     * The component's transport changed: the link moves to it. A link that is up closes (and, having streamed, is
     * retried at once through the new transport); a link waiting for its next attempt tries now.
     */
    synchronized void transportChanged() {
        if (!running) {
            return;
        }
        Attempt a = current;
        if (a != null && !a.ended) {
            FrameLink l = a.link;
            if (l != null) {
                l.close("the replication transport changed"); // its end schedules the next attempt
            } else {
                a.moved = true; // still connecting through the old transport: closed as soon as it opens
            }
            return;
        }
        if (reconnect != null) {
            reconnect.cancel(false);
        }
        connect();
    }

    private synchronized void scheduleReconnect(boolean progressed) {
        if (!running) {
            return;
        }
        long delay;
        if (progressed) {
            // a link that streamed and then closed (the primary's transport, auth or replication bundle swapped, a
            // network blip) is retried at once and then every 10 ms for half a second, so that the link is back
            // within 10 ms of the primary listening again (under a replica-acknowledged ack policy writes wait
            // for it), and only then with the growing backoff; a refused connection costs next to nothing
            delay = 0;
            quickRetriesLeft = QUICK_RETRIES;
            backoffMs = FIRST_BACKOFF_MS;
        } else if (quickRetriesLeft > 0) {
            quickRetriesLeft--;
            delay = QUICK_RETRY_MS;
        } else {
            delay = backoffMs;
            backoffMs = Math.min(backoffMs * 2, node.settings().reconnectMaxMs());
        }
        reconnect = node.schedule(this::connect, delay);
    }

    @Override
    public void close() {
        synchronized (this) {
            running = false;
            if (reconnect != null) {
                reconnect.cancel(false);
            }
        }
        Attempt a = current;
        if (a != null && a.link != null) {
            a.link.close("replication stopped");
        }
        acker.interrupt();
        try {
            acker.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    ReplicationStatus.Upstream status() {
        long since = lastFrameNanos == 0 ? -1 : (System.nanoTime() - lastFrameNanos) / 1_000_000;
        Attempt a = current;
        SnapshotReceipt r = a == null ? null : a.receipt;
        return new ReplicationStatus.Upstream(node.settings().primary(), state, accum, ackedSent, since, lastError,
                r == null ? null : r.status());
    }

    /** @return the snapshots this link installed since it started */
    long snapshotsInstalled() {
        return snapshotsInstalled;
    }

    /** @return the primary's ChainChecks this link could not compare (each logged) */
    long chainChecksSkipped() {
        return chainChecksSkipped.get();
    }

    /** Logs an error once while it repeats at every attempt. */
    private void report(String error) {
        if (!error.equals(lastReported)) {
            LOG.log(Level.ERROR, "replica: {0}", error);
            lastReported = error;
        }
    }

    AckPolicy primaryPolicy() {
        return primaryPolicy;
    }

    /** Where a snapshot's segment seed is received: beside the journal, which takes it over by a rename. */
    private java.nio.file.Path seedPath() {
        return java.nio.file.Path.of(node.journal().status().directory()).resolve("seed.incoming");
    }

    // ---- acks -------------------------------------------------------------------------------------------------

    /** Sends the durable track as the journal makes received entries durable. */
    private void ackLoop() {
        ReplicaJournal journal = node.journal();
        while (running) {
            try {
                long target;
                ackLock.lock();
                try {
                    while (running && accum <= hubTold) {
                        received.await();
                    }
                    target = accum;
                } finally {
                    ackLock.unlock();
                }
                journal.awaitDurable(target);
                // the pipeline applies what is durable: one wake-up per sync, none per frame
                node.hub().appended(journal.durableSequence());
                hubTold = Math.max(hubTold, target);
                sendAck();
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (JournalStoppedException e) {
                lastError = "the journal stopped: " + e.getMessage();
                LOG.log(Level.ERROR, "replica: {0}; acknowledgements stop", lastError);
                Attempt a = current;
                if (a != null && a.link != null) {
                    a.link.close(lastError);
                }
                return;
            }
        }
    }

    /** Either thread: one Ack with both tracks, durable read first so that it never exceeds in-memory. */
    private void sendAck() {
        Attempt a = current;
        if (a == null || a.link == null || !a.streaming) {
            return;
        }
        long durable = Math.min(node.journal().durableSequence(), accum);
        long inMem = accum;
        ackedSent = Math.max(ackedSent, durable);
        a.link.send(ByteBuffer.wrap(Ack.frame(durable, inMem)));
    }

    // ---- one connection ---------------------------------------------------------------------------------------

    private final class Attempt implements FrameSession {
        volatile FrameLink link;
        volatile boolean streaming;
        /** Set once the transport closed this attempt's link (or its connection failed). */
        volatile boolean ended;
        /** Set when the transport changed while this attempt was connecting through the old one. */
        volatile boolean moved;
        private boolean authenticated;
        private boolean progressed;
        private long openedNanos;
        private ScheduledFuture<?> timeout;
        private final InputBatch.Cursor cursor = new InputBatch.Cursor();
        /** How far each entry received moves the psync offset, fragments measured as they come. */
        private final FrplPayload.Fragments fragments = new FrplPayload.Fragments();
        /** The snapshot being received, between NeedSnapshot/HashMismatch and its install. */
        volatile SnapshotReceipt receipt;

        @Override
        public void opened(FrameLink l) {
            link = l;
            openedNanos = System.nanoTime();
            if (moved) {
                l.close("the replication transport changed");
                return;
            }
            state = "authenticating";
            timeout = node.schedule(() -> {
                if (!streaming) {
                    l.close("no stream start within " + node.settings().handshakeTimeoutMs() + " ms");
                }
            }, node.settings().handshakeTimeoutMs());
        }

        @Override
        public void frame(ByteBuffer p) {
            lastFrameNanos = System.nanoTime();
            byte tag = Frames.tag(p);
            if (!streaming && receipt == null && p.remaining() > Frames.MAX_CONTROL_FRAME) {
                // before the stream starts a primary sends control frames only, snapshot data aside
                throw new FrameException("a " + p.remaining() + "-byte " + Frames.name(tag) + " frame before the "
                        + "stream started (the limit is " + Frames.MAX_CONTROL_FRAME + ")");
            }
            if (!authenticated) {
                authentication(p, tag);
            } else if (receipt != null) {
                snapshot(p, tag);
            } else if (!streaming) {
                streamStart(p, tag);
            } else {
                streamed(p, tag);
            }
        }

        /** One frame of a snapshot transfer; once both halves arrived, installs them (this thread waits). */
        private void snapshot(ByteBuffer p, byte tag) {
            boolean done;
            try {
                done = receipt.frame(p, tag);
            } catch (java.io.IOException | RuntimeException e) {
                abandon("the snapshot transfer failed: " + e.getMessage());
                return;
            }
            if (done) {
                install(receipt);
            }
        }

        /** Ends the attempt: what was received is deleted, the journal and store are as they were; a retry follows. */
        private void abandon(String why) {
            state = "snapshot-failed";
            lastError = why;
            LOG.log(Level.ERROR, "replica: {0}; nothing was installed, the next attempt starts over", why);
            SnapshotReceipt r = receipt;
            receipt = null;
            if (r != null) {
                r.close();
            }
            link.close(why);
        }

        /**
         * Installs a received snapshot: the store first (from then on the pipeline applies nothing of the old
         * journal: the store's origin names the new history), then the journal's seed (the old lineage archived).
         * A crash between the two leaves a store that waits for its history: the next attempt redoes both.
         */
        private void install(SnapshotReceipt r) {
            state = "installing";
            long s = r.sequence();
            byte[] chain = r.chain();
            ReplicaJournal journal = node.journal();
            try {
                node.hub().install(r.staged().directory(), s, chain);
                journal.installSeed(r.seed());
                byte[] ours = journal.chainAt(s);
                if (journal.durableSequence() != s || ours == null || !Arrays.equals(ours, chain)) {
                    throw new IllegalStateException("the installed seed ends at sequence " + journal.durableSequence()
                            + " with chain " + (ours == null ? "-" : java.util.HexFormat.of().formatHex(ours))
                            + ", the snapshot is at " + s + " with chain " + java.util.HexFormat.of().formatHex(chain)
                            + ": an inconsistent primary");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abandon("interrupted while installing the snapshot");
                return;
            } catch (RuntimeException e) {
                abandon("the snapshot could not be installed: " + e.getMessage());
                return;
            }
            receipt = null;
            r.close();
            claimDivergence = false;
            accum = s;
            ackedSent = s;
            hubTold = s;
            acker.interrupt(); // it may wait for a sequence of the archived lineage
            node.hub().appended(s);
            snapshotsInstalled++;
            state = "snapshot-installed";
            LOG.log(Level.WARNING, "replica: installed the primary''s snapshot at sequence {0}; the previous journal "
                    + "is kept as a lineage archive", s);
        }

        private void authentication(ByteBuffer p, byte tag) {
            switch (tag) {
                case Frames.TAG_CHALLENGE -> {
                    Challenge.check(p);
                    NodeIdentity id = node.identity();
                    if (id == null) {
                        link.close("this node has no key to answer with: tandem.auth is not active");
                        return;
                    }
                    link.send(ByteBuffer.wrap(ChallengeResponse.frame(id.sign(Challenge.nonce(p)), id.publicKey())));
                }
                case Frames.TAG_AUTH_OK -> {
                    authenticated = true;
                    state = "handshaking";
                    ReplicaJournal journal = node.journal();
                    // the handshake names what is durable, and everything received is made durable first, so
                    // that the primary resumes exactly after it and every later ack is within what it sent
                    try {
                        journal.awaitDurable(journal.lastSequence());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        link.close("interrupted");
                        return;
                    }
                    long last = journal.durableSequence();
                    byte[] chain = last == 0 ? new byte[Frames.HASH_LENGTH] : journal.chainAt(last);
                    if (claimDivergence && last > 0) {
                        chain = chain.clone();
                        for (int i = 0; i < chain.length; i++) {
                            chain[i] = (byte) ~chain[i];
                        }
                    }
                    accum = last;
                    ackedSent = last;
                    hubTold = last;
                    node.hub().appended(last); // what this journal holds durably is applied, whatever came before
                    link.send(ByteBuffer.wrap(Handshake.frame(last, chain, node.epoch())));
                }
                case Frames.TAG_AUTH_FAILED -> {
                    state = "refused";
                    NodeIdentity id = node.identity();
                    lastError = "the primary refused this node's key; authorize it there with: "
                            + (id == null ? "auth:allow and this node's key (tandem.auth is not active here now)"
                                    : allowCommand(id.authorizedKeysLine()));
                    report(lastError);
                    link.close("authentication refused");
                }
                default -> throw new FrameException("expected Challenge, AuthOk or AuthFailed, got "
                        + Frames.name(tag));
            }
        }

        private void streamStart(ByteBuffer p, byte tag) {
            switch (tag) {
                case Frames.TAG_STREAM_START -> {
                    StreamStart.check(p);
                    long epoch = StreamStart.epoch(p);
                    if (epoch < node.epoch()) {
                        state = "refused";
                        lastError = "the primary is at epoch " + epoch + ", this node has seen " + node.epoch()
                                + ": a stale primary";
                        report(lastError);
                        link.close("stale primary");
                        return;
                    }
                    node.epoch(epoch);
                    primaryPolicy = AckPolicy.fromWire(StreamStart.ackPolicy(p));
                    ReplicaJournal journal = node.journal();
                    List<SegmentInfo> segments = journal.segments();
                    SegmentInfo mine = segments.get(0);
                    byte[] anchor = StreamStart.anchorHash(p);
                    long segStart = StreamStart.segmentStartSequence(p);
                    long offset = StreamStart.segmentStartOffset(p);
                    boolean fresh = journal.lastSequence() == 0 && segments.size() == 1 && mine.entries() == 0;
                    if ("snapshot-installed".equals(state) && (segments.size() != 1 || mine.startSequence() != segStart
                            || !Arrays.equals(mine.anchor(), anchor))) {
                        lastError = "after the snapshot the primary announces segment " + segStart + " with anchor "
                                + java.util.HexFormat.of().formatHex(anchor) + ", but the installed seed starts at "
                                + mine.startSequence() + ": an inconsistent primary";
                        report(lastError);
                        link.close("stream start does not match the seed");
                        return;
                    }
                    if (fresh && (mine.startSequence() != segStart || !Arrays.equals(mine.anchor(), anchor)
                            || mine.replicationOffset() != offset)) {
                        journal.adopt(segStart, anchor, offset);
                    } else if (!fresh && StreamStart.genesisKnown(p) && mine.startSequence() == 1 && mine.sealed()
                            && mine.entries() != StreamStart.genesisEntries(p)) {
                        state = "diverged";
                        lastError = "the primary's genesis segment holds " + StreamStart.genesisEntries(p)
                                + " entries, this node's " + mine.entries() + ": different histories; asking for "
                                + "a snapshot";
                        report(lastError);
                        claimDivergence = true;
                        link.close("genesis mismatch");
                        return;
                    }
                    node.primaryHistory(StreamStart.psyncId(p));
                    journal.rotateBySize(false);
                    resumeFragments(journal);
                    timeout.cancel(false);
                    streaming = true;
                    progressed = true;
                    state = "streaming";
                    lastError = null;
                    lastReported = null;
                    lastQuiet = null;
                    long now = System.nanoTime();
                    long lost = lostNanos;
                    // how long the link was away, split between reaching the primary and its handshake: what a
                    // swap's pause is made of
                    String back = lost == 0 ? "" : String.format(", back %d ms after the link was lost: connected "
                            + "at attempt %d, %d ms later streaming", (now - lost) / 1_000_000, attemptsSinceLost,
                            (now - openedNanos) / 1_000_000);
                    lostNanos = 0;
                    LOG.log(Level.INFO, "replica: streaming from {0} after sequence {1} (epoch {2}, ack policy {3}{4})",
                            node.settings().primary(), accum, epoch, primaryPolicy == null ? "?"
                                    : primaryPolicy.label(), back);
                }
                case Frames.TAG_NEED_SNAPSHOT, Frames.TAG_HASH_MISMATCH -> {
                    String why = tag == Frames.TAG_NEED_SNAPSHOT
                            ? "the primary no longer holds this node's position"
                            : "this node's journal diverged from the primary's";
                    Checkpoints checkpoints = node.checkpoints();
                    if (checkpoints == null) {
                        state = "needs-snapshot";
                        lastError = why + "; a snapshot is needed, but no checkpoint service is active "
                                + "(tandem.checkpoint)";
                        report(lastError);
                        link.close(lastError);
                        return;
                    }
                    node.primaryHistory(null); // the journal is replaced: no psync id names what it will hold
                    timeout.cancel(false); // a snapshot takes as long as it takes; the transport tells a dead link
                    state = "snapshot";
                    lastError = null;
                    progressed = true;
                    receipt = new SnapshotReceipt(checkpoints, seedPath());
                    LOG.log(Level.WARNING, "replica: {0}; receiving a snapshot from {1}", why,
                            node.settings().primary());
                }
                default -> throw new FrameException("expected StreamStart, got " + Frames.name(tag));
            }
        }

        /** The journal's tail may be a command whose first fragments an earlier link received. */
        private void resumeFragments(ReplicaJournal journal) {
            try {
                fragments.resume(journal);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the journal's tail became durable", e);
            }
        }

        private void streamed(ByteBuffer p, byte tag) {
            ReplicaJournal journal = node.journal();
            switch (tag) {
                case Frames.TAG_INPUT_BATCH -> {
                    cursor.wrap(p);
                    long a = accum;
                    long before = a;
                    ByteBuffer payload = p.duplicate();
                    while (cursor.next()) {
                        long seq = cursor.sequence();
                        if (seq <= a) {
                            continue; // sent again after a reconnection
                        }
                        if (seq != a + 1) {
                            link.close("sequence gap: expected " + (a + 1) + ", got " + seq);
                            break;
                        }
                        payload.limit(cursor.payloadOffset() + cursor.payloadLength())
                                .position(cursor.payloadOffset());
                        journal.appendReplicated(seq, cursor.timestampNs(), cursor.keyHash(), cursor.requestSeq(),
                                cursor.tag(), payload, fragments.length(seq, cursor.timestampNs(), cursor.tag(),
                                        payload));
                        a = seq;
                    }
                    if (a > before) {
                        accum = a;
                        sendAck();
                        ackLock.lock();
                        try {
                            received.signal();
                        } finally {
                            ackLock.unlock();
                        }
                    }
                }
                case Frames.TAG_ROTATE -> {
                    Rotate.check(p);
                    long boundary = Rotate.boundarySeq(p);
                    if (boundary > accum) {
                        link.close("rotation announced after " + boundary + " but this node is at " + accum);
                    } else if (boundary == accum) {
                        try {
                            journal.rotateAt(boundary, Rotate.tailHash(p));
                        } catch (IllegalStateException e) {
                            diverged(e.getMessage());
                        }
                    }
                }
                case Frames.TAG_CHAIN_CHECK -> {
                    ChainCheck.check(p);
                    long seq = ChainCheck.sequence(p);
                    if (seq == accum) {
                        FrameLink l = link;
                        journal.checkChain(seq, ChainCheck.chainHash(p)).whenComplete((same, failure) -> {
                            if (failure != null) {
                                // the journal stopped (its appends fail the link next) or the position is no
                                // longer comparable: one verification less, which must not pass unnoticed
                                chainChecksSkipped.incrementAndGet();
                                Throwable cause = failure instanceof CompletionException
                                        && failure.getCause() != null ? failure.getCause() : failure;
                                LOG.log(Level.WARNING, "replica: the primary''s chain check at sequence {0} could not "
                                        + "be compared: {1}; the stream goes on and the next check compares again",
                                        seq, String.valueOf(cause.getMessage()));
                            } else if (!same) {
                                diverged("chain mismatch at sequence " + seq);
                                l.close("chain mismatch at sequence " + seq);
                            }
                        });
                    }
                }
                case Frames.TAG_HEARTBEAT -> {
                    Heartbeat.check(p);
                    AckPolicy policy = AckPolicy.fromWire(Heartbeat.ackPolicy(p));
                    if (policy != null) {
                        primaryPolicy = policy;
                    }
                    // an idle stream is acknowledged too: the primary's quorum fence reads a replica's liveness
                    // from how recently it acknowledged, writes or none
                    sendAck();
                }
                default -> LOG.log(Level.DEBUG, "replica: ignoring a {0} frame while streaming", Frames.name(tag));
            }
        }

        /** The next handshake tells the truth, the primary finds the chains differ and sends a snapshot. */
        private void diverged(String why) {
            state = "diverged";
            lastError = "this node's journal diverged from the primary's: " + why;
            LOG.log(Level.ERROR, "replica: {0}; reconnecting for a snapshot", lastError);
            link.close(lastError);
        }

        @Override
        public void closed(String reason) {
            ended = true;
            if (timeout != null) {
                timeout.cancel(false);
            }
            SnapshotReceipt r = receipt;
            receipt = null;
            if (r != null) {
                r.close();
                if (!"snapshot-failed".equals(state)) {
                    state = "snapshot-failed";
                    lastError = "the link closed during the snapshot transfer: " + reason;
                    LOG.log(Level.ERROR, "replica: {0}; nothing was installed", lastError);
                }
            }
            boolean wasStreaming = streaming;
            streaming = false;
            if (!"refused".equals(state) && !"diverged".equals(state) && !"needs-snapshot".equals(state)
                    && !"snapshot-failed".equals(state)) {
                state = "disconnected";
                lastError = reason;
            }
            if (wasStreaming) {
                lostNanos = System.nanoTime();
                attemptsSinceLost = 0;
                LOG.log(Level.WARNING, "replica: link to {0} lost at sequence {1}: {2}", node.settings().primary(),
                        accum, reason);
            } else {
                if (!reason.equals(lastQuiet)) {
                    // a link that keeps failing the same way is reported once, not at every attempt
                    LOG.log(Level.INFO, "replica: no session with {0}: {1}", node.settings().primary(), reason);
                    lastQuiet = reason;
                }
            }
            if (current == this) {
                scheduleReconnect(progressed);
            }
        }
    }

    /**
     * @return {@code auth:allow} with an authorizing line ({@code replication KEY COMMENT}), the key quoted: the Gogo
     *         shell reads a word that starts with {@code //} as a comment, and a base64 key may start so
     */
    static String allowCommand(String authorizedKeysLine) {
        String[] f = authorizedKeysLine.trim().split(" ", 3);
        if (f.length < 2) {
            return "auth:allow " + authorizedKeysLine;
        }
        return "auth:allow " + f[0] + " \"" + f[1] + "\"" + (f.length > 2 ? " " + f[2] : "");
    }
}
