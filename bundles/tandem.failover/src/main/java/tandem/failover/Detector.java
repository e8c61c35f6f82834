package tandem.failover;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import tandem.api.failover.FailoverStatus.Failover;
import tandem.failover.GroupCodec.Report;
import tandem.failover.Liveness.Seen;

/**
 * The leader's decision, from the group's state and what it heard: members to record, the group's first primary, or
 * a promotion. A pure function of its inputs, so that every refusal rule is tested without a cluster. The rules
 * (DESIGN.md, failover group; melin's refusals):
 * <ul>
 * <li>the primary counts as gone once the leader has not heard from it for {@code down.after.ms}, counted from the
 * leader's own election at the earliest (a new leader knows nothing older), and from the end of the grace a leaving
 * member announced;</li>
 * <li>only replicas heard since the old primary's lease lapsed are candidates ({@code down.after.ms} exceeds the
 * lease), so their tips include every write that primary acknowledged;</li>
 * <li>the candidate with the highest tip wins (ties: the order of {@code peers}); none is promoted past another live
 * replica;</li>
 * <li>under the {@code disk} ack policy (or one the chosen replica does not know) none is promoted unless
 * {@code lossy} is set.</li>
 * </ul>
 */
final class Detector {

    /**
     * @param entries  what to append to the group's log, in order
     * @param refusal  why the gone primary is not replaced, or null
     */
    record Decision(List<byte[]> entries, String refusal) {
    }

    private Detector() {
    }

    /**
     * @param leaderSince when this leader took office ({@link System#nanoTime()})
     * @param epochSince  when this leader applied the current epoch: a newly named primary has until then +
     *                    {@code down.after.ms} to report that it is one
     */
    static Decision decide(GroupState g, Map<String, Seen> seen, long now, long leaderSince, long epochSince,
            FailoverSettings s, long wallMillis) {
        List<byte[]> entries = new ArrayList<>();
        long down = TimeUnit.MILLISECONDS.toNanos(s.downAfterMs());
        for (Seen v : seen.values()) {
            Report r = v.report();
            if (!s.peers().containsKey(r.id()) || now - v.atNanos() >= down) {
                continue;
            }
            GroupState.Member m = new GroupState.Member(r.id(), r.resp(), r.replication(), "witness".equals(r.role()));
            if (!m.equals(g.members().get(r.id()))) {
                entries.add(GroupCodec.join(m));
            }
        }
        if (g.primary() == null) {
            Report first = best(seen, now, down, s, "primary", now - down, null);
            if (first != null) {
                entries.add(GroupCodec.promote(new Failover("", first.id(), g.epoch() + 1, wallMillis, 0,
                        "the node that started as the primary")));
            }
            return new Decision(entries, null);
        }
        String primary = g.primary();
        Seen p = seen.get(primary);
        // silence counts from the last report in which the primary said it is one: a named primary that never
        // manages to promote itself (or fell back to following) is replaced like a silent one
        long lastHeard = Math.max(leaderSince, epochSince);
        if (p != null) {
            long heard = p.report().leaving()
                    ? p.atNanos() + TimeUnit.MILLISECONDS.toNanos(s.updateGraceMs()) : p.primaryAtNanos();
            if (heard != Long.MIN_VALUE) {
                lastHeard = Math.max(lastHeard, heard);
            }
        }
        long silent = now - lastHeard;
        if (silent < down) {
            return new Decision(entries, null);
        }
        long silentMs = TimeUnit.NANOSECONDS.toMillis(silent);
        String gone = "the primary " + primary + " has been silent (or not a primary) for " + silentMs + " ms";
        if (!s.automatic()) {
            return new Decision(entries, gone + "; automatic failover is off (tandem.failover:automatic=false): "
                    + "promote a replica by hand");
        }
        long since = lastHeard + TimeUnit.MILLISECONDS.toNanos(s.leaseMs());
        Report chosen = best(seen, now, down, s, "replica", since, primary);
        if (chosen == null) {
            return new Decision(entries, gone + "; no replica has reported since its lease lapsed");
        }
        // the policy the lost primary announced, as the chosen replica learned it: a replica that never streamed
        // knows none, and holds nothing either
        String policy = chosen.policy();
        if (!s.lossy() && !List.of("disk+ram", "two-disks", "ram").contains(policy)) {
            return new Decision(entries, gone + "; it acknowledged writes under the "
                    + (policy.isEmpty() ? "(unknown to " + chosen.id() + ")" : policy) + " ack policy, so "
                    + "promoting " + chosen.id() + " may lose writes no replica received; set "
                    + "tandem.failover:lossy=true to accept that loss, or promote by hand");
        }
        entries.add(GroupCodec.promote(new Failover(primary, chosen.id(), g.epoch() + 1, wallMillis, silentMs,
                gone + "; " + chosen.id() + " holds the most history (journal epoch " + chosen.journalEpoch()
                        + ", tip " + chosen.tip() + ")")));
        return new Decision(entries, null);
    }

    /**
     * @return the live member in {@code role} heard at or after {@code since} with the most recent history, other than
     *         {@code exclude}, or null. The journal epoch comes first: a former primary back with a divergent tail
     *         still has the epoch of its lost tenure until it resyncs, and its tip may be past that of a replica of
     *         the newer primary, whose acknowledged writes it does not hold; the tip decides within an epoch
     */
    private static Report best(Map<String, Seen> seen, long now, long down, FailoverSettings s, String role,
            long since, String exclude) {
        List<String> order = s.peerIds();
        return seen.values().stream()
                .filter(v -> now - v.atNanos() < down && v.atNanos() - since >= 0)
                .map(Seen::report)
                .filter(r -> role.equals(r.role()) && s.peers().containsKey(r.id()) && !r.id().equals(exclude))
                .max(Comparator.comparingLong(Report::journalEpoch).thenComparingLong(Report::tip)
                        .thenComparing(r -> -order.indexOf(r.id())))
                .orElse(null);
    }
}
