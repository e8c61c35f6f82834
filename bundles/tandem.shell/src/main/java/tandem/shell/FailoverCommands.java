package tandem.shell;

import java.time.Instant;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.failover.FailoverGroup;
import tandem.api.failover.FailoverStatus;

/** {@code failover:*}: the failover group. */
@Component(service = FailoverCommands.class, immediate = true, property = {
    "osgi.command.scope=failover",
    "osgi.command.function=status"
})
public final class FailoverCommands {

    static final String NOT_ACTIVE = "failover: not active (no etc/tandem.failover.cfg, or tandem.failover is not "
            + "started: see scr:list)";

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile FailoverGroup group;

    @Descriptor("shows the failover group as this node sees it: the Raft leader and term, the primary and the epoch "
            + "that named it, each member with what the leader last heard from it (role, journal tip, age), the "
            + "primary's lease, why a gone primary is not replaced, and the last change of primary")
    public String status() {
        FailoverGroup g = group;
        if (g == null) {
            return NOT_ACTIVE;
        }
        FailoverStatus s = g.status();
        StringBuilder out = new StringBuilder();
        out.append("group:      ").append(s.group()).append(", this node ").append(s.nodeId()).append('\n');
        out.append("automatic:  ").append(s.automatic() ? "on" : "off").append('\n');
        out.append("raft:       ").append(s.raftRole()).append(", term ").append(s.term()).append(", leader ")
                .append(s.leader() == null ? "unknown" : s.leader()).append('\n');
        out.append("primary:    ").append(s.primary() == null ? "none yet" : s.primary()).append(" (epoch ")
                .append(s.epoch()).append(")\n");
        if (s.lease() >= 0) {
            out.append("lease:      ").append(s.lease() == 0 ? "LAPSED: writes refused" : s.lease() + " ms left")
                    .append('\n');
        }
        if (s.refusal() != null) {
            out.append("no failover: ").append(s.refusal()).append('\n');
        }
        out.append("members:");
        for (FailoverStatus.Member m : s.members()) {
            out.append("\n  ").append(m.id()).append(m.witness() ? " (witness)" : "").append("  ").append(m.role())
                    .append("  resp=").append(m.resp().isEmpty() ? "?" : m.resp())
                    .append("  replication=").append(m.replication().isEmpty() ? "?" : m.replication())
                    .append("  tip=").append(m.tip()).append("  heard=")
                    .append(m.ageMillis() < 0 ? "never" : m.ageMillis() + " ms ago");
        }
        FailoverStatus.Failover last = s.last();
        if (last != null) {
            out.append("\nlast:       epoch ").append(last.epoch()).append(": ")
                    .append(last.from().isEmpty() ? "" : last.from() + " -> ").append(last.to()).append(" at ")
                    .append(Instant.ofEpochMilli(last.atMillis())).append(" (").append(last.reason()).append(')');
        }
        return out.toString();
    }
}
