package tandem.failover;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.ratis.server.DivisionInfo;
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
import org.osgi.service.metatype.annotations.Designate;

import tandem.api.failover.FailoverGroup;
import tandem.api.failover.FailoverStatus;
import tandem.api.home.NodeHome;
import tandem.api.tls.TlsMaterial;
import tandem.api.journal.Journal;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.server.PubSub;
import tandem.api.server.WriteAdmission;
import tandem.failover.GroupCodec.Answer;
import tandem.failover.GroupCodec.Heard;
import tandem.failover.GroupCodec.Report;
import tandem.protocol.config.ConfigChange;

/**
 * This node's member of the failover group. It puts the parts together: the Raft peer ({@link GroupPeer}) and its
 * state machine ({@link GroupMachine}); a report to the leader every {@code report.interval.ms}, whose answer renews
 * the primary's {@link Lease}; the leader's duties ({@link Leadership}); switchovers ({@link Switchovers}); the node's
 * role kept to what the group says ({@link Actuator}); Sentinel's {@code +switch-master} at a switch. As a
 * write-admission provider it refuses writes on a primary whose lease lapsed, during a switchover, and on every node
 * the group does not name the primary; registered as required, so that while it is away (its bundle updated) writes
 * wait for it rather than pass without a lease. The node's services are dynamic references ({@link ServicesNode}): a swap of
 * the journal, the node core or replication shows to the group as a short silence, never a restart of the Raft peer.
 */
@Component(service = {FailoverGroup.class, WriteAdmission.class, MetricsSource.class}, immediate = true,
        configurationPid = FailoverSettings.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        property = {"service.ranking:Integer=200", "tandem.admission.required=the failover group (tandem.failover)"})
@Designate(ocd = FailoverConfig.class)
public final class FailoverComponent implements FailoverGroup, WriteAdmission, MetricsSource {

    private static final Logger LOG = System.getLogger("tandem.failover");
    /** A promotion decided longer ago than this is history (a replay after a restart): nothing is announced. */
    private static final long ANNOUNCE_WITHIN_MS = 30_000;

    private final Path home;
    /** The node's TLS material, for {@code tls=true}; null while tandem.tls is not active. */
    private volatile TlsMaterial tls;
    /** Whether the Raft peer waits for the TLS material to start. */
    private boolean waitingForTls;
    private final ServicesNode node;
    private final Liveness liveness = new Liveness();
    private final Lease lease = new Lease();
    private final GroupMachine machine;
    private final Actuator actuator;
    private final Leadership leadership;
    private final Switchovers switchovers;
    private final ScheduledExecutorService reporter;
    private final ExecutorService roles;
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();
    /** As configured. */
    private volatile FailoverSettings settings;
    /** As configured, with the members the group's Raft configuration holds now: what every decision uses. */
    private volatile FailoverSettings live;
    private volatile GroupPeer peer;
    private volatile ScheduledFuture<?> ticks;
    private volatile Answer lastAnswer;
    private volatile long announcedEpoch;
    /** When this node applied the current epoch ({@link System#nanoTime()}). */
    private volatile long epochSinceNanos = System.nanoTime();
    private String lastReportProblem;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile PubSub pubsub;

    @Activate
    public FailoverComponent(FailoverConfig config, @Reference NodeHome home,
            @Reference ConfigurationAdmin configAdmin) throws IOException {
        this.home = home.directory();
        this.settings = FailoverSettings.of(config, this.home);
        this.live = settings;
        this.node = new ServicesNode(configAdmin);
        this.machine = new GroupMachine(liveness, () -> TimeUnit.MILLISECONDS.toNanos(settings.downAfterMs()),
                this::applied);
        this.actuator = new Actuator(() -> live, machine::state, () -> {
            Answer a = lastAnswer;
            return a == null ? -1 : a.epoch();
        }, node);
        this.reporter = Executors.newSingleThreadScheduledExecutor(r -> thread(r, "tandem-failover-report"));
        this.roles = Executors.newSingleThreadExecutor(r -> thread(r, "tandem-failover-role"));
        this.leadership = new Leadership(() -> peer, () -> live, machine::state, liveness, () -> epochSinceNanos,
                roles);
        this.switchovers = new Switchovers(() -> live, machine::state, node, this::heard,
                entry -> peer.append(entry), System::nanoTime);
        start();
    }

    private static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Starts the Raft peer; with {@code tls=true} only once the node's TLS material is there (its reference binds
     * after this component is made, and a later one starts the peer then).
     */
    private synchronized void start() throws IOException {
        FailoverSettings s = settings;
        Files.createDirectories(s.storage());
        TlsMaterial t = tls;
        if (s.tls() && (t == null || !t.ready())) {
            waitingForTls = true;
            LOG.log(Level.WARNING, "failover group: tls=true, the Raft peer starts once {0}", t == null
                    ? "the TLS component (tandem.tls) is active" : "TLS material is loaded (" + t.status().lastError()
                            + ")");
            return;
        }
        waitingForTls = false;
        peer = new GroupPeer(s, machine, s.tls() ? t : null);
        ticks = reporter.scheduleWithFixedDelay(this::tick, 0, s.reportIntervalMs(), TimeUnit.MILLISECONDS);
        LOG.log(Level.INFO, "failover group {0}: node {1}{2} of {3}, Raft on {4}:{5}; automatic failover {6}",
                s.group(), s.nodeId(), s.witness() ? " (witness)" : "", s.peers(), s.raftBind(),
                Integer.toString(s.raftPort()), s.automatic() ? "on, down after " + s.downAfterMs() + " ms, lease "
                        + s.leaseMs() + " ms" : "off");
    }

    /** Stops the Raft peer; the leader first learns that this node leaves, and waits {@code update.grace.ms}. */
    private void stop() {
        ScheduledFuture<?> t = ticks;
        if (t != null) {
            t.cancel(false);
        }
        GroupPeer p = peer;
        peer = null;
        lease.drop();
        leadership.stepDown();
        if (p != null) {
            try {
                p.query(GroupCodec.report(report(true)));
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "failover group: the leaving report was not answered: " + e.getMessage());
            }
            p.close();
        }
    }

    @Modified
    void modified(FailoverConfig config) {
        FailoverSettings next = ConfigChange.validated(LOG, () -> FailoverSettings.of(config, home));
        if (next == null) {
            return;
        }
        FailoverSettings previous = settings;
        if (next.sameGroup(previous)) {
            settings = next;
            live = next.withPeers(live.peers());
            if (next.reportIntervalMs() != previous.reportIntervalMs()) {
                ticks.cancel(false);
                ticks = reporter.scheduleWithFixedDelay(this::tick, 0, next.reportIntervalMs(),
                        TimeUnit.MILLISECONDS);
            }
            LOG.log(Level.INFO, "failover group: tunables now automatic={0} down.after.ms={1} lease.ms={2} "
                    + "report.interval.ms={3} lossy={4}", next.automatic(), next.downAfterMs(), next.leaseMs(),
                    next.reportIntervalMs(), next.lossy());
            return;
        }
        LOG.log(Level.WARNING, "failover group: the group, this node's id, address, witness role, storage or election "
                + "timeouts changed; restarting this node's Raft peer");
        stop();
        settings = next;
        live = next;
        try {
            start();
        } catch (IOException e) {
            LOG.log(Level.ERROR, "failover group: the Raft peer did not start: " + e.getMessage(), e);
        }
    }

    /** The TLS material, dynamic so that its arrival after this component never restarts the Raft peer. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindTls")
    synchronized void bindTls(TlsMaterial t) {
        tls = t;
        if (waitingForTls) {
            try {
                start();
            } catch (IOException e) {
                LOG.log(Level.ERROR, "failover group: the Raft peer did not start: " + e.getMessage(), e);
            }
        }
    }

    synchronized void unbindTls(TlsMaterial t) {
        if (tls == t) {
            tls = null; // a running peer keeps its managers, which fail new handshakes until TLS is back
        }
    }

    @Deactivate
    void deactivate() {
        stop();
        reporter.shutdownNow();
        roles.shutdownNow();
    }

    // ---- the report tick ----------------------------------------------------------------------------------------

    private void tick() {
        try {
            refreshMembers();
            report();
            switchovers.advance();
            leadership.tick();
            reconcileSoon();
        } catch (RuntimeException | LinkageError e) {
            // never let one tick end the schedule: the lease and detection live on it
            LOG.log(Level.ERROR, "failover group: report tick failed: " + e, e);
        }
    }

    /** Follows the group's Raft configuration: members added or removed through any node. */
    private void refreshMembers() {
        GroupPeer p = peer;
        FailoverSettings s = settings;
        Map<String, String> members = p == null ? Map.of() : p.members(s.peerIds());
        if (!members.isEmpty() && !members.equals(live.peers())) {
            LOG.log(Level.INFO, "failover group: members now {0}", members);
            live = s.withPeers(members);
        }
    }

    private void report() {
        GroupPeer p = peer;
        if (p == null) {
            return;
        }
        long sent = System.nanoTime();
        try {
            Answer a = GroupCodec.readAnswer(p.query(GroupCodec.report(report(false))));
            if (a.leader()) {
                lastAnswer = a;
                lease.answered(sent, settings.nodeId().equals(a.primary()), settings.leaseMs());
            }
            lastReportProblem = null;
        } catch (IOException | RuntimeException e) {
            String text = String.valueOf(e.getMessage()).replaceAll("cid=\\d+", "cid=…");
            if (!Objects.equals(text, lastReportProblem)) {
                LOG.log(Level.WARNING, "failover group: a report to the leader failed: " + text);
                lastReportProblem = text;
            }
        }
    }

    private Report report(boolean leaving) {
        FailoverSettings s = settings;
        String role = s.witness() ? "witness" : node.role();
        return new Report(s.nodeId(), role == null ? "unknown" : role, node.resp(), node.replication(),
                node.journalEpoch(), node.tip(), node.policy(), leaving);
    }

    /** @return what the leader last heard from each member: its own table when it leads, else its last answer */
    private List<Heard> heard() {
        if (leadership.leading()) {
            return leadership.heard();
        }
        Answer a = lastAnswer;
        return a == null ? List.of() : a.heard();
    }

    /** After an entry is applied (Ratis' apply thread): announce a fresh switch, then take the role it gives. */
    private void applied() {
        GroupState g = machine.state();
        FailoverStatus.Failover f = g.last();
        if (f != null && f.epoch() > announcedEpoch) {
            announcedEpoch = f.epoch();
            epochSinceNanos = System.nanoTime();
            if (!f.from().isEmpty() && Math.abs(System.currentTimeMillis() - f.atMillis()) < ANNOUNCE_WITHIN_MS) {
                announce(g, f);
            }
        }
        reconcileSoon();
    }

    /**
     * Publishes Sentinel's {@code +switch-master <group> <old-ip> <old-port> <new-ip> <new-port>} to this node's
     * subscribers: every live member does, as every sentinel does, so a client listening on any node learns it.
     */
    private void announce(GroupState g, FailoverStatus.Failover f) {
        PubSub p = pubsub;
        GroupState.Member from = g.members().get(f.from());
        GroupState.Member to = g.members().get(f.to());
        if (p == null || from == null || to == null || from.resp().isEmpty() || to.resp().isEmpty()) {
            return;
        }
        String text = settings.group() + " " + ipSpacePort(from.resp()) + " " + ipSpacePort(to.resp());
        long n = p.publish("+switch-master", text.getBytes(StandardCharsets.UTF_8));
        LOG.log(Level.INFO, "failover group: +switch-master {0} sent to {1} subscribers here", text, n);
    }

    private static String ipSpacePort(String address) {
        int colon = address.lastIndexOf(':');
        return address.substring(0, colon) + " " + address.substring(colon + 1);
    }

    private void reconcileSoon() {
        if (reconcileQueued.compareAndSet(false, true)) {
            try {
                roles.execute(() -> {
                    reconcileQueued.set(false);
                    actuator.reconcile();
                });
            } catch (RejectedExecutionException e) {
                reconcileQueued.set(false); // deactivated
            }
        }
    }

    // ---- operator actions ---------------------------------------------------------------------------------------

    @Override
    public void switchover(String to, long timeoutMs, boolean force) {
        switchovers.start(to, timeoutMs, force);
    }

    @Override
    public void abortSwitchover() {
        switchovers.abort();
    }

    @Override
    public List<String> addMember(String id, String address, long timeoutMs) {
        String at;
        try {
            at = FailoverSettings.member(id, address);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(e.getMessage().replaceFirst("^" + FailoverSettings.PID + ": ", ""));
        }
        GroupPeer p = requirePeer();
        Map<String, String> next = new LinkedHashMap<>(p.members(settings.peerIds()));
        if (next.containsKey(id)) {
            throw new IllegalStateException(id + " is a member already (at " + next.get(id) + ")");
        }
        next.put(id, at);
        return changeMembers(p, next, timeoutMs, "added " + id + "@" + at);
    }

    @Override
    public List<String> removeMember(String id, long timeoutMs) {
        GroupPeer p = requirePeer();
        Map<String, String> next = new LinkedHashMap<>(p.members(settings.peerIds()));
        if (!next.containsKey(id)) {
            throw new IllegalStateException(id + " is not a member (members: " + next.keySet() + ")");
        }
        if (id.equals(machine.state().primary())) {
            throw new IllegalStateException(id + " is the primary: switch over first (FAILOVER TO <ip> <port>, or "
                    + "failover:switchover), then remove it");
        }
        if (next.size() == 1) {
            throw new IllegalStateException(id + " is the last member");
        }
        next.remove(id);
        return changeMembers(p, next, timeoutMs, "removed " + id);
    }

    private GroupPeer requirePeer() {
        GroupPeer p = peer;
        if (p == null) {
            throw new IllegalStateException("this node's Raft peer is not running");
        }
        return p;
    }

    private List<String> changeMembers(GroupPeer p, Map<String, String> next, long timeoutMs, String what) {
        try {
            p.setMembers(next, timeoutMs <= 0 ? 30_000 : timeoutMs);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("the group did not commit the change (" + what + "): " + e.getMessage());
        }
        LOG.log(Level.INFO, "failover group: {0}; members now {1}", what, next);
        refreshMembers();
        List<String> out = new ArrayList<>();
        next.forEach((id, address) -> out.add(id + "@" + address));
        return out;
    }

    // ---- write admission ----------------------------------------------------------------------------------------

    /** On the node's logic thread: volatile reads only. */
    @Override
    public String admit(Replicas replicas) {
        FailoverSettings s = settings;
        if (s.witness()) {
            return "READONLY this node is a witness of failover group '" + s.group() + "': it holds no data";
        }
        Switchover w = switchovers.current();
        if (w != null) {
            return "READONLY a switchover to " + w.to() + " is in progress (FAILOVER): write to the new primary";
        }
        if (!s.automatic()) {
            return null;
        }
        String primary = machine.state().primary();
        if (primary == null) {
            return "READONLY failover group '" + s.group() + "' has not named its primary yet";
        }
        if (!primary.equals(s.nodeId())) {
            return "READONLY You can't write against a read only replica.";
        }
        if (!lease.valid(System.nanoTime())) {
            return "READONLY this primary's lease in failover group '" + s.group() + "' lapsed: it does not "
                    + "reach the group's majority";
        }
        return null;
    }

    // ---- status -------------------------------------------------------------------------------------------------

    @Override
    public FailoverStatus status() {
        FailoverSettings s = settings;
        GroupPeer p = peer;
        DivisionInfo info = p == null ? null : p.info();
        GroupState g = machine.state();
        Map<String, Heard> heard = new HashMap<>();
        heard().forEach(h -> heard.put(h.id(), h));
        List<FailoverStatus.Member> members = new ArrayList<>();
        for (String id : live.peerIds()) {
            GroupState.Member m = g.members().get(id);
            Heard h = heard.get(id);
            members.add(new FailoverStatus.Member(id, m == null ? "" : m.resp(), m == null ? "" : m.replication(),
                    m != null && m.witness(), h == null ? "unknown" : h.role(), h == null ? -1 : h.tip(),
                    h == null ? -1 : h.ageMillis()));
        }
        long leaseLeft = s.nodeId().equals(g.primary()) ? lease.leftMillis(System.nanoTime()) : -1;
        String role = info == null ? "stopped" : info.getCurrentRole().name().toLowerCase(Locale.ROOT);
        String leader = info == null || info.getLeaderId() == null ? null : info.getLeaderId().toString();
        Switchover w = switchovers.current();
        return new FailoverStatus(s.group(), s.nodeId(), s.automatic(), s.downAfterMs(), role, leader,
                info == null ? 0 : info.getCurrentTerm(), info == null ? -1 : info.getLastAppliedIndex(),
                g.primary(), g.epoch(), members, leaseLeft,
                leadership.refusal(), w == null ? null : w.state(), g.last());
    }

    @Override
    public void collect(MetricsSink sink) {
        FailoverStatus s = status();
        sink.gauge("tandem_failover_raft_term", "The failover group's Raft term as this node sees it", s.term());
        sink.gauge("tandem_failover_raft_leader", "1 while this node leads the failover group's Raft log",
                "leader".equals(s.raftRole()) ? 1 : 0);
        sink.gauge("tandem_failover_epoch", "How many times the failover group has named a primary", s.epoch());
        sink.gauge("tandem_failover_primary", "1 while the failover group names this node its primary",
                s.nodeId().equals(s.primary()) ? 1 : 0);
        if (s.lease() >= 0) {
            sink.gauge("tandem_failover_lease_seconds", "What is left of this primary's write lease",
                    s.lease() / 1000.0);
        }
        for (FailoverStatus.Member m : s.members()) {
            if (m.ageMillis() >= 0) {
                sink.gauge("tandem_failover_member_heard_seconds", "How long ago the Raft leader heard from a "
                        + "member, as this node last learned it", m.ageMillis() / 1000.0, "member", m.id());
            }
        }
        if (s.last() != null) {
            sink.gauge("tandem_failover_last_silence_seconds", "How long the former primary had been silent "
                    + "when the last failover was decided", s.last().downMillis() / 1000.0);
            sink.gauge("tandem_failover_last_at_seconds", "When the last change of primary was decided (Unix "
                    + "time)", s.last().atMillis() / 1000.0);
        }
    }

    // ---- references: the node's services, as they come and go ---------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindHub(ReplicationHub h) {
        node.hub = h;
    }

    void unbindHub(ReplicationHub h) {
        if (node.hub == h) {
            node.hub = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindJournal(Journal j) {
        node.journal = j;
    }

    void unbindJournal(Journal j) {
        if (node.journal == j) {
            node.journal = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindControl(ReplicationControl c) {
        node.controls.add(c);
    }

    void unbindControl(ReplicationControl c) {
        node.controls.remove(c);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindStatus(ReplicationStatusSource s) {
        node.statuses.add(s);
    }

    void unbindStatus(ReplicationStatusSource s) {
        node.statuses.remove(s);
    }
}
