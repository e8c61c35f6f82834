package tandem.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.HdrHistogram.Histogram;
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
import tandem.api.home.NodeHome;
import tandem.api.journal.Journal;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.PsyncHistory;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.transport.FrameTransport;
import tandem.protocol.config.ConfigChange;
import tandem.protocol.config.ConfigWriteBack;

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
 * <p>The component wires its parts and keeps the configuration and the status: {@link TransportChoice} (which
 * transports the links use), {@link RestartFence} (a primary restarted after a crash), {@link EpochFile},
 * {@link Promotion}, and the {@link ProtocolContext} the sessions and the link share.
 */
@Component(service = {ReplicationStatusSource.class, ReplicationControl.class, MetricsSource.class}, immediate = true,
        configurationPid = ReplicationSettings.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = ReplicationComponent.Config.class)
public final class ReplicationComponent implements ReplicationStatusSource, ReplicationControl, MetricsSource {

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

    private final Path home;
    private final Journal journal;
    private final ReplicationHub hub;
    private final ConfigWriteBack writeBack;
    private final EpochFile epoch = new EpochFile();
    private final RestartFence fence;
    /**
     * Dynamic transports: a transport update moves the links to the new transport without restarting the protocol
     * (fence, epoch, registry and role stay as they are); while none is bound a primary does not listen and a replica
     * retries.
     */
    private final TransportChoice transports;
    private final ProtocolContext links;
    private final Promotion promotion;
    private volatile ReplicationSettings settings;
    private boolean active;
    private volatile ReplicaLink upstream;

    @Activate
    public ReplicationComponent(Config config, @Reference NodeHome home, @Reference Journal journal,
            @Reference ReplicationHub hub, @Reference ConfigurationAdmin configAdmin) {
        this.home = home.directory();
        this.journal = journal;
        this.hub = hub;
        this.settings = ReplicationSettings.of(config, this.home);
        this.writeBack = new ConfigWriteBack(configAdmin, ReplicationSettings.PID, home);
        this.fence = new RestartFence(journal, hub, epoch);
        this.transports = new TransportChoice(() -> settings);
        this.links = new ProtocolContext(journal, hub, () -> settings, epoch, fence, transports);
        this.promotion = new Promotion(journal, hub, epoch, fence, new Role());
    }

    /** After the dynamic references are bound: the transport, the key and the authorizer, when they are active. */
    @Activate
    synchronized void activate() throws IOException {
        active = true;
        links.started();
        startProtocol();
    }

    private void startProtocol() throws IOException {
        ReplicationSettings s = settings;
        Registry registry = links.openRegistry(s.stateDirectory());
        epoch.load(s.stateDirectory());
        if (s.primary() != null) {
            // a replica has no tenure to guard: whatever fence it had as a primary is gone with the role. It
            // follows first and only then drops the fence: the other way round, a fenced primary made a replica
            // took a client write in between (the long quorum checker saw one acknowledged and then discarded)
            RestartFence.removeMarker(s.stateDirectory());
            hub.follow(s.primary());
            fence.clear();
            hub.ackPolicy(AckPolicy.DISK);
            journal.rotateBySize(false);
            ReplicaLink link = new ReplicaLink(links);
            upstream = link;
            link.start();
            LOG.log(Level.INFO, "journal replication: replica of {0}", s.primary());
        } else {
            journal.rotateBySize(true);
            links.applyPolicy();
            // the fence first, then the role: the node core holds client writes until the role is declared, so a
            // primary restarted after a crash never takes one before it knows whether a replica is ahead of it
            fence.guard(s.stateDirectory(), registry.ids());
            if (!"psync".equals(hub.upstreamProtocol())) {
                hub.follow(null); // a psync replica stays one: REPLICAOF NO ONE makes it a primary, not this
            }
            links.startFanout(s.maxFrameBytes());
            transports.listen(links::newSession, hub.ackPolicy().label());
        }
    }

    private void stopProtocol() {
        ReplicationSettings s = settings;
        boolean wasPrimary = upstream == null;
        transports.closeListeners();
        links.shutdownSessions("replication stopped");
        links.stopFanout();
        ReplicaLink link = upstream;
        upstream = null;
        if (link != null) {
            link.close();
        }
        if (wasPrimary) {
            fence.end(s.stateDirectory());
        }
    }

    @Modified
    synchronized void modified(Config config) throws IOException {
        ReplicationSettings next = ConfigChange.validated(LOG, () -> ReplicationSettings.of(config, home));
        if (next == null) {
            return;
        }
        ReplicationSettings previous = settings;
        settings = next;
        if (!Objects.equals(next.primary(), previous.primary()) || !next.bind().equals(previous.bind())
                || next.port() != previous.port() || next.maxFrameBytes() != previous.maxFrameBytes()
                || !next.stateDirectory().equals(previous.stateDirectory())) {
            LOG.log(Level.INFO, "journal replication: role or address changed; restarting the protocol");
            stopProtocol();
            startProtocol();
        } else {
            if (next.primary() == null) {
                links.applyPolicy();
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
        links.close();
    }

    // ---- references ---------------------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindTransport(FrameTransport t) {
        transports.add(t);
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
        ReplicaLink link = upstream;
        if (link != null) {
            if (transports.upstreamMoved()) {
                link.transportChanged();
            }
        } else if (settings.primary() == null) {
            transports.closeUnchosen();
            transports.listen(links::newSession, hub.ackPolicy().label());
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindCheckpoints(Checkpoints c) {
        links.checkpoints.set(c);
    }

    void unbindCheckpoints(Checkpoints c) {
        links.checkpoints.compareAndSet(c, null);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindIdentity(NodeIdentity i) {
        links.identity.set(i);
    }

    void unbindIdentity(NodeIdentity i) {
        links.identity.compareAndSet(i, null);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindAuthorizer(ReplicaAuthorizer a) {
        links.authorizer.set(a);
    }

    void unbindAuthorizer(ReplicaAuthorizer a) {
        links.authorizer.compareAndSet(a, null);
    }

    /**
     * The psync protocol, when active: StreamStart tells replicas its id, a replica tells it the id of the history
     * its journal holds, and a promotion keeps that id valid for the former primary's psync replicas.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindPsyncHistory(PsyncHistory h) {
        links.psync.set(h);
        links.tellPsync(h);
    }

    void unbindPsyncHistory(PsyncHistory h) {
        links.psync.compareAndSet(h, null);
    }

    // ---- control ----------------------------------------------------------------------------------------------

    @Override
    public synchronized String promote(boolean force) throws InterruptedException {
        return promotion.promote(force);
    }

    /** The protocol as a promotion changes it. */
    private final class Role implements Promotion.Protocol {

        @Override
        public ReplicationSettings settings() {
            return settings;
        }

        @Override
        public ReplicaLink upstream() {
            return upstream;
        }

        @Override
        public void stopFollowing() {
            ReplicaLink link = upstream;
            upstream = null;
            if (link != null) {
                link.close(); // nothing more is received
            }
        }

        @Override
        public void restart() throws IOException {
            startProtocol();
        }

        @Override
        public void startAsPrimary() throws IOException {
            settings = settings.withPrimary(null);
            writeBack.put("primary", "");
            startProtocol();
        }

        @Override
        public String listening() {
            return transports.listening();
        }

        @Override
        public PsyncHistory psyncHistory() {
            return links.psync.get();
        }
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
        writeBack.put("primary", next.primary());
        try {
            startProtocol();
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
        return "following " + next.primary() + ": client writes are refused; a diverged journal is archived and "
                + "replaced by a snapshot";
    }

    @Override
    public void ackPolicy(String policy) {
        String p = policy.trim().toLowerCase(Locale.ROOT);
        if (!p.equals("auto")) {
            AckPolicy.parse(p);
        }
        // at once, not only when ConfigurationAdmin calls back (which then finds nothing changed)
        settings = settings.withAckPolicy(p);
        writeBack.put("ack.policy", p);
        if (settings.primary() == null) {
            links.applyPolicy();
        }
    }

    @Override
    public boolean forget(String id) {
        boolean removed = links.registry().forget(id);
        if (removed && settings.primary() == null) {
            links.applyPolicy();
        }
        return removed;
    }

    // ---- status -----------------------------------------------------------------------------------------------

    @Override
    public String protocol() {
        return "journal";
    }

    @Override
    public ReplicationStatus replicationStatus() {
        ReplicaLink link = upstream;
        if (link != null) {
            return new ReplicationStatus("journal", "replica", link.primaryPolicy(), epoch.current(), null,
                    link.status(), List.of());
        }
        List<ReplicationStatus.Replica> replicas = new ArrayList<>();
        long last = journal.lastSequence();
        List<String> connected = new ArrayList<>();
        for (PrimarySession session : links.sessions()) {
            if (session.state() != PrimarySession.State.CLOSED && !session.id().isEmpty()) {
                replicas.add(session.status(last));
                connected.add(session.id());
            }
        }
        for (String id : links.registry().ids()) {
            if (!connected.contains(id)) {
                replicas.add(new ReplicationStatus.Replica(id, "", "disconnected", 0, 0, 0, 0, -1));
            }
        }
        return new ReplicationStatus("journal", "primary", hub.ackPolicy(), epoch.current(), transports.listening(),
                null, replicas, fence.error());
    }

    @Override
    public String transportStatus() {
        return transports.status(upstream != null);
    }

    @Override
    public String transportCounters() {
        return transports.counters();
    }

    @Override
    public String ackRoundTrip() {
        StringBuilder sb = new StringBuilder();
        for (PrimarySession session : links.sessions()) {
            if (session.id().isEmpty()) {
                continue;
            }
            Histogram h = session.ackRoundTrips();
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
    public void collect(MetricsSink sink) {
        sink.counter("tandem_full_syncs_total", "Full syncs served: psync full syncs, journal-protocol snapshots",
                links.snapshotsSent(), "protocol", "journal");
    }
}
