package tandem.failover;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.ratis.protocol.RaftClientReply;

import tandem.api.failover.FailoverStatus;
import tandem.failover.GroupCodec.Heard;

/**
 * Coordinated switchovers ({@code FAILOVER}) on the primary: writes are refused while one lasts; each report tick
 * notes the journal's end once writes stopped, waits for the target to report holding it, then appends the
 * promotion; it ends once the group applies a later epoch. A target that has not caught up by the deadline abandons
 * it (writes resume), or with {@code FORCE} is promoted anyway.
 */
final class Switchovers {

    private static final Logger LOG = System.getLogger("tandem.failover");
    private static final long DEFAULT_TIMEOUT_MS = 60_000;

    private final AtomicReference<Switchover> current = new AtomicReference<>();
    private final Supplier<FailoverSettings> settings;
    private final Supplier<GroupState> group;
    private final LocalNode node;
    private final Supplier<List<Heard>> heard;
    private final Function<byte[], CompletableFuture<RaftClientReply>> append;
    private final LongSupplier clock;

    /**
     * @param heard  what the leader last heard from each member
     * @param append appends an entry to the group's log
     * @param clock  {@link System#nanoTime()}, or a test's
     */
    Switchovers(Supplier<FailoverSettings> settings, Supplier<GroupState> group, LocalNode node,
            Supplier<List<Heard>> heard, Function<byte[], CompletableFuture<RaftClientReply>> append,
            LongSupplier clock) {
        this.settings = settings;
        this.group = group;
        this.node = node;
        this.heard = heard;
        this.append = append;
        this.clock = clock;
    }

    /** See {@link tandem.api.failover.FailoverGroup#switchover}. */
    void start(String to, long timeoutMs, boolean force) {
        FailoverSettings s = settings.get();
        GroupState g = group.get();
        if (!s.nodeId().equals(g.primary()) || !"primary".equals(node.role())) {
            throw new IllegalStateException("ERR FAILOVER is not valid when server is a replica.");
        }
        if (force && (to == null || timeoutMs <= 0)) {
            throw new IllegalStateException("ERR FAILOVER with force option requires both a timeout and target "
                    + "HOST and IP.");
        }
        if (current.get() != null) {
            throw new IllegalStateException("ERR FAILOVER already in progress.");
        }
        String target = null;
        long best = Long.MIN_VALUE;
        for (Heard h : heard.get()) {
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
        long timeout = TimeUnit.MILLISECONDS.toNanos(timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS);
        if (!current.compareAndSet(null, new Switchover(target, g.epoch(), clock.getAsLong() + timeout, force, -1,
                false))) {
            throw new IllegalStateException("ERR FAILOVER already in progress.");
        }
        LOG.log(Level.WARNING, "failover group: switchover to {0} begins: writes are refused until it is the "
                + "primary", target);
    }

    /** See {@link tandem.api.failover.FailoverGroup#abortSwitchover}. */
    void abort() {
        Switchover w = current.get();
        if (w == null || w.promoting() || !current.compareAndSet(w, null)) {
            throw new IllegalStateException("ERR No failover in progress.");
        }
        LOG.log(Level.WARNING, "failover group: switchover to {0} abandoned (FAILOVER ABORT); writes resume", w.to());
    }

    /** @return the switchover under way, or null */
    Switchover current() {
        return current.get();
    }

    /** One step, on the report thread. */
    void advance() {
        Switchover w = current.get();
        if (w == null) {
            return;
        }
        GroupState g = group.get();
        if (g.epoch() > w.fromEpoch()) {
            current.compareAndSet(w, null);
            LOG.log(Level.WARNING, "failover group: switchover done: epoch {0} names {1} the primary", g.epoch(),
                    g.primary());
            return;
        }
        if (w.promoting()) {
            return;
        }
        if (w.mark() < 0) {
            // a tick after refusing began: a write admitted just before is journaled by now
            current.compareAndSet(w, w.marked(node.tip()));
            return;
        }
        long tip = -1;
        for (Heard h : heard.get()) {
            if (h.id().equals(w.to()) && "replica".equals(h.role())) {
                tip = h.tip();
            }
        }
        boolean late = clock.getAsLong() - w.deadlineNanos() >= 0;
        if (tip < w.mark() && !(late && w.force())) {
            if (late && current.compareAndSet(w, null)) {
                LOG.log(Level.WARNING, "failover group: switchover to {0} abandoned: it holds sequence {1} of {2} "
                        + "after the timeout; writes resume", w.to(), tip, w.mark());
            }
            return;
        }
        Switchover promoting = w.withPromotion();
        if (!current.compareAndSet(w, promoting)) {
            return;
        }
        FailoverStatus.Failover f = new FailoverStatus.Failover(settings.get().nodeId(), w.to(), g.epoch() + 1,
                System.currentTimeMillis(), 0, "switchover (FAILOVER): " + w.to() + " holds sequence " + tip
                        + " of " + w.mark() + (tip < w.mark() ? ", forced" : ""));
        append.apply(GroupCodec.promote(f)).whenComplete((reply, e) -> {
            if (e != null || !reply.isSuccess()) {
                current.compareAndSet(promoting, null);
                LOG.log(Level.WARNING, "failover group: switchover to {0} failed, writes resume: {1}", w.to(),
                        e != null ? e.getMessage() : reply.getException());
            }
        });
    }
}
