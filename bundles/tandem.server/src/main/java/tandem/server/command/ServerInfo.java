package tandem.server.command;

import java.util.List;
import java.util.Locale;

import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.JournalStatus;
import tandem.api.replication.ReplicationStatus;
import tandem.api.server.ClientInfo;
import tandem.api.store.StoreStatus;

/** Renders {@code INFO} sections and {@code CLIENT LIST} lines in Redis' text format. */
public final class ServerInfo {

    /** The Redis version whose behaviour Tandem follows; tools read it from {@code INFO} and {@code HELLO}. */
    public static final String REDIS_VERSION = "7.0.0";

    /** Every section, in Redis' order. */
    private static final List<String> SECTIONS = List.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace");
    /** What {@code INFO} alone and {@code INFO default} show: all but the per-command sections, as in Redis. */
    private static final java.util.Set<String> NOT_DEFAULT = java.util.Set.of("commandstats", "latencystats");

    private ServerInfo() {
    }

    /**
     * @param sections lower-case section names as requested; empty and {@code default} select Redis' default
     *                 sections, {@code all} and {@code everything} every section; unknown names select nothing, as
     *                 in Redis
     */
    public static String render(ServerContext server, List<String> sections) {
        boolean all = sections.contains("all") || sections.contains("everything");
        boolean defaults = sections.isEmpty() || sections.contains("default");
        StringBuilder sb = new StringBuilder();
        for (String section : SECTIONS) {
            boolean wanted = all || sections.contains(section) || defaults && !NOT_DEFAULT.contains(section);
            if (!wanted) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append("\r\n");
            }
            CommandMonitor monitor = server.monitor();
            switch (section) {
                case "server" -> server(sb, server);
                case "clients" -> clients(sb, server);
                case "stats" -> stats(sb, server);
                case "replication" -> replication(sb, server);
                case "memory" -> memory(sb, server);
                case "persistence" -> {
                    persistence(sb, server.notReady(), server.journalStatus(), server.storeStatus(),
                            server.applyStopped(), server.saves());
                    archive(sb, server.journalStatus(), server.archiveStatus());
                }
                case "cpu" -> cpu(sb, monitor);
                case "modules" -> sb.append("# Modules\r\n");
                case "commandstats" -> {
                    sb.append("# Commandstats\r\n");
                    if (monitor != null) {
                        monitor.commandstats(sb);
                    }
                }
                case "errorstats" -> {
                    sb.append("# Errorstats\r\n");
                    if (monitor != null) {
                        monitor.errorstats(sb);
                    }
                }
                case "latencystats" -> {
                    sb.append("# Latencystats\r\n");
                    if (monitor != null) {
                        monitor.latencystats(sb);
                    }
                }
                case "cluster" -> sb.append("# Cluster\r\ncluster_enabled:0\r\n");
                case "keyspace" -> keyspace(sb, server.storeStatus());
                default -> throw new IllegalStateException(section);
            }
        }
        return sb.toString();
    }

    /**
     * Redis' CPU fields: the process's user and system time from {@code /proc/self/stat}, and the logic thread's
     * (Tandem's "main thread", which runs every command) from the JVM.
     */
    private static void cpu(StringBuilder sb, CommandMonitor monitor) {
        sb.append("# CPU\r\n");
        long[] ticks = processCpuTicks();
        line(sb, "used_cpu_sys", seconds(ticks[1] * 10_000_000L));
        line(sb, "used_cpu_user", seconds(ticks[0] * 10_000_000L));
        line(sb, "used_cpu_sys_children", "0.000000");
        line(sb, "used_cpu_user_children", "0.000000");
        long[] logic = monitor == null ? new long[2] : monitor.logicThreadCpuNanos();
        line(sb, "used_cpu_sys_main_thread", seconds(Math.max(0, logic[0] - logic[1])));
        line(sb, "used_cpu_user_main_thread", seconds(logic[1]));
    }

    /** {@code %ld.%06ld} of a duration in nanoseconds. */
    private static String seconds(long nanos) {
        long micros = nanos / 1000;
        return String.format(Locale.ROOT, "%d.%06d", micros / 1_000_000, micros % 1_000_000);
    }

    /**
     * @return {user, system} CPU time of this process in clock ticks (Linux's USER_HZ, 100 per second), from
     *         fields 14 and 15 of {@code /proc/self/stat}; zeros where that file is not there
     */
    private static long[] processCpuTicks() {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])}; // fields 14, 15, counted from 3
        } catch (java.io.IOException | RuntimeException e) {
            return new long[2];
        }
    }

    /**
     * Redis' replication fields in Redis' order, then Tandem's own ({@code tandem_*}). A replica's {@code offset} is
     * in psync offset bytes, for either protocol: the FRPL bytes of the commands up to the last sequence it
     * acknowledged; the journal protocol's sequences follow on the same line.
     */
    private static void replication(StringBuilder sb, ServerContext s) {
        sb.append("# Replication\r\n");
        String upstream = s.upstream();
        List<ReplicationStatus> statuses = s.replicationStatuses();
        JournalStatus journal = s.journalStatus();
        long offset = journal == null ? 0 : journal.replicationOffset();
        ReplicationStatus.Psync psync = psync(statuses);
        if (upstream == null) {
            line(sb, "role", "master");
            int i = 0;
            StringBuilder slaves = new StringBuilder();
            for (ReplicationStatus status : statuses) {
                for (ReplicationStatus.Replica r : status.replicas()) {
                    if (r.address().isEmpty()) {
                        continue;
                    }
                    int colon = r.address().lastIndexOf(':');
                    long lag = r.lastAckMillis() < 0 ? -1 : r.lastAckMillis() / 1000;
                    slaves.append("slave").append(i++).append(":ip=").append(r.address(), 0, colon)
                            .append(",port=").append(r.address().substring(colon + 1)).append(",state=")
                            .append(r.state()).append(",offset=").append(Math.max(0, s.offsetAfter(r.acked())))
                            .append(",lag=").append(lag).append(",protocol=").append(status.protocol())
                            .append(",id=").append(r.id()).append(",sent=").append(r.sent()).append(",in_memory=")
                            .append(r.inMemory()).append(",acked=").append(r.acked()).append("\r\n");
                }
            }
            line(sb, "connected_slaves", Integer.toString(i));
            sb.append(slaves);
        } else {
            int colon = upstream.lastIndexOf(':');
            line(sb, "role", "slave");
            line(sb, "master_host", colon < 0 ? upstream : upstream.substring(0, colon));
            line(sb, "master_port", colon < 0 ? "" : upstream.substring(colon + 1));
            ReplicationStatus.Upstream link = null;
            for (ReplicationStatus status : statuses) {
                if (status.upstream() != null) {
                    link = status.upstream();
                }
            }
            boolean up = link != null && "streaming".equals(link.state());
            line(sb, "master_link_status", up ? "up" : "down");
            line(sb, "master_last_io_seconds_ago", link == null || link.lastFrameMillis() < 0 ? "-1"
                    : Long.toString(link.lastFrameMillis() / 1000));
            line(sb, "master_sync_in_progress", link != null && link.transfer() != null ? "1" : "0");
            line(sb, "slave_repl_offset", Long.toString(offset));
            line(sb, "slave_read_only", "1");
            line(sb, "connected_slaves", "0");
        }
        tandem.api.failover.FailoverGroup group = s.failoverGroup();
        tandem.api.failover.FailoverStatus failover = group == null ? null : group.status();
        line(sb, "master_failover_state", failover != null && failover.switchover() != null ? failover.switchover()
                : failover != null && failover.refusal() == null
                && failover.members().stream().anyMatch(m -> m.id().equals(failover.primary())
                        && "down".equals(m.role())) ? "failover-in-progress" : "no-failover");
        line(sb, "master_replid", psync == null ? ZERO_ID : psync.replicationId());
        line(sb, "master_replid2", psync == null ? ZERO_ID : psync.replicationId2());
        line(sb, "master_repl_offset", Long.toString(offset));
        line(sb, "second_repl_offset", Long.toString(psync == null || psync.secondOffset() < 0 ? -1
                : psync.secondOffset() + 1)); // Redis' convention: the first offset the old id does not cover
        // the retained journal is the backlog: a replica whose offset lies in it continues (+CONTINUE)
        long floor = journal == null ? 0 : s.backlogStart();
        line(sb, "repl_backlog_active", journal == null ? "0" : "1");
        line(sb, "repl_backlog_size", Long.toString(journal == null ? 0 : journal.bytes()));
        line(sb, "repl_backlog_first_byte_offset", Long.toString(floor + 1));
        line(sb, "repl_backlog_histlen", Long.toString(Math.max(0, offset - floor)));
        if (upstream != null) {
            for (ReplicationStatus status : statuses) {
                ReplicationStatus.Upstream link = status.upstream();
                if (link == null) {
                    continue;
                }
                line(sb, "tandem_link_protocol", status.protocol());
                line(sb, "tandem_link_state", link.state());
                line(sb, "tandem_received_sequence", Long.toString(link.received()));
                line(sb, "tandem_acked_sequence", Long.toString(link.acked()));
                if (link.lastError() != null) {
                    line(sb, "tandem_link_error", link.lastError().replace("\r", " ").replace("\n", " "));
                }
                if (link.transfer() != null) {
                    line(sb, "tandem_transfer", link.transfer().toString());
                }
            }
        } else {
            for (ReplicationStatus status : statuses) {
                for (ReplicationStatus.Replica r : status.replicas()) {
                    if (r.transfer() != null) {
                        line(sb, "tandem_transfer_" + r.id().replace(':', '_'), r.transfer().toString());
                    }
                }
            }
        }
        tandem.api.replication.AckPolicy policy = s.ackPolicy();
        for (ReplicationStatus status : statuses) {
            if (upstream != null && status.upstream() != null && status.ackPolicy() != null) {
                policy = status.ackPolicy(); // a replica reports the policy its primary announced
            }
        }
        line(sb, "tandem_ack_policy", policy.label());
        tandem.api.fencing.QuorumFenceStatus fence = s.quorumFence();
        if (fence != null) {
            tandem.api.fencing.QuorumFenceStatus.Status f = fence.status();
            line(sb, "tandem_quorum_fence", !f.selfFence() ? "off" : f.fenced() ? "fenced"
                    : f.armedAtMillis() == 0 ? "unarmed" : "armed");
            line(sb, "tandem_quorum_fence_refused", Long.toString(f.refusedWrites()));
            // epoch milliseconds, 0: not armed / not fenced; each replica's last ack age is its slave line's lag
            line(sb, "tandem_quorum_fence_armed_at_ms", Long.toString(f.armedAtMillis()));
            line(sb, "tandem_quorum_fence_fenced_at_ms", Long.toString(f.fencedAtMillis()));
        }
        tandem.api.fencing.SplitBrainAudit audit = s.splitBrainAudit();
        if (audit != null) {
            tandem.api.fencing.SplitBrainAudit.Counters c = audit.counters();
            line(sb, "tandem_split_brain_events", Long.toString(c.events()));
            line(sb, "tandem_split_brain_ops_discarded", Long.toString(c.ops()));
            line(sb, "tandem_split_brain_bytes_discarded", Long.toString(c.bytes()));
            line(sb, "tandem_split_brain_ops_evicted", Long.toString(c.evicted()));
        }
        for (ReplicationStatus status : statuses) {
            if (status.fence() != null) {
                line(sb, "tandem_fence", status.fence().replace("\r", " ").replace("\n", " "));
            }
            line(sb, "tandem_" + status.protocol() + "_epoch", Long.toString(status.epoch()));
            if (status.listening() != null) {
                line(sb, "tandem_" + status.protocol() + "_listening", status.listening());
            }
        }
        s.replicationTransports().forEach((protocol, transport) -> line(sb, "tandem_" + protocol + "_transport",
                transport.replace("\r", " ").replace("\n", " ")));
        if (journal != null) {
            line(sb, "tandem_journal_sequence", Long.toString(journal.durableSequence()));
        }
        String applyStopped = s.applyStopped();
        if (applyStopped != null) {
            line(sb, "tandem_apply_stopped", oneLine(applyStopped));
        }
        if (failover != null) {
            failover(sb, failover);
        }
    }

    /** The failover group's lines: the group, the Raft view, the primary and its lease, the last switch. */
    private static void failover(StringBuilder sb, tandem.api.failover.FailoverStatus f) {
        line(sb, "tandem_failover_group", f.group());
        line(sb, "tandem_failover_node", f.nodeId());
        line(sb, "tandem_failover_automatic", f.automatic() ? "1" : "0");
        line(sb, "tandem_failover_raft_role", f.raftRole());
        line(sb, "tandem_failover_raft_leader", f.leader() == null ? "" : f.leader());
        line(sb, "tandem_failover_raft_term", Long.toString(f.term()));
        line(sb, "tandem_failover_raft_applied", Long.toString(f.raftApplied()));
        line(sb, "tandem_failover_primary", f.primary() == null ? "" : f.primary());
        line(sb, "tandem_failover_epoch", Long.toString(f.epoch()));
        if (f.lease() >= 0) {
            line(sb, "tandem_failover_lease_ms", Long.toString(f.lease()));
        }
        if (f.refusal() != null) {
            line(sb, "tandem_failover_refusal", oneLine(f.refusal()));
        }
        if (f.last() != null) {
            line(sb, "tandem_failover_last", f.last().from() + "->" + f.last().to());
            line(sb, "tandem_failover_last_at_ms", Long.toString(f.last().atMillis()));
            line(sb, "tandem_failover_last_down_ms", Long.toString(f.last().downMillis()));
        }
    }

    private static final String ZERO_ID = "0".repeat(40);

    private static ReplicationStatus.Psync psync(List<ReplicationStatus> statuses) {
        for (ReplicationStatus status : statuses) {
            if (status.psync() != null) {
                return status.psync();
            }
        }
        return null;
    }

    private static void server(StringBuilder sb, ServerContext s) {
        long uptime = Math.max(0, (System.currentTimeMillis() - s.startedAtMillis()) / 1000);
        sb.append("# Server\r\n");
        line(sb, "redis_version", REDIS_VERSION);
        line(sb, "tandem_version", s.version());
        line(sb, "redis_mode", "standalone");
        line(sb, "os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        line(sb, "arch_bits", System.getProperty("sun.arch.data.model", "64"));
        line(sb, "multiplexing_api", s.transport());
        line(sb, "java_version", System.getProperty("java.version"));
        line(sb, "process_id", Long.toString(s.processId()));
        line(sb, "run_id", s.runId());
        line(sb, "tcp_port", Integer.toString(s.port()));
        line(sb, "server_time_usec", Long.toString(System.currentTimeMillis() * 1000));
        line(sb, "uptime_in_seconds", Long.toString(uptime));
        line(sb, "uptime_in_days", Long.toString(uptime / 86400));
    }

    private static void clients(StringBuilder sb, ServerContext s) {
        sb.append("# Clients\r\n");
        line(sb, "connected_clients", Integer.toString(s.connectedClients()));
        line(sb, "maxclients", Integer.toString(s.maxClients()));
        line(sb, "blocked_clients", Integer.toString(s.blockedClients()));
    }

    private static void stats(StringBuilder sb, ServerContext s) {
        sb.append("# Stats\r\n");
        line(sb, "total_connections_received", Long.toString(s.totalConnections()));
        CommandMonitor monitor = s.monitor();
        if (monitor != null) {
            line(sb, "total_commands_processed", Long.toString(monitor.totalCalls()));
            line(sb, "total_error_replies", Long.toString(monitor.totalErrorReplies()));
        }
        ReplicationStatus.Psync psync = psync(s.replicationStatuses());
        line(sb, "sync_full", Long.toString(psync == null ? 0 : psync.syncFull()));
        line(sb, "sync_partial_ok", Long.toString(psync == null ? 0 : psync.syncPartialOk()));
        line(sb, "sync_partial_err", Long.toString(psync == null ? 0 : psync.syncPartialErr()));
        tandem.server.pubsub.PubSubRegistry pubsub = s.pubsub();
        if (pubsub != null) {
            line(sb, "pubsub_channels", Integer.toString(pubsub.size(tandem.server.pubsub.Kind.CHANNEL)));
            line(sb, "pubsub_patterns", Integer.toString(pubsub.size(tandem.server.pubsub.Kind.PATTERN)));
            line(sb, "pubsubshard_channels", Integer.toString(pubsub.size(tandem.server.pubsub.Kind.SHARD)));
        }
    }

    private static void memory(StringBuilder sb, ServerContext s) {
        Runtime rt = Runtime.getRuntime();
        sb.append("# Memory\r\n");
        line(sb, "used_memory", Long.toString(rt.totalMemory() - rt.freeMemory()));
        line(sb, "total_system_memory_heap_max", Long.toString(rt.maxMemory()));
        // Redis prints it with %lld: 2^64-1 reads -1 here as there
        line(sb, "maxmemory", Long.toString(Long.parseUnsignedLong(s.config().value("maxmemory"))));
    }

    /**
     * The journal archive, after the rest of the persistence section: how far it holds the journal and how archiving
     * fares (times in Unix seconds, as Redis gives its save times).
     */
    private static void archive(StringBuilder sb, JournalStatus j, ArchiveStatus a) {
        if (j == null) {
            return;
        }
        line(sb, "journal_archive_enabled", a == null ? "0" : "1");
        if (a == null) {
            return;
        }
        line(sb, "journal_archive_directory", oneLine(a.directory()));
        line(sb, "journal_archive_status", a.failing() ? "failing" : "ok");
        line(sb, "journal_archive_archived_sequence", Long.toString(a.archivedSequence()));
        line(sb, "journal_archive_lag_entries", Long.toString(a.pendingEntries()));
        line(sb, "journal_archive_pending_segments", Integer.toString(a.pendingSegments()));
        line(sb, "journal_archive_pending_bytes", Long.toString(a.pendingBytes()));
        line(sb, "journal_archive_archived_segments", Long.toString(a.archivedSegments()));
        if (a.lastArchived() != null) {
            line(sb, "journal_archive_last_archived", a.lastArchived());
            line(sb, "journal_archive_last_archived_time", Long.toString(a.lastArchivedAtMillis() / 1000));
        }
        line(sb, "journal_archive_failures", Long.toString(a.failures()));
        if (a.lastError() != null) {
            line(sb, "journal_archive_last_failed", oneLine(a.lastFailed()));
            line(sb, "journal_archive_last_error", oneLine(a.lastError()));
            line(sb, "journal_archive_last_error_time", Long.toString(a.lastErrorAtMillis() / 1000));
        }
    }

    private static void persistence(StringBuilder sb, String notReady, JournalStatus j, StoreStatus st,
            String applyStopped, Saves saves) {
        sb.append("# Persistence\r\n");
        // Redis' loading: the dataset is being loaded; here also the wait for a role or a service. A stopped apply
        // is not loading: apply_status says it
        boolean loading = notReady != null && applyStopped == null;
        line(sb, "loading", loading ? "1" : "0");
        line(sb, "tandem_ready", notReady == null ? "1" : "0");
        if (notReady != null) {
            line(sb, "tandem_not_ready_reason", oneLine(notReady));
        }
        line(sb, "journal_enabled", j == null ? "0" : "1");
        if (j != null) {
            line(sb, "journal_status", j.stoppedReason() == null ? "ok" : "stopped");
            if (j.stoppedReason() != null) {
                line(sb, "journal_stopped_reason", j.stoppedReason().replace('\r', ' ').replace('\n', ' '));
            }
            line(sb, "journal_first_sequence", Long.toString(j.firstSequence()));
            line(sb, "journal_last_sequence", Long.toString(j.lastSequence()));
            line(sb, "journal_durable_sequence", Long.toString(j.durableSequence()));
            line(sb, "journal_replication_offset", Long.toString(j.replicationOffset()));
            line(sb, "journal_segments", Integer.toString(j.segments()));
            line(sb, "journal_bytes", Long.toString(j.bytes()));
        }
        line(sb, "apply_status", applyStopped == null ? "ok" : "stopped");
        if (applyStopped != null) {
            line(sb, "apply_stopped_reason", oneLine(applyStopped));
        }
        line(sb, "store_enabled", st == null ? "0" : "1");
        if (st != null) {
            line(sb, "store_applied_sequence", Long.toString(st.appliedSequence()));
            line(sb, "store_flushed_sequence", Long.toString(st.flushedSequence()));
            line(sb, "store_disk_bytes", Long.toString(st.diskBytes()));
        }
        if (saves != null) {
            // SAVE/BGSAVE keep a checkpoint of the store (data/checkpoint/saved): "changes" are the entries since
            long saved = saves.lastSavedSequence();
            long changes = st == null ? 0 : Math.max(0, st.appliedSequence() - Math.max(0, saved));
            line(sb, "rdb_changes_since_last_save", Long.toString(changes));
            line(sb, "rdb_bgsave_in_progress", saves.inProgress() ? "1" : "0");
            line(sb, "rdb_last_save_time", Long.toString(saves.lastSave()));
            line(sb, "rdb_last_bgsave_status", saves.lastOk() ? "ok" : "err");
            line(sb, "rdb_saves", Long.toString(saves.saves()));
        }
    }

    private static void keyspace(StringBuilder sb, StoreStatus st) {
        sb.append("# Keyspace\r\n");
        if (st != null) {
            for (StoreStatus.Database d : st.databases()) {
                line(sb, "db" + d.index(), "keys=" + d.keys() + ",expires=" + d.keysWithExpiry() + ",avg_ttl="
                        + d.averageTtlMillis());
            }
        }
    }

    private static String oneLine(String text) {
        return text.replace('\r', ' ').replace('\n', ' ');
    }

    private static void line(StringBuilder sb, String key, String value) {
        sb.append(key).append(':').append(value).append("\r\n");
    }

    /**
     * One {@code CLIENT LIST} line, without its trailing newline: Redis 7.0's fields in its order, so that clients
     * which read every field (redis-py's {@code client_list}) find them. Tandem keeps no per-client query or output
     * buffer accounting in the front end: those fields are 0; {@code fd} is -1 (a Netty channel has no descriptor
     * to show on every transport) and {@code multi} -1 (the node core holds a transaction's queue).
     *
     * @param redirect {@code redir=}: -1 without client tracking
     */
    public static String clientLine(ClientInfo c, tandem.server.pubsub.Subscriptions s, long redirect) {
        boolean subscribed = s != null && s.active();
        String flags = (subscribed ? "P" : "") + (c.multi() ? "x" : "") + (redirect >= 0 ? "t" : "");
        return String.format(Locale.ROOT, "id=%d addr=%s laddr=%s fd=-1 name=%s age=%d idle=%d flags=%s db=%d sub=%d "
                + "psub=%d ssub=%d multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 "
                + "tot-mem=0 events=r cmd=%s user=%s redir=%d resp=%d", c.id(), c.remoteAddress(),
                c.localAddress(), c.name(), c.ageSeconds(), c.idleSeconds(), flags.isEmpty() ? "N" : flags, c.db(),
                s == null ? 0 : s.channels(), s == null ? 0 : s.patterns(), s == null ? 0 : s.shards(),
                c.lastCommand().isEmpty() ? "NULL" : c.lastCommand(), c.user(), redirect, c.resp());
    }
}
