package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import tandem.api.journal.DurabilityListener;
import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStoppedException;
import tandem.api.node.Frontend;
import tandem.api.node.NodeClient;
import tandem.api.store.CommandDescriptor;
import tandem.api.server.WriteAdmission;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.command.KeyHash;
import tandem.protocol.frpl.FrplPayload;

/**
 * The ordered pipeline: every request of every connection passes, in arrival order, through one logic thread that
 * sequences writes into the journal, waits until they are durable, applies them to the keyspace with the entry's
 * timestamp as "now", runs reads and connection commands at their turn, and answers.
 *
 * <p>A round of the logic thread: take every request queued so far and sequence it (a write is appended to the
 * journal at once, so the journal thread can start its {@code fdatasync} while this thread goes on); then walk the
 * pending requests in order, applying each write once the journal reports it durable and running each read when
 * the writes before it are applied; then send each touched connection its replies in one write. The logic thread
 * never waits for an {@code fdatasync} itself: the journal thread tells it (a {@link DurabilityListener}) with an
 * event once the batch it waits for is durable, so that requests arriving meanwhile are sequenced into the next
 * batch. That overlap is what groups commits.
 *
 * <p>The journal and the keyspace are dynamic: when either goes away (its bundle is stopped or updated), requests
 * wait until it is back, up to {@code pauseMillis}; a new keyspace is first brought up to date by replaying the
 * journal after its applied sequence. The logic thread holds {@link #services} while it uses them, so that an
 * unbinding never pulls a service out from under a running apply.
 */
public final class Pipeline implements AutoCloseable {

    private static final Logger LOG = System.getLogger("tandem.node");
    private static final int MAX_ROUND = 4096;
    /** A replay writes the store every this many entries: a long replay holds no more than that in memory. */
    private static final int REPLAY_COMMIT_ENTRIES = 4096;
    private static final long TICK_INTERVAL_NS = 100_000_000L;
    private static final long PURGE_INTERVAL_NS = 10_000_000_000L;
    private static final Object CLOSED = new Object();
    public static final String READONLY = "READONLY You can't write against a read only replica.";
    private static final Event DURABLE = new Event(null, null);

    private record Event(Client connection, Object message) {
    }

    /** A request waiting for its turn; {@code sequence} > 0 when it waits for durability. */
    private record Pending(Client connection, Kind kind, long sequence, long timestampNs, byte[][] args,
            List<byte[][]> commands, String immediate) {
    }

    private enum Kind { IMMEDIATE, CONNECTION, READ, REFUSED, WRITE, TRANSACTION, READ_TRANSACTION, TICK, EPOCH_BUMP, WAIT, ERROR }

    /** Why applying stopped: the entry, its command, and what went wrong. */
    record ApplyFailure(long sequence, String command, String cause) {

        /** What a write is answered that is refused, before it is sequenced, while applying is stopped. */
        String error() {
            return "MISCONF writes are stopped: applying journal entry " + sequence + " (" + command + ") failed: "
                    + cause + "; reads go on, see INFO persistence";
        }

        /**
         * What a write is answered that was journaled (as {@code journaled}) before applying stopped, the failed
         * one included: it is not applied now, but it is in the journal, which replicas hold too, so it applies
         * once applying resumes.
         */
        String error(long journaled) {
            return "MISCONF writes are stopped: applying journal entry " + sequence + " (" + command + ") failed: "
                    + cause + "; this write is journaled as entry " + journaled + " and applies when applying "
                    + "resumes; reads go on, see INFO persistence";
        }

        @Override
        public String toString() {
            return "applying journal entry " + sequence + " (" + command + ") failed: " + cause;
        }
    }

    public static final String WAIT_ON_REPLICA = Waits.ON_REPLICA;
    public static final String NOREPLICAS = MinReplicasAdmission.NOREPLICAS;

    /** Work another thread hands to the logic thread, run between requests with the services held. */
    private record Control(java.util.concurrent.Callable<Long> task, java.util.concurrent.CompletableFuture<Long> done) {
    }

    private final LinkedBlockingQueue<Event> queue = new LinkedBlockingQueue<>();
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final Set<Client> touched = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Clients whose replies wait for the ack policy. */
    private final Set<Client> held = Collections.newSetFromMap(new IdentityHashMap<>());
    private final WatchRegistry watches = new WatchRegistry();
    /** Pending writes that a journal change lost; each is refused when its turn comes. */
    private final Set<Pending> lost = Collections.newSetFromMap(new IdentityHashMap<>());
    private final ReentrantLock services = new ReentrantLock();
    private final Condition servicesChanged = services.newCondition();
    private final Thread logic;
    /** Runs what commands finish off the logic thread ({@code REPLICAOF}), one at a time. */
    private final java.util.concurrent.ExecutorService admin = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> {
                Thread t = new Thread(r, "tandem-admin");
                t.setDaemon(true);
                return t;
            });
    /**
     * Told by the journal thread after each {@code fdatasync}: the logic thread never blocks on one, and no thread
     * of its own waits for it either. While a batch syncs, this thread keeps sequencing the next.
     */
    private final DurabilityListener durability = new DurabilityListener() {
        @Override
        public void durable(long sequence) {
            if (sequence >= awaitedSequence) {
                queue.add(DURABLE);
            }
        }

        @Override
        public void stopped(String reason) {
            stoppedReason = reason;
            queue.add(DURABLE);
        }
    };
    /** The sequence the head of the pipeline waits for; a durability advance below it wakes nobody. */
    private volatile long awaitedSequence = Long.MAX_VALUE;
    /** Why the bound journal stopped, or null. */
    private volatile String stoppedReason;
    private final ResponseGate gate = new ResponseGate(() -> queue.add(DURABLE));
    /** The primary this node follows, or null on a primary. */
    private volatile String upstream;
    /**
     * False from a node's first start until a replication protocol declares its role ({@link #follow}): keyspace
     * commands wait for it (up to {@code pauseMillis}), so that a replica never journals a client's write.
     */
    private volatile boolean roleKnown = true;
    private boolean followedSomething;
    /** Set when the logic thread journals a client write; read and cleared when the node turns replica. */
    private volatile boolean tookClientWrites;
    private final long pauseMillis;
    /** The front end attached, or null: told the end of each round and what the logic thread runs. */
    private volatile Frontend frontend;

    private volatile boolean running = true;
    /**
     * The bound services: set by the binder threads under {@link #services}, used by the logic thread under it, and
     * read without it by {@link #appliedSequence}, {@link #keyspaceCommands}, {@link #lead} and {@link #close} on
     * other threads, hence volatile.
     */
    private volatile Journal journal;
    private volatile Keyspace keyspace;
    private boolean replayNeeded = true;
    private boolean journalChanged;
    private boolean waited;
    /** Set once a write of this round waited for a required admission provider that is away. */
    private boolean admissionWaited;
    private long missingSinceNs;
    /** Set once the bound keyspace holds every durable entry of the bound journal; cleared when either changes. */
    private volatile boolean replayed;
    /** While a replay runs: how many entries it has applied, and of how many. */
    private volatile long replayDone;
    private volatile long replayTotal;
    /** Write-to-ack latency: from a write's append to the moment its ack policy holds. */
    private final WriteAckLatency ackLatency = new WriteAckLatency();
    /** The error keyspace commands get while the journal or store cannot serve them, or null; {@link #loading}. */
    private volatile String unavailable;
    /** The journal's generation when the store's origin was last compared with its chain; -1 for none. */
    private long originCheckedAgainst = -1;
    /** The error client writes are refused with (the restart fence), or null. */
    private volatile String fenceError;
    /**
     * Why this node stopped applying journal entries, or null. Set when applying an entry failed unexpectedly (a
     * bug, or RocksDB refusing a write): nothing after that entry is applied, no write is sequenced, reads go on.
     * Cleared when a keyspace is bound again, whose replay then retries the entry.
     */
    private volatile ApplyFailure applyFailure;
    /** Asked before a write is sequenced. */
    private final Admissions admissions = new Admissions();
    private final WriteAdmission.Replicas replicaView = new WriteAdmission.Replicas() {
        @Override
        public int good(long maxLagNanos) {
            return gate.good(journal.durableSequence(), maxLagNanos);
        }

        @Override
        public int streaming() {
            return gate.streaming();
        }

        @Override
        public long sinceLastAckNanos() {
            return gate.sinceLastAckNanos();
        }

        @Override
        public java.util.Map<String, Long> ackAgesMillis() {
            return gate.ackAgesMillis();
        }
    };
    /** Clients parked in {@code WAIT}. */
    private final Waits waits = new Waits(gate);
    /** Clients of blocking commands (BLPOP…), and those a write just woke, to be journaled again after it. */
    private final Blocked blocked = new Blocked();
    private final List<Blocked.Block> woken = new ArrayList<>();
    private long lastTimestampNs;
    private long lastTickNs;
    private long tickPendingSequence;
    private long lastPurgeNs = System.nanoTime();

    /** @param pauseMillis how long a request waits for a missing journal or store before it is refused */
    public Pipeline(long pauseMillis) {
        this.pauseMillis = pauseMillis;
        this.logic = new Thread(this::run, "tandem-logic");
        logic.setDaemon(true);
        logic.start();
    }

    /** Attaches the front end, replacing any. */
    public synchronized void frontend(Frontend next) {
        frontend = next;
    }

    /** @return the front end attached, or null */
    public Frontend frontend() {
        return frontend;
    }

    /** Detaches {@code f} when it is the front end attached. */
    public synchronized void detach(Frontend f) {
        if (frontend == f) {
            frontend = null;
        }
    }

    /** @return a new client of the front end: its requests go to this pipeline */
    public tandem.api.node.NodeSession open(NodeClient client) {
        return new Client(client, this);
    }

    // ---- services ---------------------------------------------------------------------------------------------

    /** Binds or replaces the journal; returns once the logic thread no longer uses the previous one. */
    public void journal(Journal next) {
        services.lock();
        try {
            if (journal != null) {
                journal.removeDurabilityListener(durability);
            }
            stoppedReason = null;
            journal = next;
            if (next != null) {
                next.addDurabilityListener(durability);
            }
            replayNeeded = true;
            replayed = false;
            journalChanged = true;
            servicesChanged.signalAll();
        } finally {
            services.unlock();
        }
    }

    /** Binds or replaces the keyspace; returns once the logic thread no longer uses the previous one. */
    public void keyspace(Keyspace next) {
        services.lock();
        try {
            keyspace = next;
            replayNeeded = true;
            replayed = false;
            if (next != null && applyFailure != null) {
                LOG.log(Level.INFO, "a store is bound again: its replay retries the entry that failed ({0})",
                        applyFailure);
                applyFailure = null;
            }
            servicesChanged.signalAll();
        } finally {
            services.unlock();
        }
    }

    /** @return the keyspace commands, or an empty list while no store is bound */
    public List<CommandDescriptor> commands() {
        Keyspace k = keyspace;
        return k == null ? List.of() : new ArrayList<>(k.commands());
    }

    /** @return the bound keyspace's command named {@code name}, or null */
    public CommandDescriptor describe(String name) {
        Keyspace k = keyspace;
        return k == null ? null : k.describe(name);
    }

    // ---- replication ------------------------------------------------------------------------------------------

    /** @return the gate that holds replies until the ack policy holds */
    public ResponseGate gate() {
        return gate;
    }

    /**
     * Follows a primary ({@code upstream != null}): client writes are refused, no Tick is emitted, and what
     * replication appends to the journal is applied once durable. With null, this node is a primary again.
     */
    public void follow(String primary) {
        if (primary != null && upstream == null) {
            queue.add(new Event(null, new Control(this::disconnectHeld, new java.util.concurrent.CompletableFuture<>())));
        }
        upstream = primary;
        if (!roleKnown) {
            services.lock();
            try {
                roleKnown = true;
                servicesChanged.signalAll();
            } finally {
                services.unlock();
            }
        }
        queue.add(DURABLE);
    }

    /**
     * The role is not known yet (no replication protocol ever declared it): keyspace commands wait for
     * {@link #follow}, up to {@code pauseMillis}, after which the node serves as a primary.
     */
    public void awaitRole() {
        roleKnown = false;
    }

    /** @return the primary followed, or null */
    public String upstream() {
        return upstream;
    }

    /** Replication's entries are durable up to {@code sequence}: the logic thread applies them. */
    public void appended(long sequence) {
        queue.add(DURABLE);
    }

    /**
     * Replaces the keyspace by a checkpoint, on the logic thread; returns once it is installed. See
     * {@link tandem.api.replication.ReplicationHub#install}.
     */
    public long install(java.nio.file.Path checkpoint, long sequence, byte[] chain) throws InterruptedException {
        return onLogicThread(() -> {
            awaitServices();
            if (keyspace == null) {
                throw new IllegalStateException("the store (tandem.store) is not active: the snapshot cannot be "
                        + "installed");
            }
            long held = keyspace.install(checkpoint, sequence, chain);
            originCheckedAgainst = -1;
            replayNeeded = true;
            return held;
        });
    }

    /**
     * Promotion: applies what the journal holds, appends the EpochBump and stops following. See
     * {@link tandem.api.replication.ReplicationHub#lead}.
     */
    public long lead(long epoch) throws InterruptedException {
        long sequence = onLogicThread(() -> {
            awaitServices();
            if (upstream == null) {
                throw new IllegalStateException("this node is a primary already");
            }
            if (journal == null || keyspace == null) {
                throw new IllegalStateException(unavailable);
            }
            if (keyspace.appliedSequence() < journal.durableSequence() || keyspace.origin() != null) {
                replay();
            }
            if (applyFailure != null) {
                throw new IllegalStateException("cannot take over: " + applyFailure);
            }
            if (unavailable != null) {
                throw new IllegalStateException("cannot take over: " + unavailable);
            }
            if (journal.lastSequence() != journal.durableSequence() || keyspace.appliedSequence()
                    != journal.durableSequence()) {
                throw new IllegalStateException("cannot take over: the journal holds entries up to "
                        + journal.lastSequence() + ", durable up to " + journal.durableSequence()
                        + ", the store applied " + keyspace.appliedSequence() + "; stop replication first");
            }
            lastTimestampNs = Math.max(lastTimestampNs, journal.lastTimestampNs());
            long ts = nextTimestamp();
            byte[] payload = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(epoch).array();
            long seq;
            try {
                seq = journal.append(ts, 0, EntryTag.EPOCH_BUMP, payload,
                        FrplPayload.length(EntryTag.EPOCH_BUMP, ts, payload));
            } catch (JournalStoppedException e) {
                throw new IllegalStateException(journalStopped(e), e);
            }
            pending.add(new Pending(null, Kind.EPOCH_BUMP, seq, ts, new byte[][] {payload}, null, null));
            upstream = null;
            return seq;
        });
        Journal j = journal;
        if (j != null) {
            j.awaitDurable(sequence);
        }
        return sequence;
    }

    /**
     * Refuses writes, before they are sequenced, with {@code -NOREPLICAS} while fewer than {@code replicas}
     * replicas are good (0: never); a replica is good when it acknowledged within {@code maxLagMillis} (0: any
     * engaged replica) or has nothing left to acknowledge.
     */
    public void minReplicasToWrite(int replicas, long maxLagMillis) {
        admissions.minReplicasToWrite(replicas, maxLagMillis);
    }

    /**
     * Adds a write-admission provider, consulted before every write is sequenced from the next one on; among equal
     * rankings, the one added first is asked first.
     */
    public void addAdmission(WriteAdmission admission, int ranking) {
        addAdmission(admission, ranking, null);
    }

    /**
     * {@link #addAdmission(WriteAdmission, int)} for a provider the node must not write without once it has seen it
     * ({@code required}, its name): while it is away, writes wait for it (up to {@code pauseMillis}), then are refused.
     */
    public void addAdmission(WriteAdmission admission, int ranking, String required) {
        admissions.add(admission, ranking, required);
        services.lock();
        try {
            servicesChanged.signalAll(); // a write waiting for this provider goes on
        } finally {
            services.unlock();
        }
    }

    public void removeAdmission(WriteAdmission admission) {
        admissions.remove(admission);
    }

    /** @return why applying journal entries stopped (writes are refused meanwhile), or null */
    public String applyStopped() {
        ApplyFailure f = applyFailure;
        return f == null ? null : f.toString();
    }

    /** Refuses client writes with {@code error}, or accepts them again with null. */
    public void fence(String error) {
        fenceError = error;
    }

    /** @return the error client writes are refused with, or null */
    public String fence() {
        return fenceError;
    }

    /** @return the connections parked in {@code WAIT} or in a blocking command now */
    public int blockedClients() {
        return waits.blocked() + blocked.parked();
    }

    /**
     * This primary turns replica: a write whose reply the ack policy still holds back can no longer be acknowledged
     * here (the resync may discard it, or the new primary may hold it), so its client gets no answer but a closed
     * connection, the outcome unknown, as after a crash. Its reply and those after it are taken back first.
     */
    private long disconnectHeld() {
        for (Client c : held) {
            c.front.resetReply(c.heldMark);
            c.gatedSequence = 0;
            c.front.closeAfterReply();
            c.front.due();
            LOG.log(Level.WARNING, "client {0} disconnected: this node became a replica before its write was "
                    + "acknowledged; the outcome is unknown to it", c.front.id());
        }
        held.clear();
        return 0;
    }

    private long onLogicThread(java.util.concurrent.Callable<Long> task) throws InterruptedException {
        java.util.concurrent.CompletableFuture<Long> done = new java.util.concurrent.CompletableFuture<>();
        queue.add(new Event(null, new Control(task, done)));
        try {
            return done.get();
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** @return the last sequence the bound keyspace applied, 0 while none is bound */
    public long appliedSequence() {
        Keyspace k = keyspace;
        return k == null ? 0 : k.appliedSequence();
    }

    // ---- requests ---------------------------------------------------------------------------------------------

    /** A request, {@link Client.Refusal} or {@link Client.Failure} of {@code client}, in its arrival order. */
    void submit(Client client, Object message) {
        queue.add(new Event(client, message));
    }

    /** {@code client}'s connection closed. */
    void closed(Client client) {
        queue.add(new Event(client, CLOSED));
    }

    @Override
    public void close() {
        running = false;
        Journal j = journal;
        if (j != null) {
            j.removeDurabilityListener(durability);
        }
        admin.shutdownNow();
        logic.interrupt();
        try {
            logic.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- the logic thread -------------------------------------------------------------------------------------

    private void run() {
        while (running) {
            try {
                Event first = queue.poll(pollNanos(), TimeUnit.NANOSECONDS);
                services.lockInterruptibly();
                try {
                    waited = false;
                    admissionWaited = false;
                    prepare();
                    int n = 0;
                    for (Event e = first; e != null; e = n < MAX_ROUND ? queue.poll() : null) {
                        sequenceIsolated(e);
                        n++;
                    }
                    maybeTick();
                    if (upstream != null) {
                        applyFollowed();
                    }
                    drain();
                    commitRound();
                    answerWaits();
                    answerBlocked();
                    maybePurge();
                    gateReplies();
                    measureAcks();
                    if (missingSinceNs != 0) {
                        // waiting for a service to come back: let its binder in, without spinning
                        servicesChanged.await(20, TimeUnit.MILLISECONDS);
                    }
                } finally {
                    services.unlock();
                }
                endRound();
            } catch (InterruptedException e) {
                if (!running) {
                    failPending("ERR the server is shutting down");
                    return;
                }
            } catch (RuntimeException | Error e) {
                // Every request and every apply has its own guard; this is the last one. Whatever was pending may
                // be half done, so writes stop (nothing later is applied before a store is bound again, whose replay
                // resumes at the store's applied sequence) and every pending request is answered.
                LOG.log(Level.ERROR, "logic thread: unexpected failure; writes stop, pending requests are answered "
                        + "with an error", e);
                if (applyFailure == null) {
                    Keyspace k = keyspace;
                    applyFailure = new ApplyFailure(k == null ? 0 : k.appliedSequence() + 1, "logic thread",
                            String.valueOf(e));
                }
                failPending(applyFailure.error());
            }
        }
    }

    /** Every touched client whose replies the ack policy does not hold back is due; the front end sends them. */
    private void endRound() {
        for (Client c : touched) {
            if (!held.contains(c)) {
                c.front.due();
            }
        }
        touched.clear();
        Frontend f = frontend;
        if (f != null) {
            f.roundEnd();
        }
    }

    /** @return how long the logic thread may sleep: until the next Tick, or the nearest {@code WAIT} deadline */
    private long pollNanos() {
        return blocked.pollNanos(waits.pollNanos(TICK_INTERVAL_NS));
    }

    /** Answers the parked {@code WAIT}s whose replicas acknowledged or whose time is up, and resumes them. */
    private void answerWaits() {
        List<Client> done = waits.answer(upstream != null);
        touched.addAll(done);
        for (Client c : done) {
            resume(c);
        }
    }

    /** The connection's {@code WAIT} was answered: what it sent meanwhile is sequenced now, in order. */
    private void resume(Client c) {
        c.waiting = null;
        c.parked = false;
        while (!c.deferred.isEmpty() && c.waiting == null && !c.parked) {
            sequence(new Event(c, c.deferred.poll()));
            wakeBlocked();
        }
    }

    /**
     * Answers the parked clients of blocking commands whose timeout passed with Redis' timeout reply (a nil array),
     * or all of them with {@code -UNBLOCKED} once this node follows a primary; nothing is journaled for it.
     */
    private void answerBlocked() {
        boolean following = upstream != null;
        for (Blocked.Block b : blocked.expired(following)) {
            if (following) {
                b.client.front.reply().error(Blocked.UNBLOCKED);
            } else {
                b.client.front.reply().nullArray();
            }
            touched.add(b.client);
            resume(b.client);
        }
    }

    /**
     * Journals again, in the order they first blocked, the blocking commands a write just sequenced woke: right
     * after that write, so that each applies to the state it left.
     */
    private void wakeBlocked() {
        while (!woken.isEmpty()) {
            List<Blocked.Block> now = new ArrayList<>(woken);
            woken.clear();
            now.sort(java.util.Comparator.comparingLong(b -> b.ticket));
            for (Blocked.Block b : now) {
                attemptAgain(b.client, b.args);
            }
        }
    }

    /**
     * Journals a blocking command again (woken, or touched while in flight), under its woken name
     * ({@link Keyspace#WOKEN_SUFFIX}); an error answers and unblocks it.
     */
    private void attemptAgain(Client c, byte[][] args) {
        CommandDescriptor d = keyspace == null ? null : keyspace.describe(name(args));
        String refused = d == null ? unavailable != null ? unavailable : "ERR the store (tandem.store) is not active"
                : upstream != null ? READONLY : refusal();
        if (refused == null) {
            long ts = nextTimestamp();
            byte[][] woken = args.clone();
            woken[0] = (d.name() + Keyspace.WOKEN_SUFFIX).getBytes(StandardCharsets.US_ASCII);
            try {
                byte[] entry = CommandPayload.encode(woken);
                long seq = journal.append(ts, keyHash(d, args), EntryTag.APP, entry,
                        FrplPayload.length(EntryTag.APP, ts, entry));
                pending.add(new Pending(c, Kind.WRITE, seq, ts, woken, null, null));
                ackLatency.appended(seq, System.nanoTime());
                c.lastWriteSequence = seq;
                touch(d, args);
                blocked.attempting(c);
                return;
            } catch (JournalStoppedException e) {
                refused = journalStopped(e);
            }
        }
        blocked.done(c);
        c.front.reply().error(refused);
        touched.add(c);
        resume(c);
    }

    /**
     * A command that finishes on another thread ran ({@link NodeClient#run} returned its work): the work goes to the
     * admin thread,
     * whose answer comes back to this thread as the reply; the connection stays parked until then.
     */
    private void finishLater(Client c, java.util.function.Supplier<String> work) {
        if (work == null) {
            resume(c); // answered at once (an argument error)
            return;
        }
        admin.execute(() -> {
            String line;
            try {
                line = work.get();
            } catch (RuntimeException e) {
                line = "-ERR " + e.getMessage();
            }
            String answer = line;
            queue.add(new Event(null, new Control(() -> {
                if (c.parked) {
                    replyLine(c, answer);
                    touched.add(c);
                    resume(c);
                }
                return 0L;
            }, new java.util.concurrent.CompletableFuture<>())));
        });
    }

    /**
     * Called where a request needs the journal and the keyspace: waits (once per round, bounded by
     * {@code pauseMillis}) while either is missing, so that a store or journal being restarted pauses writes
     * instead of failing them.
     */
    private void awaitServices() {
        if ((journal == null || keyspace == null || !roleKnown) && !waited) {
            waited = true;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMillis);
            try {
                while ((journal == null || keyspace == null || !roleKnown) && System.nanoTime() < deadline) {
                    servicesChanged.awaitNanos(deadline - System.nanoTime());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!roleKnown) {
                roleKnown = true;
                LOG.log(Level.WARNING, "no replication protocol declared this node''s role within {0} ms: it serves "
                        + "as a primary", pauseMillis);
            }
            prepare();
        }
    }

    /** Notes which service is missing, and replays the journal into a newly bound keyspace. */
    private void prepare() {
        if (journal == null || keyspace == null) {
            unavailable = journal == null ? "ERR the journal (tandem.journal) is not active"
                    : "ERR the store (tandem.store) is not active";
            return;
        }
        if (replayNeeded) {
            replay();
        }
    }

    /**
     * Brings a newly bound keyspace (or the keyspace after a new journal) up to the journal's durable end. Requests
     * still pending from before the services changed are merged in: a pending write whose entry is replayed is
     * applied with its own reply, so its client gets the answer it was waiting for; after a journal changed, a
     * pending write beyond the new journal's end was never made durable and is refused.
     */
    private void replay() {
        replayNeeded = false;
        unavailable = null;
        if (!originHeld()) {
            return;
        }
        long applied = keyspace.appliedSequence();
        long last = journal.durableSequence();
        lastTimestampNs = Math.max(lastTimestampNs, journal.lastTimestampNs());
        if (applied > last) {
            unavailable = "ERR the store has applied sequence " + applied + " but the journal ends at " + last;
            LOG.log(Level.ERROR, "refusing keyspace commands: {0}", unavailable);
            return;
        }
        long started = System.nanoTime();
        replayTotal = last - applied;
        replayDone = 0;
        Reply discard = new DiscardingReply();
        // pending writes are merged in at their own entries (a primary's, after a service came back); on a replica
        // that pends only reads, each came once the entries it follows were durable, so it runs after them all
        boolean merge = upstream == null || pending.stream().anyMatch(p -> p.sequence() > 0);
        long[] count = {0};
        if (applied < last) {
            try {
                journal.read(applied, new EntryVisitor() {
                    @Override
                    public boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {
                        if (merge) {
                            runPendingBefore(sequence);
                        }
                        Pending head = pending.peek();
                        if (head != null && head.sequence() == sequence) {
                            pending.poll();
                            executeIsolated(head);
                        } else {
                            applyEntry(sequence, timestampNs, tag, payload, discard);
                        }
                        if (++count[0] % REPLAY_COMMIT_ENTRIES == 0) {
                            commitRound(); // every replayed entry is durable: the store's batch stays bounded
                            replayDone = count[0];
                        }
                        return applyFailure == null; // a failed entry stops the replay: nothing after it applies
                    }

                    @Override
                    public void skipped(long sequence) {
                        if (applyFailure == null) {
                            guarded(sequence, "a discarded fragment", () -> keyspace.advance(sequence));
                        }
                    }
                });
            } catch (IllegalArgumentException e) {
                unavailable = "ERR the store is behind the retained journal: " + e.getMessage();
                LOG.log(Level.ERROR, "refusing keyspace commands: {0}", unavailable);
                return;
            } finally {
                replayTotal = 0;
            }
            if (applyFailure != null) {
                LOG.log(Level.ERROR, "the replay stopped after sequence {0}: {1}", keyspace.appliedSequence(),
                        applyFailure);
            } else if (upstream == null || !followedSomething) {
                LOG.log(Level.INFO, "replayed {0} journal entries after sequence {1} in {2} ms", count[0], applied,
                        (System.nanoTime() - started) / 1_000_000);
            }
        }
        replayed = applyFailure == null;
        if (journalChanged) {
            journalChanged = false;
            long end = journal.lastSequence();
            for (Pending p : new ArrayList<>(pending)) {
                if (p.sequence() > end) {
                    lost.add(p);
                }
            }
            if (!lost.isEmpty()) {
                ackLatency.clear();
                LOG.log(Level.WARNING, "{0} writes were not durable when the journal went away; they are refused",
                        lost.size());
            }
        }
    }

    /**
     * A store installed from a checkpoint stands for one journal history at its origin: nothing is replayed into it
     * until the journal's chain value there is the checkpoint's. A replica installs the store and then the matching
     * journal; a crash between the two leaves a journal of the old history, which must never be applied on top of
     * the new store. The journal's chain there is looked at once it is durable up to the origin, and again only when
     * its generation changes (a seed install, a lineage archive): within one history a chain value never changes.
     *
     * @return true when the store has no origin or it matches (then it is reconciled); false while it waits
     */
    private boolean originHeld() {
        Keyspace.Origin origin = keyspace.origin();
        if (origin == null) {
            return true;
        }
        unavailable = "LOADING Tandem is installing a snapshot (the store is at sequence " + origin.sequence()
                + "; waiting for the journal of its history)";
        replayNeeded = true; // looked at again next round
        if (journal.durableSequence() < origin.sequence()) {
            return false;
        }
        long seen = journal.generation();
        if (seen == originCheckedAgainst) {
            return false;
        }
        originCheckedAgainst = seen;
        byte[] ours = journal.chainAt(origin.sequence());
        if (ours == null || !java.util.Arrays.equals(ours, origin.chain())) {
            LOG.log(Level.WARNING, "the store was installed at {0}; the journal holds another history there ({1}): "
                    + "nothing is applied until replication installs the matching journal", origin,
                    ours == null ? "no chain value" : java.util.HexFormat.of().formatHex(ours));
            return false;
        }
        keyspace.reconciled();
        originCheckedAgainst = -1;
        unavailable = null;
        replayNeeded = false;
        LOG.log(Level.INFO, "the journal holds the installed store''s history at {0}: applying from there", origin);
        return true;
    }

    /**
     * On a replica: applies what replication made durable (replication wakes this thread after each sync). Pending
     * reads run after it, so a read sees every entry durable when its turn came.
     */
    private void applyFollowed() {
        if (journal == null || keyspace == null || unavailable != null && !replayNeeded || applyFailure != null) {
            return;
        }
        if (keyspace.appliedSequence() < journal.durableSequence() || keyspace.origin() != null) {
            replay();
            followedSomething = true;
        }
    }

    /**
     * Holds back the replies of every connection whose last write the ack policy does not cover yet, and releases
     * those it now covers. Writes are applied once durable here, like in Redis before {@code WAIT} returns; only the
     * answers wait, so one waiting write never stalls the other clients.
     */
    private void gateReplies() {
        for (Client c : touched) {
            if (c.gatedSequence > 0) {
                held.add(c);
            }
        }
        if (held.isEmpty()) {
            return;
        }
        long durable = journal == null ? 0 : journal.durableSequence();
        long lowest = Long.MAX_VALUE;
        for (java.util.Iterator<Client> it = held.iterator(); it.hasNext(); ) {
            Client c = it.next();
            if (c.gatedSequence <= gate.released(durable)) {
                c.gatedSequence = 0;
                it.remove();
                touched.add(c);
            } else {
                lowest = Math.min(lowest, c.gatedSequence);
            }
        }
        if (lowest != Long.MAX_VALUE && gate.await(lowest, durable)) {
            queue.add(DURABLE); // released meanwhile: look again at once
        }
    }

    /** Records the write-to-ack latency of the writes the gate now releases. */
    private void measureAcks() {
        Journal j = journal;
        if (!ackLatency.waiting() || j == null) {
            return;
        }
        if (upstream != null) {
            ackLatency.clear(); // turned replica: what waited is answered by the role change
            return;
        }
        ackLatency.released(gate.released(j.durableSequence()), gate.policy(), System.nanoTime());
    }

    /** Runs the pending requests ahead of the write at {@code sequence} that need no durability. */
    private void runPendingBefore(long sequence) {
        while (!pending.isEmpty()) {
            Pending p = pending.peek();
            if (p.sequence() != 0 && p.sequence() >= sequence) {
                return;
            }
            pending.poll();
            if (p.sequence() != 0) {
                // a write before the replayed one that the journal does not hold: it was never durable
                refuse(p, "ERR the journal restarted before this write was durable; it was not applied");
            } else {
                executeIsolated(p);
            }
        }
    }

    /** Applies a journal entry that no pending request waits for (a replay, a replica); its reply is dropped. */
    private void applyEntry(long sequence, long timestampNs, byte tag, byte[] payload, Reply reply) {
        if (applyFailure != null) {
            return;
        }
        Frontend f = frontend;
        if (f != null) {
            f.busy(payload);
        }
        try {
            applyEntryGuarded(sequence, timestampNs, tag, payload, reply);
        } finally {
            if (f != null) {
                f.idle();
            }
        }
    }

    private void applyEntryGuarded(long sequence, long timestampNs, byte tag, byte[] payload, Reply reply) {
        switch (tag) {
            case EntryTag.APP -> guarded(sequence, () -> commandName(payload), () -> {
                List<byte[][]> commands = CommandPayload.decode(payload);
                if (CommandPayload.isTransaction(payload)) {
                    keyspace.applyTransaction(sequence, timestampNs, commands, reply);
                } else {
                    keyspace.apply(sequence, timestampNs, commands.get(0), reply);
                }
            });
            case EntryTag.TICK -> guarded(sequence, "TICK", () -> keyspace.tick(sequence, timestampNs));
            case EntryTag.EPOCH_BUMP -> guarded(sequence, "EPOCH_BUMP", () -> keyspace.epochBump(sequence,
                    epoch(payload)));
            default -> guarded(sequence, "entry tag " + tag, () -> keyspace.advance(sequence));
        }
    }

    /** The epoch an EpochBump's payload holds (u64 little-endian). */
    private static long epoch(byte[] payload) {
        if (payload.length != 8) {
            throw new IllegalArgumentException("an EpochBump payload has 8 bytes, this one " + payload.length);
        }
        return ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** @return whether a client write was journaled since the last call (this node took writes as a primary) */
    public boolean tookClientWrites() {
        boolean took = tookClientWrites;
        tookClientWrites = false;
        return took;
    }

    /** The command an App entry holds, as the log and the stop error name it. */
    private static String commandName(byte[] payload) {
        try {
            if (CommandPayload.isTransaction(payload)) {
                return "MULTI … EXEC";
            }
            return new String(CommandPayload.decode(payload).get(0)[0], StandardCharsets.ISO_8859_1)
                    .toUpperCase(Locale.ROOT);
        } catch (RuntimeException undecodable) {
            return "an undecodable command";
        }
    }

    private boolean guarded(long sequence, String command, Runnable apply) {
        return guarded(sequence, () -> command, apply);
    }

    /**
     * Writes the round's applies to the store at once, before any of their replies leaves. When the store cannot
     * write them, applying stops at the entry after them: they stay applied in memory (their replies stand, and
     * they are journaled), and the store bound again, or the restarted node, replays them from the journal.
     */
    private void commitRound() {
        Keyspace k = keyspace;
        Journal j = journal;
        if (k == null || j == null || applyFailure != null) {
            return;
        }
        if (j.durableSequence() < k.appliedSequence()) {
            // under ram, entries a replica holds are applied before this journal's fsync: the store writes nothing
            // that this journal may still lose (a crash would leave the store ahead of its journal); a later round
            // writes them once they are durable
            return;
        }
        guarded(k.appliedSequence() + 1, "not begun: the store could not write the entries applied before it",
                k::commit);
    }

    /**
     * Applies one journal entry. An exception here is a bug (or the store refusing a write): a journaled entry
     * must apply on every node, so this node fail-stops rather than skip it or answer as if it had succeeded.
     *
     * @return false when it failed (applying is stopped now)
     */
    private boolean guarded(long sequence, java.util.function.Supplier<String> command, Runnable apply) {
        try {
            apply.run();
            return true;
        } catch (RuntimeException | Error e) {
            ApplyFailure f = new ApplyFailure(sequence, command.get(), String.valueOf(e));
            applyFailure = f;
            LOG.log(Level.ERROR, "fail-stop: " + f + ". Nothing after it is applied and writes are refused until "
                    + "the store is bound again (update or restart tandem.store) or the node restarts, which "
                    + "retry the entry; reads go on. See docs/operator-guide.md, 'When applying stops'.", e);
            return false;
        }
    }

    // ---- sequencing -------------------------------------------------------------------------------------------

    private void sequence(Event e) {
        if (e == DURABLE) {
            return; // only wakes the loop: drain() looks at the journal's durable sequence
        }
        if (e.message() instanceof Control control) {
            try {
                control.done().complete(control.task().call());
            } catch (Exception | Error failure) {
                control.done().completeExceptionally(failure);
            }
            return;
        }
        Client c = e.connection();
        if (e.message() == CLOSED) {
            held.remove(c);
            watches.unwatchAll(c);
            c.transaction = null;
            waits.remove(c);
            blocked.remove(c);
            c.deferred.clear();
            return;
        }
        if (c.waiting != null || c.parked) {
            c.deferred.add(e.message()); // a client in WAIT sends nothing else until it is answered
            return;
        }
        if (c.ending) {
            return; // after QUIT or a protocol error nothing is executed, and nothing is journaled
        }
        if (e.message() instanceof Client.Failure failure) {
            c.ending = true;
            pending.add(new Pending(c, Kind.ERROR, 0, 0, null, null, failure.error()));
            return;
        }
        if (e.message() instanceof Client.Refusal refusal) {
            if (c.transaction != null) {
                c.transactionFailed = true;
            }
            immediate(c, refusal.command(), refusal.error());
            return;
        }
        byte[][] args = (byte[][]) e.message();
        String name = new String(args[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        switch (name) {
            case "multi" -> multi(c, args);
            case "exec" -> exec(c, args);
            case "discard" -> discard(c, args);
            case "watch" -> watch(c, args);
            case "unwatch" -> unwatch(c, args);
            case "quit" -> {
                c.ending = true;
                pending.add(new Pending(c, Kind.CONNECTION, 0, 0, args, null, null));
            }
            case "wait" -> {
                if (c.transaction != null) {
                    queueInTransaction(c, name, args);
                } else {
                    waitCommand(c, args);
                }
            }
            case "replicaof", "slaveof" -> {
                if (c.transaction != null) {
                    queueInTransaction(c, name, args);
                } else {
                    c.parked = true; // nothing after it runs before its answer: the role may change
                    pending.add(new Pending(c, Kind.CONNECTION, 0, 0, args, null, null));
                }
            }
            default -> {
                if (c.transaction != null) {
                    queueInTransaction(c, name, args);
                } else {
                    single(c, name, args);
                }
            }
        }
    }

    private void single(Client c, String name, byte[][] args) {
        if (c.front.ownsCommand(name) || name.indexOf('|') >= 0) {
            pending.add(new Pending(c, Kind.CONNECTION, 0, 0, args, null, null));
            return;
        }
        awaitServices();
        if (unavailable != null) {
            immediate(c, args, unavailable);
            return;
        }
        CommandDescriptor d = keyspace.describe(name);
        if (d == null) {
            pending.add(new Pending(c, Kind.CONNECTION, 0, 0, args, null, null)); // unknown command error
            return;
        }
        if (!accepts(d, args.length)) {
            immediate(c, args, "ERR wrong number of arguments for '" + name + "' command");
            return;
        }
        if (!d.write()) {
            pending.add(new Pending(c, Kind.READ, 0, 0, args, null, null));
            return;
        }
        if (upstream != null) {
            immediate(c, args, READONLY);
            return;
        }
        String refused = refusal();
        if (refused != null) {
            immediate(c, args, refused);
            return;
        }
        long ts = nextTimestamp();
        if (keyspace.check(args, ts) != null) {
            // fails whatever the keyspace holds: never journaled; answered at its turn, in the state then
            pending.add(new Pending(c, Kind.REFUSED, 0, 0, args, null, null));
            return;
        }
        try {
            byte[] entry = CommandPayload.encode(args);
            long seq = journal.append(ts, keyHash(d, args), EntryTag.APP, entry,
                    FrplPayload.length(EntryTag.APP, ts, entry));
            if (!tookClientWrites) {
                tookClientWrites = true;
            }
            pending.add(new Pending(c, Kind.WRITE, seq, ts, args, null, null)); // journaled: it must be applied
            ackLatency.appended(seq, System.nanoTime());
            c.lastWriteSequence = seq;
            touch(d, args);
            if (Blocked.isBlocking(d)) {
                c.parked = true; // nothing after it runs before it is answered: it may block
                blocked.block(c, args, keyspace.blockingWait(args));
            }
        } catch (JournalStoppedException e) {
            immediate(c, args, journalStopped(e));
        }
    }

    private void multi(Client c, byte[][] args) {
        if (args.length != 1) {
            immediate(c, args, "ERR wrong number of arguments for 'multi' command");
        } else if (c.transaction != null) {
            immediate(c, args, "ERR MULTI calls can not be nested");
        } else {
            c.transaction = new ArrayList<>();
            c.transactionFailed = false;
            pending.add(new Pending(c, Kind.IMMEDIATE, 0, 0, args, null, "+OK"));
        }
    }

    private void queueInTransaction(Client c, String name, byte[][] args) {
        awaitServices();
        CommandDescriptor d = keyspace == null || unavailable != null ? null : keyspace.describe(name);
        if (d == null) {
            c.transactionFailed = true;
            if (c.front.ownsCommand(name)) {
                immediate(c, args, "ERR '" + name + "' is not supported inside a transaction by Tandem");
            } else {
                pending.add(new Pending(c, Kind.CONNECTION, 0, 0, args, null, null)); // unknown command error
            }
            return;
        }
        if (!accepts(d, args.length)) {
            c.transactionFailed = true;
            immediate(c, args, "ERR wrong number of arguments for '" + name + "' command");
            return;
        }
        if (d.write() && upstream != null) {
            c.transactionFailed = true;
            immediate(c, args, READONLY);
            return;
        }
        String refused = d.write() ? refusal() : null;
        if (refused != null) {
            c.transactionFailed = true;
            immediate(c, args, refused);
            return;
        }
        c.transaction.add(args);
        pending.add(new Pending(c, Kind.IMMEDIATE, 0, 0, args, null, "+QUEUED"));
    }

    private void exec(Client c, byte[][] args) {
        if (args.length != 1) {
            immediate(c, args, "ERR wrong number of arguments for 'exec' command");
            return;
        }
        if (c.transaction == null) {
            immediate(c, args, "ERR EXEC without MULTI");
            return;
        }
        List<byte[][]> commands = c.transaction;
        boolean failed = c.transactionFailed;
        boolean touchedSinceWatch = c.watchTouched;
        c.transaction = null;
        watches.unwatchAll(c);
        if (failed) {
            immediate(c, args, "EXECABORT Transaction discarded because of previous errors.");
            return;
        }
        if (touchedSinceWatch) {
            pending.add(new Pending(c, Kind.IMMEDIATE, 0, 0, args, null, "*-1"));
            return;
        }
        awaitServices();
        if (unavailable != null) {
            immediate(c, args, unavailable);
            return;
        }
        boolean writes = false;
        for (byte[][] command : commands) {
            CommandDescriptor d = keyspace.describe(name(command));
            writes |= d != null && d.write();
        }
        if (!writes) {
            pending.add(new Pending(c, Kind.READ_TRANSACTION, 0, 0, null, commands, null));
            return;
        }
        if (upstream != null) {
            immediate(c, args, "EXECABORT Transaction discarded because of previous errors.");
            return;
        }
        String refused = refusal();
        if (refused != null) {
            immediate(c, args, refused);
            return;
        }
        long ts = nextTimestamp();
        try {
            byte[] entry = CommandPayload.encodeTransaction(commands);
            long seq = journal.append(ts, 0, EntryTag.APP, entry, FrplPayload.length(EntryTag.APP, ts, entry));
            if (!tookClientWrites) {
                tookClientWrites = true;
            }
            pending.add(new Pending(c, Kind.TRANSACTION, seq, ts, null, commands, null)); // must be applied
            ackLatency.appended(seq, System.nanoTime());
            c.lastWriteSequence = seq;
            for (byte[][] command : commands) {
                CommandDescriptor d = keyspace.describe(name(command));
                if (d != null && d.write()) {
                    touch(d, command);
                }
            }
        } catch (JournalStoppedException e) {
            immediate(c, args, journalStopped(e));
        }
    }

    private void discard(Client c, byte[][] args) {
        if (args.length != 1) {
            immediate(c, args, "ERR wrong number of arguments for 'discard' command");
        } else if (c.transaction == null) {
            immediate(c, args, "ERR DISCARD without MULTI");
        } else {
            c.transaction = null;
            watches.unwatchAll(c);
            pending.add(new Pending(c, Kind.IMMEDIATE, 0, 0, args, null, "+OK"));
        }
    }

    private void watch(Client c, byte[][] args) {
        if (args.length < 2) {
            immediate(c, args, "ERR wrong number of arguments for 'watch' command");
        } else if (c.transaction != null) {
            // answered, not queued, and the transaction goes on (Redis runs WATCH at once even inside MULTI)
            immediate(c, args, "ERR WATCH inside MULTI is not allowed");
        } else {
            for (int i = 1; i < args.length; i++) {
                watches.watch(c, args[i]);
            }
            pending.add(new Pending(c, Kind.IMMEDIATE, 0, 0, args, null, "+OK"));
        }
    }

    private void unwatch(Client c, byte[][] args) {
        if (args.length != 1) {
            immediate(c, args, "ERR wrong number of arguments for 'unwatch' command");
        } else {
            watches.unwatchAll(c);
            pending.add(new Pending(c, Kind.IMMEDIATE, 0, 0, args, null, "+OK"));
        }
    }

    /**
     * @return why a write would be refused before it is sequenced (applying stopped, the restart fence, then
     *         {@code min-replicas-to-write}), or null
     */
    private String refusal() {
        ApplyFailure failure = applyFailure;
        if (failure != null) {
            return failure.error();
        }
        String fenced = fenceError;
        if (fenced != null) {
            return fenced;
        }
        String missing = admissions.missingRequired();
        if (missing != null && !admissionWaited) {
            admissionWaited = true; // once per round: the writes behind this one are refused at once meanwhile
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMillis);
            try {
                while (admissions.missingRequired() != null && System.nanoTime() < deadline) {
                    servicesChanged.awaitNanos(deadline - System.nanoTime());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            missing = admissions.missingRequired();
        }
        if (missing != null) {
            return "CLUSTERDOWN the " + missing + " is not active: writes are refused until it is back";
        }
        return admissions.refusal(replicaView);
    }

    /**
     * {@code WAIT numreplicas timeout}: the number of replicas, of every protocol, that acknowledged this
     * connection's last write; answered at once when enough did, else once enough do or the timeout (ms; 0 =
     * forever) passes. Nothing else of the connection runs meanwhile.
     */
    private void waitCommand(Client c, byte[][] args) {
        if (upstream != null && args.length == 3) {
            immediate(c, args, WAIT_ON_REPLICA);
            return;
        }
        Object parsed = Waits.parse(args, c.lastWriteSequence);
        if (parsed instanceof String error) {
            immediate(c, args, error);
            return;
        }
        c.waiting = (Waits.Wait) parsed;
        pending.add(new Pending(c, Kind.WAIT, 0, 0, args, null, null));
    }

    private void immediate(Client c, byte[][] args, String error) {
        pending.add(new Pending(c, Kind.IMMEDIATE, 0, 0, args, null, "-" + error));
    }

    private static String journalStopped(JournalStoppedException e) {
        return journalStopped(e.getMessage());
    }

    private static String journalStopped(String reason) {
        return "MISCONF the journal has stopped and writes are refused: " + reason;
    }

    private static boolean accepts(CommandDescriptor d, int argc) {
        return d.arity() >= 0 ? argc == d.arity() : argc >= -d.arity();
    }

    private static String name(byte[][] command) {
        return new String(command[0], StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
    }

    private static long keyHash(CommandDescriptor d, byte[][] args) {
        return d.firstKey() > 0 && d.firstKey() < args.length ? KeyHash.fnv1a64(args[d.firstKey()]) : 0;
    }

    /**
     * Marks the watchers of every key the write names, and wakes the clients blocked on them (a blocking command
     * only removes from its keys, so it wakes nobody but through a BLMOVE's or BRPOPLPUSH's destination).
     */
    private void touch(CommandDescriptor d, byte[][] args) {
        if (watches.isEmpty() && blocked.isEmpty()) {
            return;
        }
        if (Blocked.isBlocking(d)) {
            if (d.name().equals("blmove") || d.name().equals("brpoplpush")) {
                touched(args[2], true);
            }
            int last = d.lastKey() < 0 ? args.length + d.lastKey() : d.lastKey();
            for (int i = Math.max(d.firstKey(), 1); d.firstKey() > 0 && i <= last && i < args.length; i++) {
                touched(args[i], false);
            }
            if (d.flags().contains("movablekeys")) {
                for (int i = 1; i < args.length; i++) {
                    touched(args[i], false);
                }
            }
            return;
        }
        if (d.flags().contains("movablekeys")) {
            // keys anywhere among the arguments (LMPOP, ZUNIONSTORE, SORT ... STORE): every argument is taken for
            // a key, so a watcher is never missed (one watching a key named like an option may abort needlessly)
            for (int i = 1; i < args.length; i++) {
                touched(args[i], true);
            }
            return;
        }
        if (d.firstKey() <= 0) {
            if (d.name().equals("flushdb") || d.name().equals("flushall")) {
                watches.touchedAll();
            }
            return;
        }
        int last = d.lastKey() < 0 ? args.length + d.lastKey() : d.lastKey();
        int step = Math.max(1, d.keyStep());
        for (int i = d.firstKey(); i <= last && i < args.length; i += step) {
            touched(args[i], true);
        }
    }

    private void touched(byte[] key, boolean wakes) {
        if (!watches.isEmpty()) {
            watches.touched(key);
        }
        if (wakes && !blocked.isEmpty()) {
            blocked.touched(key, woken);
        }
    }

    /** "Now" for a new entry: the wall clock, never before the last entry's timestamp. */
    private long nextTimestamp() {
        Instant now = Instant.now();
        long ns = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        lastTimestampNs = Math.max(ns, lastTimestampNs);
        return lastTimestampNs;
    }

    private void maybeTick() {
        if (unavailable != null || journal == null || keyspace == null || tickPendingSequence != 0
                || upstream != null || applyFailure != null) {
            return;
        }
        long mono = System.nanoTime();
        if (mono - lastTickNs < TICK_INTERVAL_NS) {
            return;
        }
        long ts = nextTimestamp();
        if (keyspace.nextDeadlineNs() > ts) {
            return;
        }
        lastTickNs = mono;
        byte[] payload = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(ts).array();
        try {
            tickPendingSequence = journal.append(ts, 0, EntryTag.TICK, payload,
                    FrplPayload.length(EntryTag.TICK, ts, payload));
            pending.add(new Pending(null, Kind.TICK, tickPendingSequence, ts, null, null, null));
        } catch (JournalStoppedException e) {
            // the journal says why in its status and log; expiry waits like every write
        }
    }

    private void maybePurge() {
        long mono = System.nanoTime();
        if (mono - lastPurgeNs < PURGE_INTERVAL_NS || unavailable != null || journal == null || keyspace == null) {
            return;
        }
        lastPurgeNs = mono;
        int removed = journal.purge(keyspace.status().flushedSequence());
        if (removed > 0) {
            LOG.log(Level.INFO, "purged {0} journal segments below the store''s flushed sequence", removed);
        }
    }

    // ---- apply and answer -------------------------------------------------------------------------------------

    /** Runs pending requests in order; waits for durability only when nothing else is queued. */
    private void drain() throws InterruptedException {
        while (!pending.isEmpty()) {
            Pending p = pending.peek();
            if (lost.remove(p)) {
                pending.poll();
                refuse(p, "ERR the journal restarted before this write was durable; it was not applied");
                continue;
            }
            boolean needsKeyspace = p.kind() != Kind.IMMEDIATE && p.kind() != Kind.CONNECTION
                    && p.kind() != Kind.ERROR && p.kind() != Kind.WAIT;
            if (needsKeyspace && p.sequence() == 0 && loading()) {
                failHead(unavailable); // a read while a snapshot installs: answered at once, as Redis does
                continue;
            }
            if ((p.sequence() > 0 && journal == null) || (needsKeyspace && (keyspace == null || replayNeeded))) {
                // a service is being replaced: wait for it (bounded), its rebinding replays and answers in order
                long now = System.nanoTime();
                if (missingSinceNs == 0) {
                    missingSinceNs = now;
                } else if (now - missingSinceNs > TimeUnit.MILLISECONDS.toNanos(pauseMillis)) {
                    failHead("ERR " + (journal == null ? "the journal (tandem.journal)" : "the store (tandem.store)")
                            + " is not active");
                    continue;
                }
                return;
            }
            missingSinceNs = 0;
            if (p.sequence() > 0 && applyFailure != null) {
                failHead(applyFailure.error(p.sequence())); // journaled, but nothing after the failed entry applies
                continue;
            }
            if (p.sequence() > 0 && journal.durableSequence() < p.sequence()
                    && !gate.heldInMemory(p.sequence())) {
                String stopped = stoppedReason;
                if (stopped != null) {
                    failHead(journalStopped(stopped));
                    continue;
                }
                // not durable yet: the journal thread posts an event when it is, and meanwhile this thread
                // sequences whatever arrives, so that it joins the next fsync; under ram a replica that holds it
                // in memory releases it first, and its acknowledgement wakes this thread
                awaitedSequence = p.sequence();
                if (journal.durableSequence() >= p.sequence()
                        || gate.ram() && gate.await(p.sequence(), journal.durableSequence())) {
                    continue; // released meanwhile: its event may have gone by before the wait was set
                }
                return;
            }
            awaitedSequence = Long.MAX_VALUE;
            pending.poll();
            executeIsolated(p);
        }
    }

    /**
     * Runs one request with a guard: a request that fails unexpectedly (a bug in a read or a connection command) is
     * answered with an error and logged, and the next one runs. Journaled entries have a guard of their own, which
     * stops applying instead ({@link #guarded}).
     */
    private void executeIsolated(Pending p) {
        Client c = p.connection();
        int mark = c == null ? 0 : c.front.replyMark();
        long errors = c == null ? 0 : c.front.errorReplies();
        Frontend f = frontend;
        if (f != null) {
            f.busy(p.args() != null ? p.args() : p.kind().toString());
        }
        long started = System.nanoTime();
        try {
            execute(p);
            if (c != null && f != null) {
                account(f, p, System.nanoTime() - started, c.front.errorReplies() > errors);
            }
        } catch (RuntimeException | Error e) {
            String name = p.args() != null ? name(p.args()) : p.kind().toString().toLowerCase(Locale.ROOT);
            LOG.log(Level.ERROR, "''" + name + "'' failed unexpectedly; its client is answered with an error", e);
            if (c != null) {
                c.front.resetReply(mark);
                c.front.reply().error("ERR internal error while running '" + name + "': " + e);
                touched.add(c);
            }
        } finally {
            if (f != null) {
                f.idle();
            }
            if (c != null && p.args() != null) {
                c.front.released(p.args());
            }
        }
    }

    /**
     * Tells the front end what ran, for its command statistics: a refusal before it ran is a rejected call; a run that
     * answered an error is a failed call; a transaction counts EXEC and each of its commands.
     */
    private static void account(Frontend f, Pending p, long durationNs, boolean failed) {
        NodeClient c = p.connection().front;
        switch (p.kind()) {
            case IMMEDIATE -> {
                if (p.args() == null || p.immediate().equals("+QUEUED")) {
                    return;
                }
                if (p.immediate().startsWith("-")) {
                    f.rejected(c, p.args());
                } else {
                    f.executed(c, p.args(), durationNs, false);
                }
            }
            case TRANSACTION, READ_TRANSACTION -> f.executedTransaction(c, p.commands(), durationNs, failed);
            case READ, REFUSED, WRITE, CONNECTION, WAIT -> {
                if (!name(p.args()).endsWith(Keyspace.WOKEN_SUFFIX)) { // a blocked command's later tries: counted once
                    f.executed(c, p.args(), durationNs, failed);
                }
            }
            default -> {
            }
        }
    }

    /** Sequences one event with a guard: a request that fails unexpectedly here is answered with an error. */
    private void sequenceIsolated(Event e) {
        try {
            sequence(e);
            wakeBlocked();
        } catch (RuntimeException | Error t) {
            LOG.log(Level.ERROR, "a request failed unexpectedly before it was sequenced; it is answered with an error",
                    t);
            if (e.connection() != null && e.message() != CLOSED) {
                immediate(e.connection(), null, "ERR internal error: " + t);
            }
        }
    }

    /** @return null when ready to serve the keyspace, else why not ({@link tandem.api.node.Node#notReady}) */
    public String notReady() {
        if (journal == null) {
            return "the journal (tandem.journal) is not active";
        }
        if (keyspace == null) {
            return "the store (tandem.store) is not active";
        }
        ApplyFailure f = applyFailure;
        if (f != null) {
            return "applying the journal stopped: " + f;
        }
        long total = replayTotal;
        if (total > 0 && !replayed) { // a replica's applies of streamed entries are not a replay to wait for
            return "replaying the journal: " + replayDone + " of " + total + " entries";
        }
        String u = unavailable;
        if (u != null) {
            return u.substring(u.indexOf(' ') + 1); // without the error code
        }
        if (!replayed) {
            return "the journal is not replayed into the store yet";
        }
        if (!roleKnown) {
            return "waiting for a replication protocol to declare this node's role";
        }
        return null;
    }

    /** @return the write-to-ack latencies recorded so far */
    public WriteAckLatency ackLatency() {
        return ackLatency;
    }

    /**
     * @return true while an installed snapshot waits for the journal of its history: keyspace commands are answered
     *         {@code -LOADING} meanwhile
     */
    public boolean loading() {
        String u = unavailable;
        return u != null && u.startsWith("LOADING");
    }

    private void failHead(String error) {
        refuse(pending.poll(), error);
    }

    private void refuse(Pending p, String error) {
        if (p.kind() == Kind.TICK) {
            tickPendingSequence = 0;
            return;
        }
        if (p.connection() == null) {
            return; // an entry of the node's own, no client waits for it
        }
        p.connection().front.reply().error(error);
        touched.add(p.connection());
        if (p.kind() == Kind.WRITE && blocked.has(p.connection())) {
            blocked.done(p.connection()); // a blocking command answered with an error blocks no more
            resume(p.connection());
        }
    }

    private void failPending(String error) {
        while (!pending.isEmpty()) {
            failHead(error);
        }
        for (Client c : touched) {
            c.front.flush();
        }
        touched.clear();
    }

    private void execute(Pending p) {
        Client c = p.connection();
        switch (p.kind()) {
            case TICK -> {
                tickPendingSequence = 0;
                if (applyFailure == null) {
                    guarded(p.sequence(), "TICK", () -> keyspace.tick(p.sequence(), p.timestampNs()));
                }
                return;
            }
            case EPOCH_BUMP -> {
                if (applyFailure == null) {
                    guarded(p.sequence(), "EPOCH_BUMP", () -> keyspace.epochBump(p.sequence(), epoch(p.args()[0])));
                }
                return;
            }
            case WAIT -> {
                if (waits.start(c)) {
                    touched.add(c);
                    resume(c);
                }
                return;
            }
            case IMMEDIATE -> writeImmediate(c, p.immediate());
            case ERROR -> {
                if (p.immediate() != null) {
                    c.front.reply().error(p.immediate());
                }
                c.front.closeAfterReply();
            }
            case CONNECTION -> {
                java.util.function.Supplier<String> later = c.front.run(p.args());
                if (c.parked) {
                    finishLater(c, later);
                } else if (later != null) {
                    replyLine(c, later.get());
                }
            }
            case READ -> keyspace.read(nextTimestamp(), p.args(), c.front.reply());
            case REFUSED -> keyspace.refuse(nextTimestamp(), p.args(), c.front.reply());
            case WRITE -> {
                if (c.gatedSequence == 0) {
                    c.heldMark = c.front.replyMark();
                }
                if (blocked.has(c)) {
                    applyBlocking(p);
                    return;
                }
                if (applyClient(p, name(p.args()).toUpperCase(Locale.ROOT),
                        () -> keyspace.apply(p.sequence(), p.timestampNs(), p.args(), c.front.reply()))) {
                    c.gatedSequence = p.sequence();
                }
            }
            case TRANSACTION -> {
                if (c.gatedSequence == 0) {
                    c.heldMark = c.front.replyMark();
                }
                if (applyClient(p, "MULTI … EXEC",
                        () -> keyspace.applyTransaction(p.sequence(), p.timestampNs(), p.commands(), c.front.reply()))) {
                    c.gatedSequence = p.sequence();
                }
            }
            case READ_TRANSACTION -> {
                long now = nextTimestamp();
                c.front.reply().array(p.commands().size());
                for (byte[][] command : p.commands()) {
                    keyspace.read(now, command, c.front.reply());
                }
            }
            default -> throw new IllegalStateException(p.kind().toString());
        }
        touched.add(c);
    }

    /**
     * Applies a blocking command: served (or answered with an error), its client is unblocked and resumes; when it
     * found nothing, its nil reply is taken back and the client parks, or is journaled again at once when a write
     * touched its keys while it was in flight.
     */
    private void applyBlocking(Pending p) {
        Client c = p.connection();
        int mark = c.front.replyMark();
        Blocked.NilProbe probe = new Blocked.NilProbe(c.front.reply());
        boolean applied = applyClient(p, name(p.args()).toUpperCase(Locale.ROOT),
                () -> keyspace.apply(p.sequence(), p.timestampNs(), p.args(), probe));
        touched.add(c);
        if (applied && probe.nilOnly()) {
            c.front.resetReply(mark);
            if (!blocked.park(c)) {
                attemptAgain(c, blocked.args(c));
            }
            return;
        }
        if (applied) {
            c.gatedSequence = p.sequence();
        }
        blocked.done(c);
        resume(c);
    }

    /**
     * Applies a client's journaled write. When applying is stopped, or stops now, the client gets the stop error and
     * whatever the failed apply had begun to reply is taken back: nothing is answered as if it had succeeded.
     *
     * @return true when applied
     */
    private boolean applyClient(Pending p, String command, Runnable apply) {
        Client c = p.connection();
        int mark = c.front.replyMark();
        if (applyFailure == null && guarded(p.sequence(), command, apply)) {
            return true;
        }
        c.front.resetReply(mark);
        c.front.reply().error(applyFailure.error(p.sequence()));
        return false;
    }

    private static void writeImmediate(Client c, String reply) {
        switch (reply.charAt(0)) {
            case '+' -> c.front.reply().simple(reply.substring(1));
            case '-' -> c.front.reply().error(reply.substring(1));
            case '*' -> c.front.reply().nullArray();
            default -> throw new IllegalStateException(reply);
        }
    }

    /** Writes {@code +text} or {@code -error}, a line without its CRLF, as {@code c}'s reply. */
    private static void replyLine(Client c, String line) {
        if (line.startsWith("-")) {
            c.front.reply().error(line.substring(1));
        } else {
            c.front.reply().simple(line.startsWith("+") ? line.substring(1) : line);
        }
    }

    /** Swallows the replies of replayed entries. */
    private static final class DiscardingReply implements Reply {
        @Override
        public Reply simple(String text) {
            return this;
        }

        @Override
        public Reply error(String text) {
            return this;
        }

        @Override
        public Reply integer(long value) {
            return this;
        }

        @Override
        public Reply bulk(byte[] value) {
            return this;
        }

        @Override
        public Reply nullBulk() {
            return this;
        }

        @Override
        public Reply nullArray() {
            return this;
        }

        @Override
        public Reply array(int count) {
            return this;
        }
    }
}
