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
    "osgi.command.function=status",
    "osgi.command.function=switchover",
    "osgi.command.function=abort",
    "osgi.command.function=add",
    "osgi.command.function=remove"
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
                .append(s.leader() == null ? "unknown" : s.leader()).append(", applied ").append(s.raftApplied())
                .append('\n');
        out.append("primary:    ").append(s.primary() == null ? "none yet" : s.primary()).append(" (epoch ")
                .append(s.epoch()).append(")\n");
        if (s.lease() >= 0) {
            out.append("lease:      ").append(s.lease() == 0 ? "LAPSED: writes refused" : s.lease() + " ms left")
                    .append('\n');
        }
        if (s.switchover() != null) {
            out.append("switchover: ").append(s.switchover()).append(" (writes refused until it ends)\n");
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

    @Descriptor("starts a coordinated switchover on the primary (Redis's FAILOVER): writes are refused, the target "
            + "catches up to everything journaled here, then the group names it the primary and this node follows "
            + "it; returns at once, failover:status shows the progress")
    public String switchover(
            @Descriptor("the target's RESP address IP:PORT; empty: the live replica with the most history")
            @org.apache.felix.service.command.Parameter(names = "--to", absentValue = "") String to,
            @Descriptor("milliseconds the target may take to catch up (default 60000)")
            @org.apache.felix.service.command.Parameter(names = "--timeout", absentValue = "0") long timeout,
            @Descriptor("promote the target at the timeout even if it has not caught up (needs --to and --timeout)")
            @org.apache.felix.service.command.Parameter(names = "--force", presentValue = "true",
                    absentValue = "false") boolean force) {
        FailoverGroup g = group;
        if (g == null) {
            return NOT_ACTIVE;
        }
        try {
            g.switchover(to.isEmpty() ? null : to, timeout, force);
            return "switchover started: see failover:status";
        } catch (IllegalStateException e) {
            return "not started: " + e.getMessage();
        }
    }

    @Descriptor("abandons a switchover that has not named the new primary yet; writes resume")
    public String abort() {
        FailoverGroup g = group;
        if (g == null) {
            return NOT_ACTIVE;
        }
        try {
            g.abortSwitchover();
            return "switchover abandoned: writes resume";
        } catch (IllegalStateException e) {
            return "nothing to abandon: " + e.getMessage();
        }
    }

    @Descriptor("adds a voting member to the failover group: start the new node first with tandem.failover "
            + "configured (its peers naming the members and itself, join=true; witness=true for a data-less voter); "
            + "returns once it has caught up with the group's log and the new membership is committed")
    public String add(
            @Descriptor("milliseconds to wait for the change to commit (default 30000)")
            @org.apache.felix.service.command.Parameter(names = "--timeout", absentValue = "0") long timeout,
            @Descriptor("the new member as id@IP:RAFTPORT, as in peers") String member) {
        FailoverGroup g = group;
        if (g == null) {
            return NOT_ACTIVE;
        }
        int at = member.indexOf('@');
        if (at <= 0) {
            return "not added: " + member + " is not id@IP:PORT";
        }
        try {
            return "members: " + String.join(", ", g.addMember(member.substring(0, at), member.substring(at + 1),
                    timeout));
        } catch (IllegalStateException e) {
            return "not added: " + e.getMessage();
        }
    }

    @Descriptor("removes a member from the failover group (not the primary: switch over first); the removed node "
            + "no longer counts towards the majority and should be stopped")
    public String remove(
            @Descriptor("milliseconds to wait for the change to commit (default 30000)")
            @org.apache.felix.service.command.Parameter(names = "--timeout", absentValue = "0") long timeout,
            @Descriptor("the member's node.id") String id) {
        FailoverGroup g = group;
        if (g == null) {
            return NOT_ACTIVE;
        }
        try {
            return "members: " + String.join(", ", g.removeMember(id, timeout));
        } catch (IllegalStateException e) {
            return "not removed: " + e.getMessage();
        }
    }
}
