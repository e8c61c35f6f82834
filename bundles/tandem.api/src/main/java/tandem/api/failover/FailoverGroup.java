package tandem.api.failover;

import org.osgi.annotation.versioning.ProviderType;

/** This node's part in the failover group, for the shell, {@code INFO}, health and the Sentinel subset. */
@ProviderType
public interface FailoverGroup {

    /** @return the group as this node sees it now; never null */
    FailoverStatus status();

    /**
     * Starts a coordinated switchover on the primary, as Redis 6.2's {@code FAILOVER}: writes are refused with
     * {@code -READONLY} from now on, the target catches up to everything this primary journaled, then one Raft entry
     * names it the primary and this node follows it. Returns at once; {@link FailoverStatus#switchover()} shows the
     * progress.
     *
     * @param to        the target's RESP address {@code ip:port}, or null for the live replica with the most history
     * @param timeoutMs how long the target may take to catch up (0: 60 s); after it, the switchover is abandoned and
     *                  writes resume, or with {@code force} the target is promoted anyway
     * @param force     promote the target even when it has not caught up by the timeout (needs {@code to})
     * @throws IllegalStateException with Redis's error text ({@code ERR FAILOVER …}) when it cannot start
     */
    void switchover(String to, long timeoutMs, boolean force);

    /**
     * Abandons a switchover that has not named the new primary yet; writes resume.
     *
     * @throws IllegalStateException {@code ERR No failover in progress.} when there is none to abandon
     */
    void abortSwitchover();
}
