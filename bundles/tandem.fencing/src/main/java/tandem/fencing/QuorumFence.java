package tandem.fencing;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import tandem.api.fencing.QuorumFenceControl;
import tandem.api.fencing.QuorumFenceStatus;
import tandem.api.server.WriteAdmission;
import tandem.protocol.config.ConfigChange;

/**
 * Spec 001's quorum fence: it arms the first time a replica of either protocol streams to this node and stays armed
 * while the component runs; once armed, a write is refused with {@code -CLUSTERDOWN quorum lost, writes rejected}
 * while no replica has acknowledged within the freshness window, and accepted again as soon as one has. A replica
 * that disconnects still counts until the window after its last acknowledgement has passed: a reconnection (a
 * bundle update, a restart of one replica) does not stop writes. That holds across a restart of the node core too
 * (its bundle updated), whose new view of the replicas has seen no acknowledgement yet while they reconnect: when
 * the view changes, the fence carries the freshest acknowledgement of the one before.
 * Reads are never refused. Arming is not kept across a restart: a primary that crashed is held by the journal
 * protocol's restart fence until its replicas are back, and one restarted cleanly starts unarmed.
 *
 * <p>Registered with {@code tandem.admission.required}: once the node has seen this fence, it does not write
 * without it; while the bundle is updated writes wait for it (up to the node's {@code pause.max.ms}).
 */
@Component(service = {WriteAdmission.class, QuorumFenceStatus.class, QuorumFenceControl.class}, immediate = true,
        configurationPid = QuorumFence.PID, property = {
            "service.ranking:Integer=100",
            "tandem.admission.required=quorum fence (tandem.fencing)"
        })
@Designate(ocd = FencingConfig.class)
public final class QuorumFence implements WriteAdmission, QuorumFenceControl {

    static final String PID = "tandem.fencing";
    static final String CLUSTERDOWN = "CLUSTERDOWN quorum lost, writes rejected";
    private static final Logger LOG = System.getLogger("tandem.fencing");

    private volatile boolean selfFence;
    private volatile long windowNanos;
    private volatile long armedAtMillis;
    private volatile long fencedAtMillis;
    private volatile Replicas lastSeen;
    /** On {@link System#nanoTime()}: the freshest acknowledgement of the views before lastSeen, once carried. */
    private volatile long carriedAckAtNanos;
    private volatile boolean carried;
    private final AtomicLong refused = new AtomicLong();

    @Activate
    public QuorumFence(FencingConfig config) {
        apply(config);
        LOG.log(Level.INFO, "quorum fence: {0}, window {1} ms; it arms when a replica first streams",
                selfFence ? "on" : "off (self.fence.on.replica.loss=false)", windowMillis());
    }

    @Modified
    void modified(FencingConfig config) {
        ConfigChange.apply(LOG, () -> apply(config));
    }

    private void apply(FencingConfig config) {
        override(config.self_fence_on_replica_loss(), config.freshness_window_ms());
    }

    @Override
    public synchronized void override(Boolean selfFenceOnReplicaLoss, Long windowMillis) {
        if (windowMillis != null) {
            long window = windowMillis;
            if (window < 100 || window > 600_000) {
                throw new IllegalArgumentException(PID + ": freshness.window.ms=" + window
                        + " is invalid: must be between 100 and 600000");
            }
            windowNanos = TimeUnit.MILLISECONDS.toNanos(window);
        }
        if (selfFenceOnReplicaLoss != null) {
            selfFence = selfFenceOnReplicaLoss;
        }
    }

    private long windowMillis() {
        return TimeUnit.NANOSECONDS.toMillis(windowNanos);
    }

    /** Called on the node's logic thread before every write: answers from the gate's state, no I/O. */
    @Override
    public String admit(Replicas replicas) {
        Replicas previous = lastSeen;
        if (previous != null && previous != replicas) {
            long since = sinceLastAckNanos(previous); // read now: the gate it views no longer changes
            if (since != Long.MAX_VALUE) {
                carriedAckAtNanos = System.nanoTime() - since;
                carried = true;
            }
        }
        lastSeen = replicas;
        if (armedAtMillis == 0) {
            if (replicas.streaming() == 0) {
                return null;
            }
            armedAtMillis = System.currentTimeMillis();
            LOG.log(Level.INFO, "quorum fence armed: a replica streams to this node");
        }
        if (!selfFence || sinceLastAckNanos(replicas) < windowNanos) {
            if (fencedAtMillis != 0) {
                fencedAtMillis = 0;
                LOG.log(Level.WARNING, "quorum fence lifted: a replica acknowledged within {0} ms; writes are "
                        + "accepted", windowMillis());
            }
            return null;
        }
        if (fencedAtMillis == 0) {
            fencedAtMillis = System.currentTimeMillis();
            LOG.log(Level.WARNING, "quorum fence: no streaming replica acknowledged within {0} ms ({1}); writes are "
                    + "refused with -CLUSTERDOWN until one does", windowMillis(), replicas.ackAgesMillis());
        }
        refused.incrementAndGet();
        return CLUSTERDOWN;
    }

    /** @return nanoseconds since the freshest acknowledgement, in {@code replicas} or carried from earlier views */
    private long sinceLastAckNanos(Replicas replicas) {
        long before = carried ? System.nanoTime() - carriedAckAtNanos : Long.MAX_VALUE;
        return Math.min(replicas.sinceLastAckNanos(), before);
    }

    /**
     * The replicas are read live from the view the node handed the last write (none before the first write); whether
     * writes are fenced is decided again now, so that a replica back since the last refused write shows.
     */
    @Override
    public Status status() {
        Replicas r = lastSeen;
        long fencedAt = fencedAtMillis;
        if (r != null && fencedAt != 0 && (!selfFence || sinceLastAckNanos(r) < windowNanos)) {
            fencedAt = 0; // lifted: the next write finds it so
        }
        return new Status(selfFence, windowMillis(), armedAtMillis, fencedAt, refused.get(),
                r == null ? Map.of() : r.ackAgesMillis());
    }
}
