package tandem.failover;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.ratis.server.DivisionInfo;
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
import org.osgi.service.metatype.annotations.Designate;

import tandem.api.failover.FailoverGroup;
import tandem.api.failover.FailoverStatus;
import tandem.api.home.NodeHome;
import tandem.api.journal.Journal;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.server.ClientInfo;
import tandem.api.server.PubSub;
import tandem.api.server.ServerStatus;
import tandem.api.server.WriteAdmission;
import tandem.failover.GroupCodec.Answer;
import tandem.failover.GroupCodec.Report;
import tandem.protocol.config.ConfigChange;

/**
 * This node's member of the failover group: its Raft peer, its reports to the leader (which renew the primary's
 * write lease), the leader's detection and promotion ({@link Detector}), and the node's role kept to what the group
 * says ({@link Actuator}). As a write-admission provider it refuses writes on a primary whose lease lapsed and on
 * every node the group does not name the primary. The node's services are dynamic references: a swap of the journal,
 * the node core or replication shows to the group as a short silence, never a restart of the Raft peer.
 */
@Component(service = {FailoverGroup.class, WriteAdmission.class, MetricsSource.class}, immediate = true,
        configurationPid = FailoverSettings.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        property = "service.ranking:Integer=200")
@Designate(ocd = FailoverConfig.class)
public final class FailoverComponent implements FailoverGroup, WriteAdmission, MetricsSource {

    private static final Logger LOG = System.getLogger("tandem.failover");
    /** A client whose last command is one of these listens; a switch leaves it connected. */
    private static final java.util.Set<String> SUBSCRIBED = java.util.Set.of("subscribe", "psubscribe",
            "ssubscribe", "ping");
    /** A promotion decided longer ago than this is history (a replay after a restart): nothing is announced. */
    private static final long ANNOUNCE_WITHIN_MS = 30_000;

    private final java.nio.file.Path home;
    private final ConfigurationAdmin configAdmin;
    private final Liveness liveness = new Liveness();
    private final LocalNode node = new ServicesNode();
    private final GroupMachine machine;
    private final Actuator actuator;
    private final ScheduledExecutorService reporter;
    private final ExecutorService roles;
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();
    private final AtomicBoolean appending = new AtomicBoolean();
    private final AtomicBoolean handingOff = new AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicReference<Switchover> switching =
            new java.util.concurrent.atomic.AtomicReference<>();
    private volatile long lastHandOffNanos;
    private volatile FailoverSettings settings;
    private volatile GroupPeer peer;
    private volatile ScheduledFuture<?> ticks;
    private volatile Answer lastAnswer;
    private volatile long leaseUntilNanos;
    private volatile boolean leaseHeld;
    private volatile long leaderSinceNanos;
    private volatile boolean leading;
    private volatile String refusal;
    private String lastReportProblem;

    private volatile ReplicationHub hub;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = org.osgi.service.component.annotations.ReferencePolicyOption.GREEDY)
    private volatile PubSub pubsub;
    private volatile long announcedEpoch;
    /** When this node applied the current epoch ({@link System#nanoTime()}). */
    private volatile long epochSinceNanos = System.nanoTime();
    private volatile Journal journal;
    private final List<ReplicationControl> controls = new CopyOnWriteArrayList<>();
    private final List<ReplicationStatusSource> statuses = new CopyOnWriteArrayList<>();

    @Activate
    public FailoverComponent(FailoverConfig config, @Reference NodeHome home,
            @Reference ConfigurationAdmin configAdmin) throws IOException {
        this.home = home.directory();
        this.configAdmin = configAdmin;
        this.settings = FailoverSettings.of(config, this.home);
        this.machine = new GroupMachine(liveness,
                () -> TimeUnit.MILLISECONDS.toNanos(settings.downAfterMs()), this::applied);
        this.actuator = new Actuator(settings.nodeId(), settings.witness(), machine::state, node);
        this.reporter = Executors.newSingleThreadScheduledExecutor(r -> thread(r, "tandem-failover-report"));
        this.roles = Executors.newSingleThreadExecutor(r -> thread(r, "tandem-failover-role"));
        start();
    }

    private static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private void start() throws IOException {
        FailoverSettings s = settings;
        java.nio.file.Files.createDirectories(s.storage());
        peer = new GroupPeer(s, machine);
        ticks = reporter.scheduleWithFixedDelay(this::tick, 0, s.reportIntervalMs(), TimeUnit.MILLISECONDS);
        LOG.log(Level.INFO, "failover group {0}: node {1}{2} of {3}, Raft on {4}:{5}; automatic failover {6}",
                s.group(), s.nodeId(), s.witness() ? " (witness)" : "", s.peers(), s.raftBind(), s.raftPort(),
                s.automatic() ? "on, down after " + s.downAfterMs() + " ms, lease " + s.leaseMs() + " ms" : "off");
    }

    private void stop(boolean leaving) {
        ScheduledFuture<?> t = ticks;
        if (t != null) {
            t.cancel(false);
        }
        GroupPeer p = peer;
        if (p != null && leaving) {
            try {
                // the leader then waits update.grace.ms before it counts this node as gone
                p.query(GroupCodec.report(report(true)));
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "failover group: the leaving report was not answered: " + e.getMessage());
            }
        }
        leaseHeld = false;
        leading = false;
        if (p != null) {
            p.close();
        }
        peer = null;
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
        LOG.log(Level.WARNING, "failover group: membership or address changed; restarting this node's Raft peer");
        stop(true);
        settings = next;
        try {
            start();
        } catch (IOException e) {
            LOG.log(Level.ERROR, "failover group: the Raft peer did not start: " + e.getMessage(), e);
        }
    }

    @Deactivate
    void deactivate() {
        stop(true);
        reporter.shutdownNow();
        roles.shutdownNow();
    }

    // ---- the report loop ----------------------------------------------------------------------------------------

    private void tick() {
        try {
            report();
            advanceSwitchover();
            if (leader()) {
                detect();
            } else {
                refusal = null;
            }
            reconcileSoon();
        } catch (RuntimeException | LinkageError e) {
            // never let one tick end the schedule: the lease and detection live on it
            LOG.log(Level.ERROR, "failover group: report tick failed: " + e, e);
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
            if (!a.leader()) {
                return;
            }
            lastAnswer = a;
            if (settings.nodeId().equals(a.primary())) {
                leaseUntilNanos = sent + TimeUnit.MILLISECONDS.toNanos(settings.leaseMs());
                leaseHeld = true;
            } else {
                leaseHeld = false;
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
        LocalNode n = node;
        String role = s.witness() ? "witness" : n.role();
        return new Report(s.nodeId(), role == null ? "unknown" : role, n.resp(), n.replication(),
                n.journalEpoch(), n.tip(), n.policy(), leaving);
    }

    private boolean leader() {
        GroupPeer p = peer;
        DivisionInfo info = p == null ? null : p.info();
        boolean now = info != null && info.isLeader() && info.isLeaderReady();
        if (now && !leading) {
            leaderSinceNanos = System.nanoTime();
            liveness.clear();
            LOG.log(Level.INFO, "failover group: this node leads the group (term {0})", info.getCurrentTerm());
        }
        leading = now;
        return now;
    }

    private void detect() {
        handOffLeadership();
        if (appending.get()) {
            return; // one batch at a time: the next decision sees what the last one changed
        }
        Detector.Decision d = Detector.decide(machine.state(), liveness.all(), System.nanoTime(), leaderSinceNanos,
                epochSinceNanos, settings, System.currentTimeMillis());
        if (!Objects.equals(d.refusal(), refusal) && d.refusal() != null) {
            LOG.log(Level.WARNING, "failover group: no failover: " + d.refusal());
        }
        refusal = d.refusal();
        if (d.entries().isEmpty()) {
            return;
        }
        GroupPeer p = peer;
        appending.set(true);
        java.util.concurrent.CompletableFuture<?> all = java.util.concurrent.CompletableFuture.completedFuture(null);
        for (byte[] entry : d.entries()) {
            all = all.thenCompose(x -> p.append(entry));
        }
        all.whenComplete((x, e) -> {
            appending.set(false);
            if (e != null) {
                LOG.log(Level.WARNING, "failover group: appending to the group's log failed: " + e.getMessage());
            }
        });
    }

    /**
     * The Raft leader should not be the data primary: when both die together the group first elects a leader, whose
     * empty view of the members then waits the whole detection time, and a failover takes about twice as long. A
     * primary that leads hands leadership to a live member, a witness first, then the replica with the most
     * history; at most once per detection time.
     */
    private void handOffLeadership() {
        FailoverSettings s = settings;
        GroupState g = machine.state();
        long now = System.nanoTime();
        if (!s.nodeId().equals(g.primary()) || now - lastHandOffNanos < TimeUnit.MILLISECONDS.toNanos(s.downAfterMs())
                || handingOff.get()) {
            return;
        }
        String target = null;
        long best = Long.MIN_VALUE;
        for (Liveness.Seen v : liveness.all().values()) {
            Report r = v.report();
            boolean live = now - v.atNanos() < TimeUnit.MILLISECONDS.toNanos(2 * s.reportIntervalMs() + 100);
            if (!live || r.id().equals(s.nodeId()) || !s.peers().containsKey(r.id())) {
                continue;
            }
            long rank = "witness".equals(r.role()) ? Long.MAX_VALUE : "replica".equals(r.role()) ? r.tip() : -2;
            if (rank > best) {
                best = rank;
                target = r.id();
            }
        }
        if (target == null || best == -2) {
            return;
        }
        lastHandOffNanos = now;
        handingOff.set(true);
        GroupPeer p = peer;
        String to = target;
        roles.execute(() -> {
            try {
                boolean ok = p.transferLeadership(to, 2 * s.downAfterMs());
                LOG.log(Level.INFO, "failover group: Raft leadership {0} to {1}, away from the primary",
                        ok ? "handed" : "not handed", to);
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.INFO, "failover group: Raft leadership not handed to " + to + ": " + e.getMessage());
            } finally {
                handingOff.set(false);
            }
        });
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
        String text = settings.group() + " " + from.resp().replace(':', ' ') + " " + to.resp().replace(':', ' ');
        long n = p.publish("+switch-master", text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        LOG.log(Level.INFO, "failover group: +switch-master {0} sent to {1} subscribers here", text, n);
    }

    private void reconcileSoon() {
        if (reconcileQueued.compareAndSet(false, true)) {
            try {
                roles.execute(() -> {
                    reconcileQueued.set(false);
                    actuator.reconcile();
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                reconcileQueued.set(false); // deactivated
            }
        }
    }

    // ---- coordinated switchover (FAILOVER) ----------------------------------------------------------------------

    @Override
    public void switchover(String to, long timeoutMs, boolean force) {
        FailoverSettings s = settings;
        GroupState g = machine.state();
        if (!s.nodeId().equals(g.primary()) || !"primary".equals(node.role())) {
            throw new IllegalStateException("ERR FAILOVER is not valid when server is a replica.");
        }
        if (force && (to == null || timeoutMs <= 0)) {
            throw new IllegalStateException("ERR FAILOVER with force option requires both a timeout and target "
                    + "HOST and IP.");
        }
        if (switching.get() != null) {
            throw new IllegalStateException("ERR FAILOVER already in progress.");
        }
        String target = null;
        long best = Long.MIN_VALUE;
        for (GroupCodec.Heard h : heardNow()) {
            GroupState.Member m = g.members().get(h.id());
            if (m == null || m.witness() || h.id().equals(s.nodeId()) || !"replica".equals(h.role())) {
                continue;
            }
            if (to != null ? m.resp().equals(to) : h.tip() > best) {
                target = h.id();
                best = h.tip();
            }
        }
        if (target == null) {
            throw new IllegalStateException(to == null ? "ERR FAILOVER requires connected replicas."
                    : "ERR FAILOVER target HOST and PORT is not a replica.");
        }
        long timeout = TimeUnit.MILLISECONDS.toNanos(timeoutMs > 0 ? timeoutMs : 60_000);
        if (!switching.compareAndSet(null, new Switchover(target, g.epoch(), System.nanoTime() + timeout, force, -1,
                false))) {
            throw new IllegalStateException("ERR FAILOVER already in progress.");
        }
        LOG.log(Level.WARNING, "failover group: switchover to {0} begins: writes are refused until it is the "
                + "primary", target);
    }

    @Override
    public void abortSwitchover() {
        Switchover w = switching.get();
        if (w == null || w.promoting() || !switching.compareAndSet(w, null)) {
            throw new IllegalStateException("ERR No failover in progress.");
        }
        LOG.log(Level.WARNING, "failover group: switchover to {0} abandoned (FAILOVER ABORT); writes resume", w.to());
    }

    /** @return what the leader last heard from each member: its own table when it leads, else its last answer */
    private List<GroupCodec.Heard> heardNow() {
        if (leading) {
            return liveness.heard(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(settings.downAfterMs()));
        }
        Answer a = lastAnswer;
        return a == null ? List.of() : a.heard();
    }

    /**
     * One step of a switchover, each report tick: note the journal's end once writes stopped, wait for the target to
     * hold it, then append the promotion; done once the group applies a later epoch. A target that does not catch
     * up by the deadline abandons it (writes resume), or with {@code FORCE} is promoted anyway.
     */
    private void advanceSwitchover() {
        Switchover w = switching.get();
        if (w == null) {
            return;
        }
        GroupState g = machine.state();
        if (g.epoch() > w.fromEpoch()) {
            switching.compareAndSet(w, null);
            LOG.log(Level.WARNING, "failover group: switchover done: epoch {0} names {1} the primary", g.epoch(),
                    g.primary());
            return;
        }
        if (w.promoting()) {
            return;
        }
        if (w.mark() < 0) {
            // a tick after refusing began: a write admitted just before is journaled by now
            switching.compareAndSet(w, w.marked(node.tip()));
            return;
        }
        long tip = -1;
        for (GroupCodec.Heard h : heardNow()) {
            if (h.id().equals(w.to()) && "replica".equals(h.role())) {
                tip = h.tip();
            }
        }
        boolean late = System.nanoTime() - w.deadlineNanos() >= 0;
        if (tip < w.mark() && !(late && w.force())) {
            if (late && switching.compareAndSet(w, null)) {
                LOG.log(Level.WARNING, "failover group: switchover to {0} abandoned: it holds sequence {1} of {2} "
                        + "after the timeout; writes resume", w.to(), tip, w.mark());
            }
            return;
        }
        Switchover promoting = w.withPromotion();
        if (!switching.compareAndSet(w, promoting)) {
            return;
        }
        FailoverStatus.Failover f = new FailoverStatus.Failover(settings.nodeId(), w.to(), g.epoch() + 1,
                System.currentTimeMillis(), 0, "switchover (FAILOVER): " + w.to() + " holds sequence " + tip
                        + " of " + w.mark() + (tip < w.mark() ? ", forced" : ""));
        peer.append(GroupCodec.promote(f)).whenComplete((reply, e) -> {
            if (e != null || !reply.isSuccess()) {
                switching.compareAndSet(promoting, null);
                LOG.log(Level.WARNING, "failover group: switchover to {0} failed, writes resume: {1}", w.to(),
                        e != null ? e.getMessage() : reply.getException());
            }
        });
    }

    // ---- write admission ----------------------------------------------------------------------------------------

    /** On the node's logic thread: volatile reads only. */
    @Override
    public String admit(Replicas replicas) {
        FailoverSettings s = settings;
        if (s.witness()) {
            return "READONLY this node is a witness of failover group '" + s.group() + "': it holds no data";
        }
        Switchover w = switching.get();
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
        if (!leaseHeld || System.nanoTime() - leaseUntilNanos > 0) {
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
        Map<String, GroupCodec.Heard> heard = new java.util.HashMap<>();
        Answer a = lastAnswer;
        List<GroupCodec.Heard> list = leading
                ? liveness.heard(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(s.downAfterMs()))
                : a == null ? List.of() : a.heard();
        list.forEach(h -> heard.put(h.id(), h));
        List<FailoverStatus.Member> members = new ArrayList<>();
        for (String id : s.peerIds()) {
            GroupState.Member m = g.members().get(id);
            GroupCodec.Heard h = heard.get(id);
            members.add(new FailoverStatus.Member(id, m == null ? "" : m.resp(), m == null ? "" : m.replication(),
                    m != null && m.witness(), h == null ? "unknown" : h.role(), h == null ? -1 : h.tip(),
                    h == null ? -1 : h.ageMillis()));
        }
        long lease = -1;
        if (s.nodeId().equals(g.primary())) {
            lease = leaseHeld ? Math.max(0, TimeUnit.NANOSECONDS.toMillis(leaseUntilNanos - System.nanoTime())) : 0;
        }
        String role = info == null ? "stopped" : info.getCurrentRole().name().toLowerCase(java.util.Locale.ROOT);
        String leader = info == null || info.getLeaderId() == null ? null : info.getLeaderId().toString();
        Switchover w = switching.get();
        return new FailoverStatus(s.group(), s.nodeId(), s.automatic(), s.downAfterMs(), role, leader,
                info == null ? 0 : info.getCurrentTerm(), g.primary(), g.epoch(), members, lease, refusal,
                w == null ? null : w.state(), g.last());
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

    // ---- references ---------------------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindHub(ReplicationHub h) {
        hub = h;
    }

    void unbindHub(ReplicationHub h) {
        if (hub == h) {
            hub = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindJournal(Journal j) {
        journal = j;
    }

    void unbindJournal(Journal j) {
        if (journal == j) {
            journal = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindControl(ReplicationControl c) {
        controls.add(c);
    }

    void unbindControl(ReplicationControl c) {
        controls.remove(c);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindStatus(ReplicationStatusSource s) {
        statuses.add(s);
    }

    void unbindStatus(ReplicationStatusSource s) {
        statuses.remove(s);
    }

    /** The node through the references bound now; the journal protocol is the one the group drives. */
    private final class ServicesNode implements LocalNode {

        @Override
        public String role() {
            ReplicationHub h = hub;
            if (h == null || journalStatus() == null) {
                return null;
            }
            return h.upstream() == null ? "primary" : "replica";
        }

        @Override
        public String upstream() {
            ReplicationHub h = hub;
            return h == null ? null : h.upstream();
        }

        @Override
        public String resp() {
            ReplicationHub h = hub;
            ServerStatus f = h == null ? null : h.frontend();
            return f == null ? "" : f.bindAddress() + ":" + f.port();
        }

        @Override
        public String replication() {
            ReplicationStatus st = journalStatus();
            if (st != null && st.listening() != null) {
                return st.listening();
            }
            try {
                Configuration[] c = configAdmin.listConfigurations("(service.pid=tandem.replication)");
                if (c == null || c.length == 0) {
                    return "";
                }
                Dictionary<String, Object> d = c[0].getProperties();
                Object bind = d.get("bind");
                Object port = d.get("port");
                return port == null || "0".equals(port.toString()) ? ""
                        : (bind == null ? "127.0.0.1" : bind) + ":" + port;
            } catch (IOException | org.osgi.framework.InvalidSyntaxException e) {
                return "";
            }
        }

        @Override
        public long journalEpoch() {
            ReplicationStatus st = journalStatus();
            return st == null ? -1 : st.epoch();
        }

        @Override
        public long tip() {
            Journal j = journal;
            return j == null ? -1 : j.lastSequence();
        }

        @Override
        public String policy() {
            ReplicationStatus st = journalStatus();
            return st == null || st.ackPolicy() == null ? "" : st.ackPolicy().label();
        }

        @Override
        public int closeClients() {
            ReplicationHub h = hub;
            ServerStatus f = h == null ? null : h.frontend();
            if (f == null) {
                return 0;
            }
            int closed = 0;
            for (ClientInfo c : f.clients()) {
                String last = c.lastCommand() == null ? "" : c.lastCommand().toLowerCase(java.util.Locale.ROOT);
                if (!SUBSCRIBED.contains(last) && f.kill(c.id())) {
                    closed++;
                }
            }
            return closed;
        }

        @Override
        public String promote() throws Exception {
            return control().promote(true);
        }

        @Override
        public String replicaOf(String address) {
            return control().replicaOf(address);
        }

        private ReplicationControl control() {
            for (ReplicationControl c : controls) {
                if ("journal".equals(c.protocol())) {
                    return c;
                }
            }
            throw new IllegalStateException("journal replication (tandem.replication) is not active");
        }

        private ReplicationStatus journalStatus() {
            for (ReplicationStatusSource src : statuses) {
                ReplicationStatus st = src.replicationStatus();
                if ("journal".equals(st.protocol())) {
                    return st;
                }
            }
            return null;
        }
    }
}
