package tandem.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.auth.NodeIdentity;
import tandem.api.auth.ReplicaAuthorizer;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.Journal;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameTransport;
import tandem.protocol.files.DurableFiles;

/**
 * The journal protocol (spec 000) of a node: on a primary, the listener for replicas and one {@link PrimarySession}
 * per replica; on a replica ({@code primary} set), the {@link ReplicaLink} to its primary.
 *
 * <p>The component waits for its configuration ({@code etc/tandem.replication.cfg}): a replica must never start as
 * a primary because its configuration was not read yet.
 *
 * <p>The ack policy, heartbeat and ring bound change live through {@link #modified}; a change of role, address or
 * port restarts the protocol (client connections are not the protocol's and stay up). The journal and hub are
 * static references: when one is replaced, this component restarts and its replicas reconnect and resume from their
 * journals. The transport and the auth services are dynamic: a new transport takes over the links (a primary listens
 * on it, a replica reconnects through it) without a restart; replacing auth touches no running link.
 *
 * <p>Transports are chosen by configuration ({@code transports}, by preference): a primary listens on every
 * configured transport that is active and available, on the same port, so that replicas on either reach it while
 * an operator moves a cluster from one to another; a replica connects through the first of them. Installing the
 * DPDK transport (feature {@code transport-dpdk}) therefore moves a replica's link to it, and uninstalling it
 * moves the link back to TCP, without restarting the protocol.
 */
@Component(service = {ReplicationStatusSource.class, ReplicationControl.class, MetricsSource.class}, immediate = true,
        configurationPid = ReplicationSettings.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = ReplicationComponent.Config.class)
public final class ReplicationComponent implements ReplicationStatusSource, ReplicationControl, MetricsSource,
        PrimarySession.PrimaryContext, ReplicaLink.ReplicaContext {

    /** Snapshots sent to replicas since the component started: the journal protocol's full syncs. */
    private final java.util.concurrent.atomic.AtomicLong snapshotsSent = new java.util.concurrent.atomic.AtomicLong();

    private static final Logger LOG = System.getLogger("tandem.replication");
    /** The highest epoch this node has seen, in the state directory (spec 000: a node never goes back on one). */
    static final String EPOCH_FILE = "epoch";

    @ObjectClassDefinition(id = ReplicationSettings.PID, name = "Tandem journal replication",
            description = "The journal protocol: a primary streams its journal to up to two replicas.")
    public @interface Config {

        @AttributeDefinition(description = "IP address literal the replication listener binds to (a primary). "
                + "Host names are refused.")
        String bind() default "127.0.0.1";

        @AttributeDefinition(description = "TCP port of the replication listener (0..65535; 0 picks a free one). "
                + "A change restarts the protocol.")
        int port() default 7379;

        @AttributeDefinition(description = "Empty on a primary. On a replica, the primary's replication address "
                + "IP:PORT: the node then refuses client writes and follows that primary. A change restarts the "
                + "protocol.")
        String primary() default "";

        @AttributeDefinition(description = "When a write is answered: auto (disk while no replica is registered, "
                + "disk+ram after), disk, disk+ram, two-disks or ram. Applies live; the gate never weakens a "
                + "policy because replicas are missing, it waits.")
        String ack_policy() default "auto";

        @AttributeDefinition(description = "Largest frame payload accepted or sent, in bytes "
                + "(131072..67108864).")
        int max_frame_bytes() default 768 * 1024;

        @AttributeDefinition(description = "The replication transports by preference, comma-separated (default "
                + "dpdk,tcp). A primary listens on each one that is installed and available, on the same port; a "
                + "replica connects through the first one. Applies live: links move when the choice changes.")
        String transports() default "dpdk,tcp";

        @AttributeDefinition(description = "A primary sends a Heartbeat after this many idle milliseconds "
                + "(10..60000). Applies live to new connections.")
        int heartbeat_ms() default 1000;

        @AttributeDefinition(description = "How long authentication and the handshake may take, in milliseconds "
                + "(100..600000).")
        int handshake_timeout_ms() default 10_000;

        @AttributeDefinition(description = "The longest pause between two connection attempts of a replica, in "
                + "milliseconds (100..600000); attempts start 100 ms apart and double.")
        int reconnect_max_ms() default 5_000;

        @AttributeDefinition(description = "Bytes of frames queued for one replica before it is evicted and "
                + "catches up from the journal files instead (at least 4 × max.frame.bytes).")
        long ring_max_bytes() default 64L * 1024 * 1024;

        @AttributeDefinition(description = "Where the replica registry and the epoch are kept; empty means "
                + "<tandem.home>/data/replication.")
        String state_directory() default "";
    }

    private final BundleContext context;
    /**
     * Dynamic: a transport update moves the links to the new transport without restarting the protocol (fence,
     * epoch, registry and role stay as they are); while none is bound a primary does not listen and a replica
     * retries.
     */
    private final List<FrameTransport> transports = new CopyOnWriteArrayList<>();
    /** The transport a replica's link uses now, to move the link only when the choice changes. */
    private volatile FrameTransport upstreamTransport;
    private boolean active;
    private volatile long activatedNanos;
    private final Journal journal;
    private final ReplicationHub hub;
    /**
     * Dynamic: an update of the auth bundle leaves running links alone (they authenticated already); while no auth
     * service is bound, a new link is closed before it authenticates and its replica retries.
     */
    private volatile NodeIdentity identity;
    private volatile ReplicaAuthorizer authorizer;
    private final ConfigurationAdmin configAdmin;
    private final ScheduledThreadPoolExecutor scheduler;
    private final List<PrimarySession> sessions = new CopyOnWriteArrayList<>();
    private volatile ReplicationSettings settings;
    private volatile Registry registry;
    private volatile Fanout fanout;
    /** A primary's listeners, one per transport it listens on, in the order they started. */
    private final Map<FrameTransport, FrameListener> listeners = Collections.synchronizedMap(new LinkedHashMap<>());
    private volatile ReplicaLink upstream;
    private volatile long epoch;
    /** Needed only for snapshots: a checkpoint bundle being updated must not restart replication. */
    private volatile Checkpoints checkpoints;

    @Activate
    public ReplicationComponent(Config config, BundleContext context, @Reference Journal journal,
            @Reference ReplicationHub hub, @Reference ConfigurationAdmin configAdmin) {
        this.context = context;
        this.journal = journal;
        this.hub = hub;
        this.configAdmin = configAdmin;
        this.settings = ReplicationSettings.of(config, context.getProperty("tandem.home"));
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tandem-repl-timer");
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** After the dynamic references are bound: the transport, the key and the authorizer, when they are active. */
    @Activate
    synchronized void activate() throws IOException {
        active = true;
        activatedNanos = System.nanoTime();
        startProtocol();
    }

    /** While the node starts, a replica's first handshake waits this long at most for the checkpoint service. */
    static final long CHECKPOINTS_GRACE_NANOS = TimeUnit.SECONDS.toNanos(3);

    @Override
    public boolean checkpointsExpected() {
        return checkpoints == null && System.nanoTime() - activatedNanos < CHECKPOINTS_GRACE_NANOS;
    }

    private void startProtocol() throws IOException {
        ReplicationSettings s = settings;
        registry = new Registry(s.stateDirectory());
        epoch = readEpoch(s.stateDirectory());
        if (s.primary() != null) {
            // a replica has no tenure to guard: whatever fence it had as a primary is gone with the role. It
            // follows first and only then drops the fence: the other way round, a fenced primary made a replica
            // took a client write in between (the long quorum checker saw one acknowledged and then discarded)
            Files.deleteIfExists(s.stateDirectory().resolve(RUNNING));
            hub.follow(s.primary());
            clearFence();
            hub.ackPolicy(AckPolicy.DISK);
            journal.rotateBySize(false);
            ReplicaLink link = new ReplicaLink(this);
            upstream = link;
            link.start();
            LOG.log(Level.INFO, "journal replication: replica of {0}", s.primary());
        } else {
            journal.rotateBySize(true);
            applyPolicy();
            // the fence first, then the role: the node core holds client writes until the role is declared, so a
            // primary restarted after a crash never takes one before it knows whether a replica is ahead of it
            guardTenure(s);
            if (!"psync".equals(hub.upstreamProtocol())) {
                hub.follow(null); // a psync replica stays one: REPLICAOF NO ONE makes it a primary, not this
            }
            Fanout f = new Fanout(s.maxFrameBytes());
            fanout = f;
            journal.tap(f);
            listen(s);
        }
    }

    /** A primary's listeners: one on each preferred transport that is not listening yet. */
    private void listen(ReplicationSettings s) {
        List<FrameTransport> chosen = preferred();
        if (chosen.isEmpty()) {
            LOG.log(Level.WARNING, "journal replication: primary, not listening: none of the transports {0} is "
                    + "active and available (feature transport-tcp); replicas connect once one is",
                    String.join(",", s.transports()));
            return;
        }
        for (FrameTransport t : chosen) {
            if (listeners.containsKey(t)) {
                continue;
            }
            // every listener on one port, so that a replica reaches the primary at the same address whichever
            // transport it prefers; a port of 0 is chosen by the first
            int port = s.port();
            for (FrameListener other : listeners.values()) {
                port = port == 0 ? other.port() : port;
            }
            FrameListener l;
            try {
                l = t.listen(s.bind(), port, s.maxFrameBytes(), () -> {
                    PrimarySession session = new PrimarySession(this);
                    sessions.add(session);
                    return session;
                });
            } catch (IOException | RuntimeException e) {
                // stay active: a configuration change (another port) can still bring the listener up
                LOG.log(Level.ERROR, "journal replication cannot listen on {0}:{1} ({2}): {3}; waiting for a "
                        + "configuration change", s.bind(), Integer.toString(port), t.name(), e.getMessage());
                continue;
            }
            listeners.put(t, l);
            LOG.log(Level.INFO, "journal replication: primary, listening for replicas on {0}:{1} ({2}), ack "
                    + "policy {3}", s.bind(), Integer.toString(l.port()), t.name(), hub.ackPolicy().label());
        }
    }

    /** Closes a primary's listeners and the sessions they accepted. */
    private void unlisten(String why) {
        List<FrameListener> open;
        synchronized (listeners) {
            open = new ArrayList<>(listeners.values());
            listeners.clear();
        }
        for (FrameListener l : open) {
            l.close();
        }
        for (PrimarySession session : sessions) {
            session.shutdown(why);
        }
        sessions.clear();
    }

    /** @return the bound transports that are configured and available, in the configured order */
    private List<FrameTransport> preferred() {
        List<FrameTransport> out = new ArrayList<>();
        for (String name : settings.transports()) {
            FrameTransport t = named(name);
            if (t != null && t.unavailableReason() == null) {
                out.add(t);
            }
        }
        return out;
    }

    /** @return the bound transport of that name, or null */
    private FrameTransport named(String name) {
        for (FrameTransport t : transports) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    private void stopProtocol() {
        ReplicationSettings s = settings;
        boolean wasPrimary = upstream == null;
        unlisten("replication stopped");
        Fanout f = fanout;
        fanout = null;
        if (f != null) {
            journal.untap(f);
        }
        ReplicaLink link = upstream;
        upstream = null;
        if (link != null) {
            link.close();
        }
        if (wasPrimary) {
            endTenure(s);
        }
    }

    // ---- the restart fence -------------------------------------------------------------------------------------

    /**
     * Present while this node is a primary that may have sent replicas a batch it had not made durable yet (it
     * streams a batch while it syncs it); deleted at a clean stop once the journal holds everything it sent. Found
     * at start, it means the previous run ended in a crash.
     */
    static final String RUNNING = "primary.running";

    /** Registered replicas that have not shown their position since this primary restarted after a crash. */
    private final java.util.Set<String> unconfirmed = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile String aheadNote;
    private volatile long supersededBy;
    private volatile String fenceError;

    /**
     * A primary with replicas that restarts after a crash comes up fenced: its replicas may hold writes it lost, or
     * another node may have been promoted meanwhile. The fence lifts once every registered replica has shown that it
     * is not ahead (its handshake), or on {@code repl:promote --force}. A standalone node is never fenced.
     */
    private void guardTenure(ReplicationSettings s) throws IOException {
        Path marker = s.stateDirectory().resolve(RUNNING);
        boolean crashed = Files.exists(marker);
        Files.createDirectories(s.stateDirectory());
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(marker,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        try (java.nio.channels.FileChannel dir = java.nio.channels.FileChannel.open(s.stateDirectory(),
                java.nio.file.StandardOpenOption.READ)) {
            dir.force(true);
        }
        if (crashed && !registry.isEmpty()) {
            unconfirmed.addAll(registry.ids());
            LOG.log(Level.WARNING, "journal replication: this primary restarted after a crash with {0} registered "
                    + "replicas; client writes are refused until each has shown it is not ahead", unconfirmed.size());
        }
        updateFence();
    }

    /** A clean stop: once the journal holds everything sent, no replica can be ahead of it. */
    private void endTenure(ReplicationSettings s) {
        if (fenceError != null) {
            return; // still fenced: what made it so survives this stop, and so does the marker
        }
        try {
            journal.awaitDurable(journal.lastSequence());
            Files.deleteIfExists(s.stateDirectory().resolve(RUNNING));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "the next start of this primary will be fenced: {0}", e.toString());
        }
    }

    private void clearFence() {
        unconfirmed.clear();
        aheadNote = null;
        supersededBy = 0;
        updateFence();
    }

    private synchronized void updateFence() {
        String f = null;
        if (supersededBy > 0) {
            f = "FENCED another node was promoted after this one: a replica has seen epoch " + supersededBy
                    + ", this node is at " + epoch + "; make this node a replica of the new primary with "
                    + "repl:replicaof IP:PORT";
        } else if (!unconfirmed.isEmpty()) {
            f = "FENCED this primary restarted after a crash; it accepts writes once every registered replica has "
                    + "shown that it is not ahead (" + unconfirmed.size() + " not yet"
                    + (aheadNote == null ? "" : "; " + aheadNote) + "), or after repl:promote --force";
        }
        if (!java.util.Objects.equals(f, fenceError)) {
            fenceError = f;
            hub.fence(f);
        }
    }

    @Override
    public boolean shown(String id, String address, long replicaLast, boolean ahead) {
        if (!unconfirmed.contains(id)) {
            return true;
        }
        if (ahead) {
            aheadNote = "replica " + id + " at " + address + " holds sequence " + replicaLast + " beyond this node's "
                    + journal.durableSequence() + ": promote it (repl:promote there) and make this node its replica, "
                    + "or run repl:promote --force here to give up what it holds";
            LOG.log(Level.ERROR, "journal replication: fenced: {0}", aheadNote);
            updateFence();
            return false;
        }
        unconfirmed.remove(id);
        if (unconfirmed.isEmpty()) {
            aheadNote = null;
            LOG.log(Level.WARNING, "journal replication: every registered replica has shown it is not ahead of "
                    + "this restarted primary");
        }
        updateFence();
        return true;
    }

    @Override
    public void superseded(String id, String address, long replicaEpoch) {
        if (replicaEpoch > supersededBy) {
            supersededBy = replicaEpoch;
            updateFence();
        }
    }

    // ---- promotion and repointing ------------------------------------------------------------------------------

    @Override
    public synchronized String promote(boolean force) throws InterruptedException {
        ReplicationSettings s = settings;
        if (s.primary() == null) {
            if (fenceError == null) {
                throw new IllegalStateException("this node is a primary already");
            }
            if (!force) {
                throw new IllegalStateException("this primary is fenced (" + fenceError
                        + "); repl:promote --force lifts the fence");
            }
            String was = fenceError;
            clearFence();
            LOG.log(Level.WARNING, "journal replication: the fence was lifted by repl:promote --force ({0})", was);
            return "the fence is lifted: client writes are accepted";
        }
        ReplicaLink link = upstream;
        if (link != null && "streaming".equals(link.status().state()) && !force) {
            throw new IllegalStateException("the primary " + s.primary() + " still streams to this node: stop it "
                    + "first, or run repl:promote --force");
        }
        upstream = null;
        if (link != null) {
            link.close(); // nothing more is received
        }
        long bump;
        long next = epoch + 1;
        try {
            journal.awaitDurable(journal.lastSequence());
            epoch(next);
            bump = hub.lead(next);
        } catch (RuntimeException | InterruptedException e) {
            LOG.log(Level.ERROR, "journal replication: promotion failed, following {0} again: {1}", s.primary(),
                    e.getMessage());
            try {
                startProtocol();
            } catch (IOException again) {
                LOG.log(Level.ERROR, "journal replication cannot follow again: {0}", again.getMessage());
            }
            throw e;
        }
        settings = s.withPrimary(null);
        persist("primary", "");
        try {
            startProtocol();
        } catch (IOException e) {
            throw new UncheckedIOException("promoted, but the replication listener cannot start: "
                    + e.getMessage(), e);
        }
        String listening = listening(s);
        listening = listening == null ? "(not listening: see the log)" : listening;
        LOG.log(Level.WARNING, "journal replication: promoted: primary at epoch {0} (EpochBump at sequence {1}), "
                + "listening for replicas on {2}", next, bump, listening);
        return "promoted: primary at epoch " + next + " (EpochBump at sequence " + bump + "); replicas connect to "
                + listening;
    }

    @Override
    public synchronized String replicaOf(String address) {
        if ("psync".equals(hub.upstreamProtocol())) {
            throw new IllegalStateException("this node is a psync replica of " + hub.upstream() + ": REPLICAOF NO ONE "
                    + "first");
        }
        ReplicationSettings next = settings.withPrimary(address);
        if (next.primary() == null) {
            throw new IllegalArgumentException(ReplicationSettings.PID + ": primary=" + address
                    + " is invalid: must be IP:PORT (repl:promote makes a replica a primary)");
        }
        if (next.primary().equals(settings.primary())) {
            return "already a replica of " + next.primary();
        }
        stopProtocol();
        settings = next;
        persist("primary", next.primary());
        try {
            startProtocol();
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
        return "following " + next.primary() + ": client writes are refused; a diverged journal is archived and "
                + "replaced by a snapshot";
    }

    @Modified
    synchronized void modified(Config config) throws IOException {
        ReplicationSettings next;
        try {
            next = ReplicationSettings.of(config, context.getProperty("tandem.home"));
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "configuration change refused, the running configuration stays: {0}",
                    e.getMessage());
            return;
        }
        ReplicationSettings previous = settings;
        settings = next;
        if (!java.util.Objects.equals(next.primary(), previous.primary()) || !next.bind().equals(previous.bind())
                || next.port() != previous.port() || next.maxFrameBytes() != previous.maxFrameBytes()
                || !next.stateDirectory().equals(previous.stateDirectory())) {
            LOG.log(Level.INFO, "journal replication: role or address changed; restarting the protocol");
            stopProtocol();
            startProtocol();
        } else {
            if (next.primary() == null) {
                applyPolicy();
            }
            if (!next.transports().equals(previous.transports())) {
                LOG.log(Level.INFO, "journal replication: transports by preference now {0}",
                        String.join(",", next.transports()));
                transportChanged();
            }
        }
    }

    @Deactivate
    synchronized void deactivate() {
        active = false;
        stopProtocol();
        scheduler.shutdownNow();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindTransport(FrameTransport t) {
        transports.add(t);
        String why = t.unavailableReason();
        if (why != null) {
            LOG.log(Level.WARNING, "journal replication: transport {0} is installed but unavailable, not used: {1}",
                    t.name(), why);
        }
        transportChanged();
    }

    synchronized void unbindTransport(FrameTransport t) {
        if (transports.remove(t)) {
            transportChanged();
        }
    }

    /**
     * Moves the links to the transports preferred now: a replica's link moves when its first choice changed (none:
     * it keeps retrying); a primary closes the listeners of transports no longer chosen, with their links, and
     * listens on those newly chosen, leaving the others and their links alone.
     */
    private void transportChanged() {
        if (!active) {
            return; // activation listens or connects with whatever is bound then
        }
        List<FrameTransport> chosen = preferred();
        ReplicaLink link = upstream;
        if (link != null) {
            FrameTransport first = chosen.isEmpty() ? null : chosen.get(0);
            if (first != upstreamTransport) {
                LOG.log(Level.INFO, "journal replication: the replication transport is now {0}",
                        first == null ? "none" : first.name());
                link.transportChanged();
            }
        } else if (settings.primary() == null) {
            List<FrameListener> dropped = new ArrayList<>();
            synchronized (listeners) {
                listeners.entrySet().removeIf(e -> {
                    if (chosen.contains(e.getKey())) {
                        return false;
                    }
                    LOG.log(Level.INFO, "journal replication: no longer listening on {0}", e.getKey().name());
                    dropped.add(e.getValue());
                    return true;
                });
            }
            dropped.forEach(FrameListener::close); // a listener closes the links it accepted
            listen(settings);
        }
    }

    private void applyPolicy() {
        AckPolicy p = settings.effectivePolicy(registry.isEmpty());
        if (p != hub.ackPolicy()) {
            LOG.log(Level.INFO, "ack policy {0}", p.label());
        }
        hub.ackPolicy(p);
    }

    // ---- epoch ------------------------------------------------------------------------------------------------

    /** @return the highest epoch this node has seen, recorded in {@code dir}; 0 when none is */
    static long readEpoch(Path dir) throws IOException {
        Path f = dir.resolve(EPOCH_FILE);
        if (!Files.exists(f)) {
            return 0;
        }
        try {
            return Long.parseLong(Files.readString(f, StandardCharsets.US_ASCII).trim());
        } catch (NumberFormatException e) {
            throw new IOException(f + ": not an epoch: " + e.getMessage(), e);
        }
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public synchronized void epoch(long seen) {
        if (seen <= epoch) {
            return;
        }
        Path dir = settings.stateDirectory();
        try {
            writeEpoch(dir, seen);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record epoch " + seen + " in " + dir, e);
        }
        epoch = seen;
    }

    /**
     * Records {@code epoch} in {@code dir} durably before the node acts on it: a node that forgot, after a crash,
     * the epoch it had seen could accept a deposed primary again.
     */
    static void writeEpoch(Path dir, long epoch) throws IOException {
        DurableFiles.writeAtomically(dir.resolve(EPOCH_FILE), (epoch + "\n").getBytes(StandardCharsets.US_ASCII));
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindCheckpoints(Checkpoints c) {
        checkpoints = c;
    }

    void unbindCheckpoints(Checkpoints c) {
        if (checkpoints == c) {
            checkpoints = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindIdentity(NodeIdentity i) {
        identity = i;
    }

    void unbindIdentity(NodeIdentity i) {
        if (identity == i) {
            identity = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindAuthorizer(ReplicaAuthorizer a) {
        authorizer = a;
    }

    void unbindAuthorizer(ReplicaAuthorizer a) {
        if (authorizer == a) {
            authorizer = null;
        }
    }

    // ---- contexts ---------------------------------------------------------------------------------------------

    @Override
    public Checkpoints checkpoints() {
        return checkpoints;
    }

    @Override
    public Journal journal() {
        return journal;
    }

    @Override
    public ReplicationHub hub() {
        return hub;
    }

    @Override
    public ReplicaAuthorizer authorizer() {
        return authorizer;
    }

    @Override
    public NodeIdentity identity() {
        return identity;
    }

    /**
     * The transport a replica connects through now: the first preferred one. Not synchronized on this component:
     * the link calls it holding its own monitor, while a transport binding holds this one and calls into the link
     * ({@link ReplicaLink#transportChanged}); the two orders deadlocked a replica whose first try found no transport
     * and whose retry ran just as the TCP transport bound (it never streamed again). What it reads is safe to read
     * without the lock: the settings and the chosen transport are volatile, the bound transports a copy-on-write
     * list.
     */
    @Override
    public FrameTransport transport() {
        List<FrameTransport> chosen = preferred();
        upstreamTransport = chosen.isEmpty() ? null : chosen.get(0);
        return upstreamTransport;
    }

    @Override
    public String transportStatus() {
        List<String> parts = new ArrayList<>();
        ReplicationSettings s = settings;
        if (upstream != null) {
            FrameTransport t = upstreamTransport;
            parts.add(t == null ? "none available" : "connects through " + t.name());
        } else {
            List<String> names = new ArrayList<>();
            synchronized (listeners) {
                listeners.keySet().forEach(t -> names.add(t.name()));
            }
            parts.add(names.isEmpty() ? "not listening" : "listening on " + String.join(", ", names));
        }
        for (String name : s.transports()) {
            FrameTransport found = named(name);
            if (found == null) {
                parts.add(name + " not installed");
            } else if (found.unavailableReason() != null) {
                parts.add(name + " unavailable: " + found.unavailableReason());
            }
        }
        return String.join("; ", parts);
    }

    @Override
    public String ackRoundTrip() {
        StringBuilder sb = new StringBuilder();
        for (PrimarySession session : sessions) {
            if (session.id().isEmpty()) {
                continue;
            }
            org.HdrHistogram.Histogram h = session.ackRoundTrips();
            if (h.getTotalCount() == 0) {
                continue;
            }
            sb.append(sb.length() == 0 ? "" : "\n").append(String.format(Locale.ROOT,
                    "%s: batches=%d p50=%.1f µs p99=%.1f µs p99.9=%.1f µs max=%.1f µs", session.id(),
                    h.getTotalCount(), h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                    h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3));
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    @Override
    public String transportCounters() {
        StringBuilder sb = new StringBuilder();
        for (FrameTransport t : transports) {
            Map<String, Long> c = t.counters();
            if (!c.isEmpty()) {
                sb.append(sb.length() == 0 ? "" : "\n").append(t.name()).append(':');
                String sep = " ";
                for (Map.Entry<String, Long> e : c.entrySet()) {
                    sb.append(sep).append(e.getKey()).append('=').append(e.getValue());
                    sep = ", ";
                }
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    @Override
    public ReplicationSettings settings() {
        return settings;
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

    /** @return {@code bind:port} of the listeners (one port for all), or null when none listens */
    private String listening(ReplicationSettings s) {
        synchronized (listeners) {
            for (FrameListener l : listeners.values()) {
                return s.bind() + ":" + l.port();
            }
        }
        return null;
    }

    @Override
    public void ended(PrimarySession session) {
        sessions.remove(session);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        return scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    // ---- status and control -----------------------------------------------------------------------------------

    @Override
    public void snapshotSent() {
        snapshotsSent.incrementAndGet();
    }

    @Override
    public void collect(MetricsSink sink) {
        sink.counter("tandem_full_syncs_total", "Full syncs served: psync full syncs, journal-protocol snapshots",
                snapshotsSent.get(), "protocol", "journal");
    }

    @Override
    public ReplicationStatus replicationStatus() {
        ReplicationSettings s = settings;
        ReplicaLink link = upstream;
        if (link != null) {
            return new ReplicationStatus("journal", "replica", link.primaryPolicy(), epoch, null, link.status(),
                    List.of());
        }
        List<ReplicationStatus.Replica> replicas = new ArrayList<>();
        long last = journal.lastSequence();
        List<String> connected = new ArrayList<>();
        for (PrimarySession session : sessions) {
            if (session.state() != PrimarySession.State.CLOSED && !session.id().isEmpty()) {
                replicas.add(session.status(last));
                connected.add(session.id());
            }
        }
        for (String id : registry.ids()) {
            if (!connected.contains(id)) {
                replicas.add(new ReplicationStatus.Replica(id, "", "disconnected", 0, 0, 0, 0, -1));
            }
        }
        return new ReplicationStatus("journal", "primary", hub.ackPolicy(), epoch, listening(s), null, replicas,
                fenceError);
    }

    @Override
    public String protocol() {
        return "journal";
    }

    @Override
    public void ackPolicy(String policy) {
        String p = policy.trim().toLowerCase(Locale.ROOT);
        if (!p.equals("auto")) {
            AckPolicy.parse(p);
        }
        // at once, not only when ConfigurationAdmin calls back (which then finds nothing changed)
        settings = settings.withAckPolicy(p);
        persist("ack.policy", p);
        if (settings.primary() == null) {
            applyPolicy();
        }
    }

    /**
     * Keeps a property in ConfigurationAdmin and in {@code etc/tandem.replication.cfg}, when there is one: that file
     * is the node's configuration, and FileInstall would otherwise bring its older value back. The caller has set
     * {@link #settings} already, so the callback that follows finds nothing to change.
     */
    private void persist(String key, String value) {
        writeEtc(key, value);
        try {
            Configuration c = configAdmin.getConfiguration(ReplicationSettings.PID, "?");
            Dictionary<String, Object> props = c.getProperties();
            if (props == null) {
                props = new Hashtable<>();
            }
            props.put(key, value);
            c.update(props);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store " + key + "=" + value + ": " + e.getMessage(), e);
        }
    }

    private void writeEtc(String key, String value) {
        String home = context.getProperty("tandem.home");
        if (home == null) {
            return;
        }
        Path cfg = Path.of(home, "etc", ReplicationSettings.PID + ".cfg");
        try {
            tandem.protocol.files.CfgFile.put(cfg, key, value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + key + " to " + cfg + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean forget(String id) {
        boolean removed = registry.forget(id);
        if (removed && settings.primary() == null) {
            applyPolicy();
        }
        return removed;
    }
}
