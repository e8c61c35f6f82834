package tandem.shell;

import java.util.ArrayList;
import java.util.List;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Function;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;

/**
 * {@code repl:*}: the node's replication protocols, their replicas or upstream, and the ack policy.
 *
 * <p>Gogo maps a function name to a Java method of the same name, so {@code repl:ack-policy} cannot be a method:
 * {@link AckPolicyCommand} registers that name and calls {@link #ackPolicy()} / {@link #ackPolicy(String)}, which
 * also answer as {@code repl:ackpolicy} (and carry the help text).
 */
@Component(service = ReplicationCommands.class, immediate = true, property = {
    "osgi.command.scope=repl",
    "osgi.command.function=status",
    "osgi.command.function=ackPolicy",
    "osgi.command.function=forget",
    "osgi.command.function=promote",
    "osgi.command.function=replicaof"
})
public final class ReplicationCommands {

    private static final String NOT_ACTIVE = "repl: not active (is tandem.replication started and configured? see "
            + "scr:list)";
    private static final String JOURNAL = "journal";

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    volatile List<ReplicationStatusSource> sources = List.of();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    volatile List<ReplicationControl> controls = List.of();

    /** Whether this node applies what it replicates (a replica that stopped applying still receives). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile tandem.api.server.ServerStatus server;

    /** The quorum fence (tandem.fencing), shown in one line below the protocols. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile tandem.api.fencing.QuorumFenceStatus quorumFence;

    @Descriptor("shows each replication protocol: role, ack policy, epoch, listening address; on a primary one line "
            + "per replica (id, address, state, sent, in-memory, acked, lag, last ack age), on a replica its link "
            + "to the primary; the transports in use, why a preferred one is not, and their counters; on a "
            + "primary each replica's ack round trips since the previous repl:status; then the quorum fence in one line (fence:status has the whole of it)")
    public String status() {
        List<ReplicationStatusSource> ss = sources;
        if (ss.isEmpty()) {
            return NOT_ACTIVE;
        }
        StringBuilder out = new StringBuilder();
        for (ReplicationStatusSource source : ss) {
            ReplicationStatus s = source.replicationStatus();
            if (out.length() > 0) {
                out.append(System.lineSeparator());
            }
            line(out, "protocol:", s.protocol());
            line(out, "role:", s.role());
            line(out, "ack policy:", s.ackPolicy() == null ? "(not announced yet)" : s.ackPolicy().label());
            line(out, "epoch:", Long.toString(s.epoch()));
            line(out, "listening:", s.listening() == null ? "-" : s.listening());
            String transport = source.transportStatus();
            if (transport != null) {
                line(out, "transport:", transport);
            }
            String counters = source.transportCounters();
            if (counters != null) {
                for (String c : counters.split("\n")) {
                    line(out, "transport counters:", c);
                }
            }
            String roundTrips = source.ackRoundTrip();
            if (roundTrips != null) {
                for (String c : roundTrips.split("\n")) {
                    line(out, "ack round trip:", c);
                }
            }
            if (s.fence() != null) {
                line(out, "fence:", s.fence());
            }
            ReplicationStatus.Psync id = s.psync();
            if (id != null) {
                line(out, "replid:", id.replicationId());
                line(out, "replid2:", id.replicationId2() + (id.secondOffset() < 0 ? ""
                        : " (valid up to offset " + id.secondOffset() + ")"));
                line(out, "syncs:", "full " + id.syncFull() + ", partial ok " + id.syncPartialOk() + ", partial err "
                        + id.syncPartialErr());
            }
            ReplicationStatus.Upstream u = s.upstream();
            if (u != null) {
                line(out, "upstream:", u.address());
                line(out, "state:", u.state());
                line(out, "received:", Long.toString(u.received()));
                line(out, "acked:", Long.toString(u.acked()));
                line(out, "last frame:", age(u.lastFrameMillis()));
                line(out, "last error:", u.lastError() == null ? "-" : u.lastError());
                if (u.transfer() != null) {
                    line(out, "transfer:", u.transfer().toString());
                }
            }
            if (u == null || !s.replicas().isEmpty()) {
                replicas(out, s.replicas());
            }
        }
        tandem.api.fencing.QuorumFenceStatus qf = quorumFence;
        if (qf != null) {
            out.append(System.lineSeparator());
            line(out, "quorum:", FenceCommands.summary(qf.status()));
        }
        tandem.api.server.ServerStatus srv = server;
        String stopped = srv == null ? null : srv.applyStopped();
        if (stopped != null) {
            out.append(System.lineSeparator());
            line(out, "apply:", "STOPPED, writes are refused and nothing more is applied: " + stopped);
        }
        return out.toString().stripTrailing();
    }

    private static void line(StringBuilder out, String label, String value) {
        out.append(String.format("%-12s %s", label, value)).append(System.lineSeparator());
    }

    private static String age(long millis) {
        return millis < 0 ? "never" : millis + " ms ago";
    }

    private static void replicas(StringBuilder out, List<ReplicationStatus.Replica> replicas) {
        if (replicas.isEmpty()) {
            line(out, "replicas:", "none");
            return;
        }
        line(out, "replicas:", Integer.toString(replicas.size()));
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"ID", "ADDRESS", "STATE", "SENT", "IN-MEMORY", "ACKED", "LAG", "LAST ACK"});
        for (ReplicationStatus.Replica r : replicas) {
            rows.add(new String[] {r.id(), r.address().isEmpty() ? "-" : r.address(), r.state(),
                Long.toString(r.sent()), Long.toString(r.inMemory()), Long.toString(r.acked()),
                Long.toString(r.lagEntries()), age(r.lastAckMillis())});
        }
        int[] width = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder l = new StringBuilder("  ");
            for (int i = 0; i < row.length; i++) {
                l.append(i < row.length - 1 ? String.format("%-" + width[i] + "s  ", row[i]) : row[i]);
            }
            out.append(l.toString().stripTrailing()).append(System.lineSeparator());
        }
        for (ReplicationStatus.Replica r : replicas) {
            if (r.transfer() != null) {
                line(out, "transfer:", r.id() + ": " + r.transfer());
            }
        }
    }

    @Descriptor("prints the ack policy in force (on a replica: the one its primary announced)")
    public String ackPolicy() {
        ReplicationStatusSource source = journalSource();
        if (source == null) {
            return NOT_ACTIVE;
        }
        return describe(source.replicationStatus());
    }

    @Descriptor("sets the ack policy and keeps it in etc/tandem.replication.cfg")
    public String ackPolicy(
            @Descriptor("disk, disk+ram, two-disks, ram, or auto (disk while no replica is registered, disk+ram "
                    + "after)") String policy) {
        ReplicationControl control = control(JOURNAL);
        if (control == null) {
            return NOT_ACTIVE;
        }
        try {
            control.ackPolicy(policy);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        ReplicationStatusSource source = journalSource();
        String set = "ack policy set to " + policy.trim();
        return source == null ? set : set + "; " + describe(source.replicationStatus());
    }

    private static String describe(ReplicationStatus s) {
        AckPolicy p = s.ackPolicy();
        if (p == null) {
            return "ack policy: not announced by the primary yet";
        }
        return "ack policy: " + p.label() + ("replica".equals(s.role()) ? " (announced by the primary)" : "");
    }

    @Descriptor("removes a replica from the registry of replicas this primary has served (a connected one stays "
            + "connected and registers again)")
    public String forget(@Descriptor("the replica's id, as repl:status shows it (its base64 key)") String id) {
        List<ReplicationControl> cs = controls;
        if (cs.isEmpty()) {
            return NOT_ACTIVE;
        }
        boolean removed = false;
        for (ReplicationControl c : cs) {
            removed |= c.forget(id);
        }
        return removed ? "forgotten: " + id : "not registered, nothing forgotten: " + id;
    }

    @Descriptor("promotes this replica, through the protocol it follows (journal or psync): once what it received "
            + "is durable and applied, it journals an EpochBump for the next epoch and becomes a primary that accepts "
            + "writes and replicas (kept in its etc/ configuration; psync: a new replication id, the old one kept as "
            + "replid2, as REPLICAOF NO ONE); on a primary fenced after a crash, --force lifts the fence")
    public String promote(
            @Parameter(names = {"-f", "--force"}, absentValue = "false", presentValue = "true")
            @Descriptor("promote even while the primary still streams to this node; on a fenced primary, lift the "
                    + "fence (what a replica ahead of it holds is then given up)") boolean force) {
        ReplicationControl control = control(followedProtocol());
        if (control == null) {
            return NOT_ACTIVE;
        }
        try {
            return control.promote(force);
        } catch (IllegalStateException e) {
            return "not promoted: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    @Descriptor("makes this node a replica of the primary whose replication port is IP:PORT (kept in "
            + "etc/tandem.replication.cfg); a diverged journal is archived and replaced by a snapshot. With --psync, "
            + "IP:PORT is the primary's RESP port and the psync protocol follows it, as REPLICAOF does")
    public String replicaof(
            @Parameter(names = {"-p", "--psync"}, absentValue = "false", presentValue = "true")
            @Descriptor("follow through the psync protocol (the primary's RESP port) instead of the journal "
                    + "protocol") boolean psync,
            @Descriptor("the primary's address, IP:PORT") String address) {
        ReplicationControl control = control(psync ? "psync" : JOURNAL);
        if (control == null) {
            return NOT_ACTIVE;
        }
        try {
            return control.replicaOf(address);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return e.getMessage();
        }
    }

    /** @return the protocol through which this node follows a primary; the journal protocol's on a primary */
    private String followedProtocol() {
        for (ReplicationStatusSource s : sources) {
            ReplicationStatus status = s.replicationStatus();
            if (status.upstream() != null) {
                return status.protocol();
            }
        }
        return JOURNAL;
    }

    private ReplicationStatusSource journalSource() {
        List<ReplicationStatusSource> ss = sources;
        for (ReplicationStatusSource s : ss) {
            if (JOURNAL.equals(s.replicationStatus().protocol())) {
                return s;
            }
        }
        return ss.isEmpty() ? null : ss.get(0);
    }

    private ReplicationControl control(String protocol) {
        for (ReplicationControl c : controls) {
            if (protocol.equals(c.protocol())) {
                return c;
            }
        }
        return null;
    }

    /** {@code repl:ack-policy [POLICY]}: the hyphenated name, which no Java method can carry. */
    @Component(service = Function.class, immediate = true, property = {
        "osgi.command.scope=repl",
        "osgi.command.function=ack-policy"
    })
    public static final class AckPolicyCommand implements Function {

        @Reference
        ReplicationCommands commands;

        public AckPolicyCommand() {
        }

        AckPolicyCommand(ReplicationCommands commands) {
            this.commands = commands;
        }

        @Override
        public Object execute(CommandSession session, List<Object> arguments) {
            if (arguments.isEmpty()) {
                return commands.ackPolicy();
            }
            if (arguments.size() == 1) {
                return commands.ackPolicy(String.valueOf(arguments.get(0)));
            }
            return "usage: repl:ack-policy [disk|disk+ram|two-disks|ram|auto]";
        }
    }
}
