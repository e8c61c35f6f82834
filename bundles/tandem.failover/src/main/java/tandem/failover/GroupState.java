package tandem.failover;

import java.util.LinkedHashMap;
import java.util.Map;

import tandem.api.failover.FailoverStatus.Failover;

/**
 * What the group's Raft log says, applied: the members as they joined, the primary and the epoch that named it, the
 * last change of primary. Immutable; each applied entry makes a new one.
 *
 * @param epoch   how many times the group named a primary (0: never)
 * @param primary the primary's id, or null before the first
 * @param members by id
 * @param last    the last change of primary, or null
 */
record GroupState(long epoch, String primary, Map<String, Member> members, Failover last) {

    static final GroupState EMPTY = new GroupState(0, null, Map.of(), null);

    GroupState {
        members = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(members));
    }

    /**
     * A member as it joined (the leader records it from the member's reports).
     *
     * @param resp        its RESP address, {@code ip:port}
     * @param replication where its journal replication listens when it leads, {@code ip:port}, or empty
     */
    record Member(String id, String resp, String replication, boolean witness) {
    }

    GroupState join(Member m) {
        Map<String, Member> next = new LinkedHashMap<>(members);
        next.put(m.id(), m);
        return new GroupState(epoch, primary, next, last);
    }

    /** @return the state after a promotion, or this one when {@code f} is not for the next epoch (a stale entry) */
    GroupState promote(Failover f) {
        if (f.epoch() != epoch + 1) {
            return this;
        }
        return new GroupState(f.epoch(), f.to(), members, f);
    }
}
