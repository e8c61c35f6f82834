package tandem.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
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
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameTransport;

/**
 * The journal protocol (spec 000) of a node: on a primary, the listener for replicas and one {@link PrimarySession}
 * per replica; on a replica ({@code primary} set), the {@link ReplicaLink} to its primary.
 *
 * <p>The component waits for its configuration ({@code etc/tandem.replication.cfg}): a replica must never start as
 * a primary because its configuration was not read yet.
 *
 * <p>The ack policy, heartbeat and ring bound change live through {@link #modified}; a change of role, address or
 * port restarts the protocol (client connections are not the protocol's and stay up). The transport, journal and
 * hub are static references: when one is replaced, this component restarts and its replicas reconnect and resume
 * from their journals.
 */
@Component(service = {ReplicationStatusSource.class, ReplicationControl.class}, immediate = true,
        configurationPid = ReplicationSettings.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = ReplicationComponent.Config.class)
public final class ReplicationComponent implements ReplicationStatusSource, ReplicationControl,
        PrimarySession.PrimaryContext, ReplicaLink.ReplicaContext {

    private static final Logger LOG = System.getLogger("tandem.replication");

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
    private final FrameTransport transport;
    private final Journal journal;
    private final ReplicationHub hub;
    private final NodeIdentity identity;
    private final ReplicaAuthorizer authorizer;
    private final ConfigurationAdmin configAdmin;
    private final ScheduledThreadPoolExecutor scheduler;
    private final List<PrimarySession> sessions = new CopyOnWriteArrayList<>();
    private volatile ReplicationSettings settings;
    private volatile Registry registry;
    private volatile Fanout fanout;
    private volatile FrameListener listener;
    private volatile ReplicaLink upstream;
    private volatile long epoch;
    /** Needed only for snapshots: a checkpoint bundle being updated must not restart replication. */
    private volatile Checkpoints checkpoints;

    @Activate
    public ReplicationComponent(Config config, BundleContext context, @Reference FrameTransport transport,
            @Reference Journal journal, @Reference ReplicationHub hub, @Reference NodeIdentity identity,
            @Reference ReplicaAuthorizer authorizer, @Reference ConfigurationAdmin configAdmin) throws IOException {
        this.context = context;
        this.transport = transport;
        this.journal = journal;
        this.hub = hub;
        this.identity = identity;
        this.authorizer = authorizer;
        this.configAdmin = configAdmin;
        this.settings = ReplicationSettings.of(config, context.getProperty("tandem.home"));
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tandem-repl-timer");
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        startProtocol();
    }

    private void startProtocol() throws IOException {
        ReplicationSettings s = settings;
        registry = new Registry(s.stateDirectory());
        epoch = readEpoch(s.stateDirectory());
        if (s.primary() != null) {
            hub.follow(s.primary());
            hub.ackPolicy(AckPolicy.DISK);
            journal.rotateBySize(false);
            ReplicaLink link = new ReplicaLink(this);
            upstream = link;
            link.start();
            LOG.log(Level.INFO, "journal replication: replica of {0}", s.primary());
        } else {
            hub.follow(null);
            journal.rotateBySize(true);
            applyPolicy();
            Fanout f = new Fanout(s.maxFrameBytes());
            fanout = f;
            journal.tap(f);
            try {
                listener = transport.listen(s.bind(), s.port(), s.maxFrameBytes(), () -> {
                    PrimarySession session = new PrimarySession(this);
                    sessions.add(session);
                    return session;
                });
            } catch (IOException e) {
                // stay active: a configuration change (another port) can still bring the listener up
                LOG.log(Level.ERROR, "journal replication cannot listen on {0}:{1}: {2}; waiting for a "
                        + "configuration change", s.bind(), Integer.toString(s.port()), e.getMessage());
                return;
            }
            LOG.log(Level.INFO, "journal replication: primary, listening for replicas on {0}:{1} ({2}), ack policy "
                    + "{3}", s.bind(), Integer.toString(listener.port()), transport.name(), hub.ackPolicy().label());
        }
    }

    private void stopProtocol() {
        FrameListener l = listener;
        listener = null;
        if (l != null) {
            l.close();
        }
        for (PrimarySession session : sessions) {
            session.shutdown("replication stopped");
        }
        sessions.clear();
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
    }

    @Modified
    void modified(Config config) throws IOException {
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
        } else if (next.primary() == null) {
            applyPolicy();
        }
    }

    @Deactivate
    void deactivate() {
        stopProtocol();
        scheduler.shutdownNow();
    }

    private void applyPolicy() {
        AckPolicy p = settings.effectivePolicy(registry.isEmpty());
        if (p != hub.ackPolicy()) {
            LOG.log(Level.INFO, "ack policy {0}", p.label());
        }
        hub.ackPolicy(p);
    }

    // ---- epoch ------------------------------------------------------------------------------------------------

    private static long readEpoch(Path dir) throws IOException {
        Path f = dir.resolve("epoch");
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
            Files.createDirectories(dir);
            Path tmp = dir.resolve("epoch.tmp");
            Files.writeString(tmp, Long.toString(seen) + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, dir.resolve("epoch"), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record epoch " + seen + " in " + dir, e);
        }
        epoch = seen;
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

    @Override
    public FrameTransport transport() {
        return transport;
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
        FrameListener l = listener;
        return new ReplicationStatus("journal", "primary", hub.ackPolicy(), epoch,
                l == null ? null : s.bind() + ":" + l.port(), null, replicas);
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
        writeEtc(p);
        try {
            Configuration c = configAdmin.getConfiguration(ReplicationSettings.PID, "?");
            Dictionary<String, Object> props = c.getProperties();
            if (props == null) {
                props = new Hashtable<>();
            }
            props.put("ack.policy", p);
            c.update(props);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store ack.policy=" + p + ": " + e.getMessage(), e);
        }
        if (settings.primary() == null) {
            // at once, not only when ConfigurationAdmin calls back
            settings = new ReplicationSettings(settings.bind(), settings.port(), settings.primaryHost(),
                    settings.primaryPort(), p, settings.maxFrameBytes(), settings.heartbeatMs(),
                    settings.handshakeTimeoutMs(), settings.reconnectMaxMs(), settings.ringMaxBytes(),
                    settings.stateDirectory());
            applyPolicy();
        }
    }

    /**
     * Keeps the policy in {@code etc/tandem.replication.cfg} too, when there is one: that file is the node's
     * configuration, and FileInstall would otherwise bring its older value back.
     */
    private void writeEtc(String policy) {
        String home = context.getProperty("tandem.home");
        if (home == null) {
            return;
        }
        Path cfg = Path.of(home, "etc", ReplicationSettings.PID + ".cfg");
        if (!Files.exists(cfg)) {
            return;
        }
        try {
            List<String> lines = new ArrayList<>(Files.readAllLines(cfg, StandardCharsets.ISO_8859_1));
            boolean replaced = false;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).matches("\\s*ack\\.policy\\s*[=:].*")) {
                    lines.set(i, "ack.policy = " + policy);
                    replaced = true;
                }
            }
            if (!replaced) {
                lines.add("ack.policy = " + policy);
            }
            Path tmp = cfg.resolveSibling(cfg.getFileName() + ".tmp");
            Files.write(tmp, lines, StandardCharsets.ISO_8859_1);
            Files.move(tmp, cfg, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write ack.policy to " + cfg + ": " + e.getMessage(), e);
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
