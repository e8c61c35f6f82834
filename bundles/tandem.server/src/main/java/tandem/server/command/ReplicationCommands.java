package tandem.server.command;

import static tandem.server.command.CommandTable.ascii;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import tandem.api.replication.PsyncRequest;
import tandem.api.replication.PsyncService;
import tandem.api.replication.PsyncSession;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationStatus;
import tandem.protocol.command.String2ll;
import tandem.protocol.net.IpLiteral;
import tandem.server.resp.RespWriter;

/**
 * Redis' replication commands on the RESP port: the psync handshake ({@code REPLCONF}, {@code PSYNC}, after which
 * the connection belongs to {@code tandem.psync}), {@code REPLICAOF}/{@code SLAVEOF} and {@code ROLE}.
 */
final class ReplicationCommands {

    static final String NOT_PRIMARY = "ERR PSYNC not supported - server is not running as primary";

    private ReplicationCommands() {
    }

    static CommandTable.Builder register(CommandTable.Builder b) {
        List<String> admin = List.of("admin", "noscript", "stale");
        return b
                .add("replconf", -1, List.of("admin", "noscript", "loading", "stale", "allow_busy"),
                        List.of("admin", "slow", "dangerous"), "server", "3.0.0",
                        "An internal command for configuring the replication stream.", ReplicationCommands::replconf)
                .add("psync", -3, List.of("admin", "noscript", "no_async_loading", "no_multi"),
                        List.of("admin", "slow", "dangerous"), "server", "2.8.0",
                        "An internal command used in replication.", ReplicationCommands::psync)
                .add("replicaof", 3, admin, List.of("admin", "slow", "dangerous"), "server", "5.0.0",
                        "Configures a server as replica of another, or promotes it to a master.",
                        ReplicationCommands::replicaOf)
                .add("slaveof", 3, admin, List.of("admin", "slow", "dangerous"), "server", "1.0.0",
                        "Sets a Redis server as a replica of another, or promotes it to being a master.",
                        ReplicationCommands::replicaOf)
                .add("failover", -1, admin, List.of("admin", "slow", "dangerous"), "server", "6.2.0",
                        "Starts a coordinated failover from this server to one of its replicas.",
                        ReplicationCommands::failover)
                .add("role", 1, List.of("noscript", "loading", "stale", "fast"), List.of("admin", "fast",
                        "dangerous"), "server", "2.8.12", "Returns the replication role.", ReplicationCommands::role);
    }

    /**
     * {@code FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]}, Redis 6.2's coordinated switchover, through the
     * failover group: parsed and refused with Redis's errors, then started on the group ({@code +OK} at once, as
     * Redis; {@code INFO replication}'s {@code master_failover_state} shows the progress).
     */
    private static void failover(CommandContext c, byte[][] a) {
        String host = null;
        String port = null;
        long timeout = 0;
        boolean force = false;
        boolean abort = false;
        for (int i = 1; i < a.length; i++) {
            String option = ascii(a[i]).toLowerCase(Locale.ROOT);
            if (option.equals("to") && i + 2 < a.length && host == null) {
                host = ascii(a[++i]);
                port = ascii(a[++i]);
            } else if (option.equals("timeout") && i + 1 < a.length && timeout == 0) {
                long t;
                try {
                    t = tandem.protocol.command.String2ll.parse(a[++i]);
                } catch (NumberFormatException e) {
                    c.reply().error("ERR value is not an integer or out of range");
                    return;
                }
                if (t <= 0) {
                    c.reply().error("ERR FAILOVER timeout must be greater than 0");
                    return;
                }
                timeout = t;
            } else if (option.equals("force") && !force) {
                force = true;
            } else if (option.equals("abort") && !abort) {
                abort = true;
            } else {
                c.reply().error("ERR syntax error");
                return;
            }
        }
        if (abort && (host != null || timeout != 0 || force)) {
            c.reply().error("ERR FAILOVER abort cannot be used with other options.");
            return;
        }
        tandem.api.failover.FailoverGroup group = c.server().failoverGroup();
        if (group == null) {
            c.reply().error("ERR FAILOVER needs a failover group: this node has none (tandem.failover is not "
                    + "configured)");
            return;
        }
        try {
            if (abort) {
                group.abortSwitchover();
            } else {
                group.switchover(host == null ? null : host + ":" + port, timeout, force);
            }
            c.reply().ok();
        } catch (IllegalStateException e) {
            c.reply().error(e.getMessage());
        }
    }

    /**
     * What a replica announces before {@code PSYNC}, kept on the connection; {@code ACK} goes to the psync session
     * and, as in Redis, gets no reply. Options Tandem does not know are accepted and ignored, as FrogDB does
     * (Redis answers them with an error).
     */
    private static void replconf(CommandContext c, byte[][] a) {
        if (a.length % 2 == 0) {
            c.reply().error("ERR syntax error");
            return;
        }
        PsyncSession session = c.psync();
        String sub = a.length >= 2 ? ascii(a[1]).toLowerCase(Locale.ROOT) : "";
        if (sub.equals("ack") || sub.equals("getack")) {
            if (session != null) {
                session.command(a);
            }
            return; // no reply, even on a client (Redis ignores an ACK from a non-replica)
        }
        for (int i = 1; i < a.length; i += 2) {
            String option = ascii(a[i]).toLowerCase(Locale.ROOT);
            String value = ascii(a[i + 1]);
            switch (option) {
                case "listening-port" -> {
                    long port;
                    try {
                        port = String2ll.parse(a[i + 1]);
                    } catch (NumberFormatException e) {
                        c.reply().error("ERR value is not an integer or out of range");
                        return;
                    }
                    if (port < 1 || port > 65535) {
                        c.reply().error("ERR invalid port number");
                        return;
                    }
                    c.session().listeningPort((int) port);
                }
                case "capa" -> c.session().capability(value.toLowerCase(Locale.ROOT));
                case "tandem-version", "frogdb-version" -> c.session().replicaVersion(value);
                default -> {
                    // ip-address, rdb-only, rdb-filter-only and the unknown: accepted, ignored
                }
            }
        }
        c.reply().ok();
    }

    /**
     * Hands the connection to the psync protocol, which answers {@code +FULLRESYNC} or {@code +CONTINUE} and
     * streams from then on, or refuses with {@code -ERR} (the connection then stays a client).
     */
    private static void psync(CommandContext c, byte[][] a) {
        if (a.length != 3) {
            c.reply().error("ERR wrong number of arguments for 'psync' command");
            return;
        }
        if (c.server().upstream() != null) {
            c.reply().error(NOT_PRIMARY); // a replica never serves replicas: no chained replication
            return;
        }
        if (c.psync() != null) {
            c.reply().error("ERR this connection is a replica's already");
            return;
        }
        long offset;
        try {
            offset = String2ll.parse(a[2]);
        } catch (NumberFormatException e) {
            c.reply().error("ERR value is not an integer or out of range");
            return;
        }
        PsyncService service = c.server().psyncService();
        if (service == null) {
            c.reply().error("ERR PSYNC not supported - the psync protocol (bundle tandem.psync) is not active");
            return;
        }
        ClientSession s = c.session();
        PsyncRequest request = new PsyncRequest(ascii(a[1]), offset, s.remoteAddress(), s.listeningPort(),
                s.capabilities(), s.replicaVersion());
        PsyncSession session = service.psync(request, c.psyncLink());
        if (session != null) {
            c.handOff(session);
        }
    }

    /**
     * {@code REPLICAOF host port} makes this node a psync replica of the primary's RESP port, {@code NO ONE}
     * promotes it; both kept in {@code etc/tandem.psync.cfg}. The host must be an IP literal: Tandem never asks a
     * resolver.
     */
    private static void replicaOf(CommandContext c, byte[][] a) {
        String host = ascii(a[1]);
        String port = ascii(a[2]);
        ServerContext server = c.server();
        String protocol = server.upstreamProtocol();
        if (protocol != null && !protocol.equals("psync")) {
            c.reply().error("ERR this node follows " + server.upstream() + " through the " + protocol + " protocol; "
                    + "use repl:promote or repl:replicaof in the shell");
            return;
        }
        ReplicationControl control = server.replicationControl("psync");
        if (control == null) {
            c.reply().error("ERR REPLICAOF needs the psync protocol (bundle tandem.psync), which is not active");
            return;
        }
        if (host.equalsIgnoreCase("no") && port.equalsIgnoreCase("one")) {
            if (server.upstream() == null) {
                c.reply().ok(); // a primary already, as Redis answers
                return;
            }
            c.later(() -> {
                try {
                    control.promote(false);
                    return "+OK";
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return "-ERR interrupted while promoting";
                } catch (RuntimeException e) {
                    return "-ERR " + e.getMessage();
                }
            });
            return;
        }
        long p;
        try {
            p = String2ll.parse(a[2]);
        } catch (NumberFormatException e) {
            c.reply().error("ERR Invalid master port");
            return;
        }
        if (p < 1 || p > 65535) {
            c.reply().error("ERR Invalid master port");
            return;
        }
        try {
            IpLiteral.parse(host);
        } catch (IllegalArgumentException e) {
            c.reply().error("ERR REPLICAOF needs an IP address literal, not '" + host + "': host names are not "
                    + "resolved");
            return;
        }
        String address = host.indexOf(':') >= 0 ? "[" + host + "]:" + p : host + ":" + p;
        c.later(() -> {
            try {
                String done = control.replicaOf(address);
                return done.startsWith("already") ? "+OK Already connected to specified master" : "+OK";
            } catch (RuntimeException e) {
                return "-ERR " + e.getMessage();
            }
        });
    }

    /** Redis' {@code ROLE}: the replicas of every protocol on a primary, the link on a replica. */
    private static void role(CommandContext c, byte[][] a) {
        ServerContext server = c.server();
        RespWriter r = c.reply();
        List<ReplicationStatus> statuses = server.replicationStatuses();
        String upstream = server.upstream();
        if (upstream == null) {
            List<String[]> replicas = new ArrayList<>();
            for (ReplicationStatus status : statuses) {
                for (ReplicationStatus.Replica replica : status.replicas()) {
                    if (replica.address().isEmpty()) {
                        continue;
                    }
                    int colon = replica.address().lastIndexOf(':');
                    replicas.add(new String[] {replica.address().substring(0, colon),
                            replica.address().substring(colon + 1),
                            Long.toString(Math.max(0, server.offsetAfter(replica.acked())))});
                }
            }
            tandem.api.journal.JournalStatus journal = server.journalStatus();
            r.array(3).bulk("master").integer(journal == null ? 0 : journal.replicationOffset());
            r.array(replicas.size());
            for (String[] replica : replicas) {
                r.array(3).bulk(replica[0]).bulk(replica[1]).bulk(replica[2]);
            }
            return;
        }
        ReplicationStatus.Upstream link = null;
        for (ReplicationStatus status : statuses) {
            if (status.upstream() != null) {
                link = status.upstream();
            }
        }
        int colon = upstream.lastIndexOf(':');
        String state = link == null ? "connect" : switch (link.state()) {
            case "streaming" -> "connected";
            case "connecting", "authenticating", "handshaking" -> "connecting";
            case "snapshot", "installing", "snapshot-installed", "needs-snapshot", "full-sync", "diverged" -> "sync";
            default -> "connect";
        };
        tandem.api.journal.JournalStatus journal = server.journalStatus();
        r.array(5).bulk("slave").bulk(upstream.substring(0, colon).replace("[", "").replace("]", ""))
                .integer(Long.parseLong(upstream.substring(colon + 1))).bulk(state)
                .integer(journal == null ? 0 : journal.replicationOffset());
    }
}
