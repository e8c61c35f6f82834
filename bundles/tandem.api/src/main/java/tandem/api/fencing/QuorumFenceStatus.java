package tandem.api.fencing;

import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/** The quorum fence as {@code fence:status} shows it. */
@ProviderType
public interface QuorumFenceStatus {

    /**
     * The fence now.
     *
     * @param selfFence      whether losing every replica fences this node ({@code self.fence.on.replica.loss})
     * @param windowMillis   how recent a replica's acknowledgement must be ({@code freshness.window.ms})
     * @param armedAtMillis  when a replica first streamed to this node (epoch milliseconds), or 0: unarmed
     * @param fencedAtMillis when the fence first refused a write since it was last lifted, or 0: not fenced
     * @param refusedWrites  writes refused with {@code -CLUSTERDOWN} since the component started
     * @param ackAgesMillis  each streaming replica with the milliseconds since its last acknowledgement, as the fence
     *                       last saw them (empty before the first write)
     */
    record Status(boolean selfFence, long windowMillis, long armedAtMillis, long fencedAtMillis, long refusedWrites,
            Map<String, Long> ackAgesMillis) {

        /** @return whether the fence refuses writes now */
        public boolean fenced() {
            return fencedAtMillis != 0;
        }
    }

    /** @return the fence now */
    Status status();
}
