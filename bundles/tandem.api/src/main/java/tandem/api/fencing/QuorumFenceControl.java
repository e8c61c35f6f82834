package tandem.api.fencing;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The quorum fence's settings as {@code CONFIG SET self-fence-on-replica-loss} and {@code freshness-window-ms} change
 * them: for the running fence only, until its configuration ({@code etc/tandem.fencing.cfg}) changes or it restarts.
 */
@ProviderType
public interface QuorumFenceControl extends QuorumFenceStatus {

    /**
     * @param selfFence    the new {@code self.fence.on.replica.loss}, or null to keep it
     * @param windowMillis the new {@code freshness.window.ms}, or null to keep it
     * @throws IllegalArgumentException when a value is out of range; its message names the property, and nothing
     *                                  changed
     */
    void override(Boolean selfFence, Long windowMillis);
}
