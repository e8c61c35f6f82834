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

    /**
     * Adds a voting member to the group's Raft configuration (Ratis' {@code setConfiguration}), through the leader:
     * the new node must already run with {@code tandem.failover} configured (its {@code peers} naming the members
     * and itself), and the call returns once it has caught up with the group's log and the new configuration is
     * committed. Whether it is a witness is its own configuration.
     *
     * @param id        the new member's {@code node.id}
     * @param address   its Raft address {@code ip:port}
     * @param timeoutMs how long to wait for the change to commit (0: 30 s)
     * @return the members after the change
     * @throws IllegalStateException with the reason when the change was refused or did not commit in time
     */
    java.util.List<String> addMember(String id, String address, long timeoutMs);

    /**
     * Removes a member from the group's Raft configuration. The primary cannot be removed (switch over first); the
     * removed node keeps running until it is stopped, and no longer counts towards the majority.
     *
     * @param id        the member's {@code node.id}
     * @param timeoutMs how long to wait for the change to commit (0: 30 s)
     * @return the members after the change
     * @throws IllegalStateException with the reason when the change was refused or did not commit in time
     */
    java.util.List<String> removeMember(String id, long timeoutMs);
}
