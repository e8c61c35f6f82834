package tandem.health;

import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.function.Function;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.HealthCheck;
import org.apache.felix.hc.api.Result;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import tandem.api.failover.FailoverStatus;
import tandem.api.journal.ArchiveStatus;
import tandem.api.fencing.QuorumFenceStatus;
import tandem.api.replication.ReplicationStatus;

/**
 * Felix Health Checks, one per subsystem, all tagged {@code tandem}: {@code hc:exec tandem} in the shell runs
 * them; each reads the same contracts {@code /health} reports. CRITICAL where the node refuses work (not ready, a
 * fail-stopped journal or apply, a fence), WARN where it serves but something is off (a replica away or behind, a
 * failing journal archive). One component registers them all, from {@link #CHECKS}, while the probe is there.
 */
@Component(immediate = true)
public final class SubsystemChecks {

    /** One health check: its name, its own tag besides {@code tandem}, and what it finds. */
    private record Check(String name, String tag, Function<NodeProbe, Result> execute) {
    }

    private static final List<Check> CHECKS = List.of(
            new Check("Tandem readiness", "ready", SubsystemChecks::readiness),
            new Check("Tandem journal", "journal", SubsystemChecks::journal),
            new Check("Tandem journal archive", "archive", SubsystemChecks::archive),
            new Check("Tandem store", "store", SubsystemChecks::store),
            new Check("Tandem replication", "replication", SubsystemChecks::replication),
            new Check("Tandem fence", "fence", SubsystemChecks::fence),
            new Check("Tandem failover", "failover", SubsystemChecks::failover));

    private final List<ServiceRegistration<HealthCheck>> registrations = new ArrayList<>();

    @Activate
    public SubsystemChecks(BundleContext context, @Reference NodeProbe probe) {
        for (Check check : CHECKS) {
            Dictionary<String, Object> properties = new Hashtable<>();
            properties.put(HealthCheck.NAME, check.name());
            properties.put(HealthCheck.TAGS, new String[] {"tandem", check.tag()});
            registrations.add(context.registerService(HealthCheck.class, () -> check.execute().apply(probe),
                    properties));
        }
    }

    @Deactivate
    void deactivate() {
        registrations.forEach(ServiceRegistration::unregister);
    }

    /** The node serves its keyspace: journal replayed into the store, role settled. */
    static Result readiness(NodeProbe probe) {
        String notReady = probe.notReady();
        return notReady == null ? new Result(Result.Status.OK, "ready: " + probe.role())
                : new Result(Result.Status.CRITICAL, "not ready: " + notReady);
    }

    /** The journal runs and its durable end keeps up with what was appended. */
    static Result journal(NodeProbe probe) {
        var j = probe.journal();
        if (j == null) {
            return new Result(Result.Status.CRITICAL, "the journal (tandem.journal) is not active");
        }
        if (j.stoppedReason() != null) {
            return new Result(Result.Status.CRITICAL, "journal stopped (writes refused): " + j.stoppedReason());
        }
        FormattingResultLog log = new FormattingResultLog();
        log.info("journal runs: sequences {}..{}, durable {}, {} segments, {} bytes", j.firstSequence(),
                j.lastSequence(), j.durableSequence(), j.segments(), j.bytes());
        return new Result(log);
    }

    /**
     * The journal archive takes every sealed segment: WARN while archiving fails (the node serves, but keeps every
     * segment the archive lacks, so its journal grows, and a restore could not reach past the archive's end).
     */
    static Result archive(NodeProbe probe) {
        ArchiveStatus a = probe.archive();
        if (a == null) {
            return new Result(Result.Status.OK, "journal archiving is off (archive.directory is not set)");
        }
        String lag = a.pendingEntries() + " entries not archived, " + a.pendingSegments() + " sealed segments ("
                + a.pendingBytes() + " bytes) waiting";
        if (a.failing()) {
            return new Result(Result.Status.WARN, "the journal archive " + a.directory() + " fails: " + a.lastError()
                    + " (" + a.lastFailed() + ", " + a.failures() + " failures); " + lag
                    + ", kept in the journal until archived");
        }
        return new Result(Result.Status.OK, "archiving to " + a.directory() + ": up to sequence "
                + a.archivedSequence() + ", " + lag);
    }

    /** The store applies the journal. */
    static Result store(NodeProbe probe) {
        var s = probe.store();
        if (s == null) {
            return new Result(Result.Status.CRITICAL, "the store (tandem.store) is not active");
        }
        String stopped = probe.applyStopped();
        if (stopped != null) {
            return new Result(Result.Status.CRITICAL, "applying stopped (writes refused): " + stopped);
        }
        FormattingResultLog log = new FormattingResultLog();
        log.info("store applies: sequence {}, flushed {}, {} keys, {} bytes", s.appliedSequence(),
                s.flushedSequence(), s.keys(), s.diskBytes());
        return new Result(log);
    }

    /** Every replica streams (on a primary); the link to the primary streams (on a replica). */
    static Result replication(NodeProbe probe) {
        FormattingResultLog log = new FormattingResultLog();
        var protocols = probe.replication();
        if (protocols.isEmpty()) {
            log.info("no replication protocol is installed: a standalone node");
        }
        for (ReplicationStatus r : protocols) {
            log.info("{}: {}{}", r.protocol(), r.role(), r.upstream() != null ? ""
                    : ", " + r.replicas().size() + (r.replicas().size() == 1 ? " replica" : " replicas"));
            if (r.upstream() != null) {
                ReplicationStatus.Upstream u = r.upstream();
                if (u.state().equals("streaming")) {
                    log.info("{}: streaming from {}, acked {}", r.protocol(), u.address(), u.acked());
                } else {
                    log.warn("{}: {} from {}{}{}", r.protocol(), u.state(), u.address(),
                            u.transfer() == null ? "" : ", " + u.transfer(),
                            u.lastError() == null ? "" : " (last error: " + u.lastError() + ")");
                }
            }
            for (ReplicationStatus.Replica rep : r.replicas()) {
                String id = NodeProbe.shortId(rep.id());
                if (rep.state().equals("streaming")) {
                    log.info("{}: replica {} streams, {} entries behind", r.protocol(), id, rep.lagEntries());
                } else {
                    log.warn("{}: replica {} is {}{}", r.protocol(), id, rep.state(),
                            rep.transfer() == null ? "" : ", " + rep.transfer());
                }
            }
        }
        return new Result(log);
    }

    /**
     * The failover group: CRITICAL on a primary whose lease lapsed (it refuses writes) or a node that knows no Raft
     * leader; WARN while the primary is gone and the group does not replace it, or a member is down; OK otherwise,
     * and on a node in no group.
     */
    static Result failover(NodeProbe probe) {
        FailoverStatus f = probe.failover();
        if (f == null) {
            return new Result(Result.Status.OK, "in no failover group (tandem.failover is not configured)");
        }
        String where = "group " + f.group() + ": primary " + (f.primary() == null ? "none yet" : f.primary())
                + " (epoch " + f.epoch() + "), Raft " + f.raftRole() + ", leader "
                + (f.leader() == null ? "unknown" : f.leader()) + ", term " + f.term();
        if (f.lease() == 0) {
            return new Result(Result.Status.CRITICAL, "this primary's lease lapsed, writes are refused: " + where);
        }
        if (f.leader() == null) {
            return new Result(Result.Status.CRITICAL, "no Raft leader is known: " + where);
        }
        if (f.refusal() != null) {
            return new Result(Result.Status.WARN, "no failover: " + f.refusal() + "; " + where);
        }
        List<String> down = f.members().stream().filter(m -> "down".equals(m.role())).map(FailoverStatus.Member::id)
                .toList();
        if (!down.isEmpty()) {
            return new Result(Result.Status.WARN, "down: " + String.join(", ", down) + "; " + where);
        }
        return new Result(Result.Status.OK, where);
    }

    /** Neither a promotion fence nor the quorum fence refuses writes. */
    static Result fence(NodeProbe probe) {
        for (ReplicationStatus r : probe.replication()) {
            if (r.fence() != null) {
                return new Result(Result.Status.CRITICAL, r.protocol() + " fences writes: " + r.fence());
            }
        }
        QuorumFenceStatus.Status q = probe.quorumFence();
        if (q == null) {
            return new Result(Result.Status.OK, "not fenced (the quorum fence is not installed)");
        }
        return q.fenced() ? new Result(Result.Status.CRITICAL, "the quorum fence refuses writes: no replica "
                + "acknowledged within " + q.windowMillis() + " ms (" + q.refusedWrites() + " refused)")
                : new Result(Result.Status.OK, "not fenced (quorum fence " + (q.armedAtMillis() == 0 ? "unarmed"
                        : "armed") + ")");
    }
}
