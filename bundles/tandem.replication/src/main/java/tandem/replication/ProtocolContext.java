package tandem.replication;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import tandem.api.auth.NodeIdentity;
import tandem.api.auth.ReplicaAuthorizer;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.Journal;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.PsyncHistory;
import tandem.api.replication.ReplicationHub;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;

/**
 * What a primary's sessions and a replica's link share while the protocol runs: the journal and hub, the services
 * that may come and go (auth, checkpoints), the replica registry with the ack policy it implies, the live frames'
 * {@link Fanout}, the sessions themselves, a timer, and the epoch, fence and transport they report to.
 */
final class ProtocolContext implements PrimarySession.PrimaryContext, ReplicaLink.ReplicaContext {

    /** While the node starts, a replica's first handshake waits this long at most for the checkpoint service. */
    static final long CHECKPOINTS_GRACE_NANOS = TimeUnit.SECONDS.toNanos(3);

    private static final Logger LOG = System.getLogger("tandem.replication");

    private final Journal journal;
    private final ReplicationHub hub;
    private final Supplier<ReplicationSettings> settings;
    private final EpochFile epoch;
    private final RestartFence fence;
    private final TransportChoice transports;
    private final ScheduledThreadPoolExecutor scheduler;
    private final List<PrimarySession> sessions = new CopyOnWriteArrayList<>();
    /** Snapshots sent to replicas since the component started: the journal protocol's full syncs. */
    private final AtomicLong snapshotsSent = new AtomicLong();
    /**
     * Dynamic references: an update of the auth bundle leaves running links alone (they authenticated already);
     * while no auth service is bound, a new link is closed before it authenticates and its replica retries.
     */
    final AtomicReference<NodeIdentity> identity = new AtomicReference<>();
    final AtomicReference<ReplicaAuthorizer> authorizer = new AtomicReference<>();
    /** Needed only for snapshots: a checkpoint bundle being updated must not restart replication. */
    final AtomicReference<Checkpoints> checkpoints = new AtomicReference<>();
    final AtomicReference<PsyncHistory> psync = new AtomicReference<>();
    /**
     * What the last StreamStart or snapshot said of this replica's history, hex or {@link #NO_HISTORY}; null before
     * the first: given to a psync protocol that becomes active later.
     */
    private String primaryHistory;
    private static final String NO_HISTORY = "";
    private volatile long startedNanos;
    private volatile Registry registry;
    private volatile Fanout fanout;

    ProtocolContext(Journal journal, ReplicationHub hub, Supplier<ReplicationSettings> settings, EpochFile epoch,
            RestartFence fence, TransportChoice transports) {
        this.journal = journal;
        this.hub = hub;
        this.settings = settings;
        this.epoch = epoch;
        this.fence = fence;
        this.transports = transports;
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tandem-repl-timer");
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** The component activated: the grace for the checkpoint service starts now. */
    void started() {
        startedNanos = System.nanoTime();
    }

    /** The component deactivated. */
    void close() {
        scheduler.shutdownNow();
    }

    /** @return the registry of the replicas a primary has served, kept in {@code stateDirectory}, opened now */
    Registry openRegistry(Path stateDirectory) {
        Registry r = new Registry(stateDirectory);
        registry = r;
        return r;
    }

    Registry registry() {
        return registry;
    }

    /** A primary's live frames from now on: a new {@link Fanout}, tapped on the journal. */
    void startFanout(int maxFrameBytes) {
        Fanout f = new Fanout(maxFrameBytes);
        fanout = f;
        journal.tap(f);
    }

    /** The live frames stop; none while this node is a replica. */
    void stopFanout() {
        Fanout f = fanout;
        fanout = null;
        if (f != null) {
            journal.untap(f);
        }
    }

    /** Enforces the ack policy the settings and the registry imply (a primary's). */
    void applyPolicy() {
        AckPolicy p = settings.get().effectivePolicy(registry.isEmpty());
        if (p != hub.ackPolicy()) {
            LOG.log(Level.INFO, "ack policy {0}", p.label());
        }
        hub.ackPolicy(p);
    }

    /** @return a session for a replica that connects to one of the primary's listeners */
    FrameSession newSession() {
        PrimarySession session = new PrimarySession(this);
        sessions.add(session);
        return session;
    }

    /** @return the primary's sessions, open or closing */
    List<PrimarySession> sessions() {
        return sessions;
    }

    /** The protocol stops: closes every session now and releases its replica's slot. */
    void shutdownSessions(String why) {
        for (PrimarySession session : sessions) {
            session.shutdown(why);
        }
        sessions.clear();
    }

    long snapshotsSent() {
        return snapshotsSent.get();
    }

    // ---- what the sessions and the link ask ---------------------------------------------------------------------

    @Override
    public Journal journal() {
        return journal;
    }

    @Override
    public ReplicationHub hub() {
        return hub;
    }

    @Override
    public ReplicationSettings settings() {
        return settings.get();
    }

    @Override
    public long epoch() {
        return epoch.current();
    }

    @Override
    public void epoch(long seen) {
        epoch.advance(seen);
    }

    @Override
    public ReplicaAuthorizer authorizer() {
        return authorizer.get();
    }

    @Override
    public NodeIdentity identity() {
        return identity.get();
    }

    @Override
    public Checkpoints checkpoints() {
        return checkpoints.get();
    }

    @Override
    public boolean checkpointsExpected() {
        return checkpoints.get() == null && System.nanoTime() - startedNanos < CHECKPOINTS_GRACE_NANOS;
    }

    @Override
    public byte[] psyncId() {
        PsyncHistory h = psync.get();
        String id = h == null ? null : h.historyId();
        return id == null ? null : java.util.HexFormat.of().parseHex(id);
    }

    @Override
    public synchronized void primaryHistory(byte[] psyncId) {
        primaryHistory = psyncId == null ? NO_HISTORY : java.util.HexFormat.of().formatHex(psyncId);
        tellPsync(psync.get());
    }

    /**
     * Gives the psync protocol what this replica's journal holds: at each StreamStart and snapshot, and when the
     * protocol becomes active. A failure is logged; the psync protocol then claims no id (a full sync of its
     * replicas if this node is promoted, never a continuation into a history it does not hold). Synchronized with
     * {@link #primaryHistory}, so that a protocol bound meanwhile is never told an older history last.
     */
    synchronized void tellPsync(PsyncHistory h) {
        String known = primaryHistory;
        if (h == null || known == null || settings.get().primary() == null) {
            return;
        }
        try {
            h.followedByJournal(known.isEmpty() ? null : known);
        } catch (java.io.IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "journal replication: the psync id of this replica''s history cannot be recorded: "
                    + "{0}", e.getMessage());
        }
    }

    @Override
    public FrameTransport transport() {
        return transports.upstream();
    }

    @Override
    public Fanout fanout() {
        return fanout;
    }

    @Override
    public boolean register(String id) {
        boolean fresh = registry.register(id, System.currentTimeMillis());
        if (fresh) {
            applyPolicy();
        }
        return fresh;
    }

    @Override
    public void replaceOthers(PrimarySession session) {
        for (PrimarySession other : sessions) {
            if (other != session && other.id().equals(session.id())
                    && other.state() != PrimarySession.State.CLOSED) {
                other.close("replaced by a new connection of the same replica");
            }
        }
    }

    @Override
    public void ended(PrimarySession session) {
        sessions.remove(session);
    }

    @Override
    public void snapshotSent() {
        snapshotsSent.incrementAndGet();
    }

    @Override
    public boolean shown(String id, String address, long replicaLast, boolean ahead) {
        return fence.shown(id, address, replicaLast, ahead);
    }

    @Override
    public void superseded(String id, String address, long replicaEpoch) {
        fence.superseded(replicaEpoch);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        return scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }
}
