package tandem.health;

import org.apache.felix.hc.api.FormattingResultLog;
import org.apache.felix.hc.api.HealthCheck;
import org.apache.felix.hc.api.Result;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import tandem.api.fencing.QuorumFenceStatus;
import tandem.api.replication.ReplicationStatus;

/**
 * Felix Health Checks, one per subsystem, all tagged {@code tandem}: {@code hc:exec tandem} in the shell runs
 * them; each reads the same contracts {@code /health} reports. CRITICAL where the node refuses work (not ready, a
 * fail-stopped journal or apply, a fence), WARN where it serves but something is off (a replica away or behind).
 */
final class SubsystemChecks {

    private SubsystemChecks() {
    }

    /** The node serves its keyspace: journal replayed into the store, role settled. */
    @Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Tandem readiness",
        HealthCheck.TAGS + "=tandem", HealthCheck.TAGS + "=ready"})
    public static final class Readiness implements HealthCheck {
        private final NodeProbe probe;

        @Activate
        public Readiness(@Reference NodeProbe probe) {
            this.probe = probe;
        }

        @Override
        public Result execute() {
            String notReady = probe.notReady();
            return notReady == null ? new Result(Result.Status.OK, "ready: " + probe.role())
                    : new Result(Result.Status.CRITICAL, "not ready: " + notReady);
        }
    }

    /** The journal runs and its durable end keeps up with what was appended. */
    @Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Tandem journal",
        HealthCheck.TAGS + "=tandem", HealthCheck.TAGS + "=journal"})
    public static final class Journal implements HealthCheck {
        private final NodeProbe probe;

        @Activate
        public Journal(@Reference NodeProbe probe) {
            this.probe = probe;
        }

        @Override
        public Result execute() {
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
    }

    /** The store applies the journal. */
    @Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Tandem store",
        HealthCheck.TAGS + "=tandem", HealthCheck.TAGS + "=store"})
    public static final class Store implements HealthCheck {
        private final NodeProbe probe;

        @Activate
        public Store(@Reference NodeProbe probe) {
            this.probe = probe;
        }

        @Override
        public Result execute() {
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
    }

    /** Every replica streams (on a primary); the link to the primary streams (on a replica). */
    @Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Tandem replication",
        HealthCheck.TAGS + "=tandem", HealthCheck.TAGS + "=replication"})
    public static final class Replication implements HealthCheck {
        private final NodeProbe probe;

        @Activate
        public Replication(@Reference NodeProbe probe) {
            this.probe = probe;
        }

        @Override
        public Result execute() {
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
    }

    /** Neither a promotion fence nor the quorum fence refuses writes. */
    @Component(service = HealthCheck.class, property = {HealthCheck.NAME + "=Tandem fence",
        HealthCheck.TAGS + "=tandem", HealthCheck.TAGS + "=fence"})
    public static final class Fence implements HealthCheck {
        private final NodeProbe probe;

        @Activate
        public Fence(@Reference NodeProbe probe) {
            this.probe = probe;
        }

        @Override
        public Result execute() {
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
}
