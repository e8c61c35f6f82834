package tandem.fencing;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The configuration of {@code tandem.fencing}: the quorum fence and the split-brain audit share its PID. */
@ObjectClassDefinition(id = QuorumFence.PID, name = "Tandem quorum fence and split-brain audit",
        description = "Refuses writes on a primary that no replica acknowledges any more, and records the writes a "
                + "demoted primary gives up (spec 001).")
public @interface FencingConfig {

    @AttributeDefinition(description = "Whether a primary that has had a streaming replica refuses writes with "
            + "-CLUSTERDOWN while none has acknowledged within freshness.window.ms (FrogDB's "
            + "self-fence-on-replica-loss). Applies live.")
    boolean self_fence_on_replica_loss() default true;

    @AttributeDefinition(description = "How recent, in milliseconds, a replica's acknowledgement must be for the "
            + "primary to keep taking writes (100..600000). Replicas acknowledge at least once a second while "
            + "connected (journal protocol: each heartbeat; psync: ack.interval.ms). Applies live.")
    long freshness_window_ms() default 5000;

    @AttributeDefinition(description = "How many writes the split-brain ring keeps at most: of a longer divergent "
            + "tail, the oldest are left out of the audit file and counted as evicted (1..10000000). Applies live.")
    int split_brain_ring_max_entries() default 10_000;

    @AttributeDefinition(description = "How many payload bytes the split-brain ring keeps at most, oldest evicted "
            + "first (1024..4294967296). Applies live.")
    long split_brain_ring_max_bytes() default 64L << 20;

    @AttributeDefinition(description = "Where split_brain_discarded_<timestamp>.log files are written; empty: data/ "
            + "under the framework property tandem.home (the working directory when unset). Applies live.")
    String split_brain_audit_directory() default "";
}
