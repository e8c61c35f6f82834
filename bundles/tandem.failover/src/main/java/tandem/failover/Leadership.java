package tandem.failover;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.ratis.server.DivisionInfo;

import tandem.failover.GroupCodec.Heard;
import tandem.failover.GroupCodec.Report;

/**
 * What this node does while it leads the group's Raft log, each report tick: it notices when it took office (and
 * forgets what an earlier term heard), runs the {@link Detector} and appends what it decides, one batch at a time,
 * and hands leadership away when it is the data primary.
 */
final class Leadership {

    private static final Logger LOG = System.getLogger("tandem.failover");

    private final Supplier<GroupPeer> peer;
    private final Supplier<FailoverSettings> settings;
    private final Supplier<GroupState> group;
    private final Liveness liveness;
    private final LongSupplier epochSince;
    private final Executor background;
    private final AtomicBoolean appending = new AtomicBoolean();
    private final AtomicBoolean handingOff = new AtomicBoolean();
    private volatile boolean leading;
    private volatile long sinceNanos;
    private volatile long lastHandOffNanos;
    private volatile String refusal;

    /**
     * @param epochSince when this node applied the current epoch ({@link System#nanoTime()})
     * @param background where a leadership transfer waits for its answer
     */
    Leadership(Supplier<GroupPeer> peer, Supplier<FailoverSettings> settings, Supplier<GroupState> group,
            Liveness liveness, LongSupplier epochSince, Executor background) {
        this.peer = peer;
        this.settings = settings;
        this.group = group;
        this.liveness = liveness;
        this.epochSince = epochSince;
        this.background = background;
    }

    /** One tick: detection and hand-off while this node leads. */
    void tick() {
        GroupPeer p = peer.get();
        DivisionInfo info = p == null ? null : p.info();
        boolean now = info != null && info.isLeader() && info.isLeaderReady();
        if (now && !leading) {
            sinceNanos = System.nanoTime();
            liveness.clear();
            LOG.log(Level.INFO, "failover group: this node leads the group (term {0})", info.getCurrentTerm());
        }
        leading = now;
        if (!now) {
            refusal = null;
            return;
        }
        handOff(p);
        detect(p);
    }

    boolean leading() {
        return leading;
    }

    /** @return why the leader does not replace a gone primary, or null */
    String refusal() {
        return refusal;
    }

    /** @return what this leader heard from each member, as its answers carry it */
    List<Heard> heard() {
        return liveness.heard(System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(settings.get().downAfterMs()));
    }

    void stepDown() {
        leading = false;
    }

    private void detect(GroupPeer p) {
        if (appending.get()) {
            return; // one batch at a time: the next decision sees what the last one changed
        }
        Detector.Decision d = Detector.decide(group.get(), liveness.all(), System.nanoTime(), sinceNanos,
                epochSince.getAsLong(), settings.get(), System.currentTimeMillis());
        if (d.refusal() != null && !Objects.equals(d.refusal(), refusal)) {
            LOG.log(Level.WARNING, "failover group: no failover: " + d.refusal());
        }
        refusal = d.refusal();
        if (d.entries().isEmpty()) {
            return;
        }
        appending.set(true);
        CompletableFuture<?> all = CompletableFuture.completedFuture(null);
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
    private void handOff(GroupPeer p) {
        FailoverSettings s = settings.get();
        long now = System.nanoTime();
        if (!s.nodeId().equals(group.get().primary()) || handingOff.get()
                || now - lastHandOffNanos < TimeUnit.MILLISECONDS.toNanos(s.downAfterMs())) {
            return;
        }
        String target = null;
        long best = Long.MIN_VALUE;
        for (Liveness.Seen v : liveness.all().values()) {
            Report r = v.report();
            boolean live = now - v.atNanos() < TimeUnit.MILLISECONDS.toNanos(2 * s.reportIntervalMs() + 100);
            long rank = "witness".equals(r.role()) ? Long.MAX_VALUE : "replica".equals(r.role()) ? r.tip() : -1;
            if (live && rank >= 0 && !r.id().equals(s.nodeId()) && s.peers().containsKey(r.id()) && rank > best) {
                best = rank;
                target = r.id();
            }
        }
        if (target == null) {
            return;
        }
        lastHandOffNanos = now;
        handingOff.set(true);
        String to = target;
        background.execute(() -> {
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
}
