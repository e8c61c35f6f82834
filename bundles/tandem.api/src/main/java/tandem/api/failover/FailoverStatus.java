package tandem.api.failover;

import java.util.List;

/**
 * The failover group as one node sees it.
 *
 * @param group      the group's name
 * @param nodeId     this node's id in the group
 * @param automatic  whether the group promotes a replica by itself when the primary is gone
 * @param downAfterMs how long the primary must be silent before the group replaces it
 * @param raftRole   this node's Raft role: {@code leader}, {@code follower}, {@code candidate}, {@code listener} or
 *                   {@code stopped}
 * @param leader     the id of the Raft leader, or null while none is known
 * @param term       the Raft term
 * @param raftApplied the index of the last entry of the group's Raft log this node applied, -1 when stopped:
 *                   equal on every member once each has caught up with the leader
 * @param primary    the id of the group's primary, or null before the group has one
 * @param epoch      the group's epoch: how many times it named a primary
 * @param members    every member, with what the leader last heard from it
 * @param lease      on the primary, milliseconds its write lease has left (0 when lapsed); -1 on other nodes
 * @param refusal    why the group does not fail over now although the primary is gone, or null
 * @param switchover on the primary, a coordinated switchover under way: {@code waiting-for-sync} or
 *                   {@code failover-in-progress} (Redis's {@code master_failover_state}), or null
 * @param last       the last change of primary, or null
 */
public record FailoverStatus(String group, String nodeId, boolean automatic, long downAfterMs, String raftRole,
        String leader, long term, long raftApplied, String primary, long epoch, List<Member> members, long lease,
        String refusal, String switchover, Failover last) {

    public FailoverStatus {
        members = List.copyOf(members);
    }

    /**
     * A member of the group.
     *
     * @param id          its id
     * @param resp        its RESP address {@code ip:port}, empty when not known yet
     * @param replication where its replication listens when it is the primary, {@code ip:port}, empty when unknown
     * @param witness     a voter that holds no data and is never promoted
     * @param role        what it last reported: {@code primary}, {@code replica}, {@code witness}, or {@code down}
     *                    when the leader has not heard from it within the detection time
     * @param tip         the last journal sequence it holds, -1 when not known
     * @param ageMillis   milliseconds since the leader last heard from it, -1 when never
     */
    public record Member(String id, String resp, String replication, boolean witness, String role, long tip,
            long ageMillis) {
    }

    /**
     * A change of primary.
     *
     * @param from      the former primary's id, empty for the group's first primary
     * @param to        the new primary's id
     * @param epoch     the group epoch it began
     * @param atMillis  when it was decided, in milliseconds since the epoch (the leader's clock)
     * @param downMillis how long the former primary had been silent when it was decided (0 for a switchover)
     * @param reason    why
     */
    public record Failover(String from, String to, long epoch, long atMillis, long downMillis, String reason) {
    }
}
