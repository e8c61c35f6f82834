package tandem.health;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import tandem.api.failover.FailoverGroup;
import tandem.api.failover.FailoverStatus;
import tandem.api.fencing.QuorumFenceStatus;
import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.JournalStatus;
import tandem.api.metrics.MetricsSink;
import tandem.api.metrics.MetricsSource;
import tandem.api.node.Node;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.api.server.ServerStatus;
import tandem.api.store.StoreStatus;

/**
 * The node as health sees it: every status contract and metrics source, followed dynamically so that health keeps
 * answering while any of them is being swapped (an absent part is reported absent, never an error page).
 */
@Component(service = NodeProbe.class)
public final class NodeProbe {

    private static final System.Logger LOG = System.getLogger("tandem.health");

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Node node;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile ServerStatus server;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile QuorumFenceStatus quorumFence;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile FailoverGroup failoverGroup;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private final List<ReplicationStatusSource> replication = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private final List<MetricsSource> sources = new CopyOnWriteArrayList<>();

    /** @return null when the node is ready to serve its keyspace, else why not */
    public String notReady() {
        Node n = node;
        if (n == null) {
            return "the node core (tandem.node) is not active";
        }
        String reason = n.notReady();
        if (reason != null) {
            return reason;
        }
        return server == null ? "the RESP server (tandem.server) is not active" : null;
    }

    /** @return {@code primary} or {@code replica}; null without a node core */
    public String role() {
        Node n = node;
        return n == null ? null : n.upstream() == null ? "primary" : "replica";
    }

    /** @return the ack policy in force, or null without a node core */
    public String ackPolicy() {
        Node n = node;
        return n == null ? null : n.ackPolicy().label();
    }

    /** @return the RESP port, or -1 without a server */
    public int respPort() {
        ServerStatus s = server;
        return s == null ? -1 : s.port();
    }

    /** @return the journal's state, or null without a node core or journal */
    public JournalStatus journal() {
        Node n = node;
        return n == null ? null : n.journalStatus();
    }

    /** @return the journal archive's state, or null without a node core or journal, or with archiving off */
    public ArchiveStatus archive() {
        Node n = node;
        return n == null ? null : n.archiveStatus();
    }

    /** @return the store's state, or null without a node core or store */
    public StoreStatus store() {
        Node n = node;
        return n == null ? null : n.storeStatus();
    }

    /** @return why applying stopped, or null */
    public String applyStopped() {
        Node n = node;
        return n == null ? null : n.applyStopped();
    }

    /** @return each replication protocol's status, of the protocols installed */
    public List<ReplicationStatus> replication() {
        return replication.stream().map(ReplicationStatusSource::replicationStatus).toList();
    }

    /** @return the quorum fence's status, or null without the fencing feature */
    public QuorumFenceStatus.Status quorumFence() {
        QuorumFenceStatus f = quorumFence;
        return f == null ? null : f.status();
    }

    /** @return the failover group as this node sees it, or null when it is in none */
    public FailoverStatus failover() {
        FailoverGroup g = failoverGroup;
        return g == null ? null : g.status();
    }

    /** The document {@code /health} serves. */
    public JsonObject health() {
        Node n = node;
        String notReady = notReady();
        JsonObjectBuilder doc = Json.createObjectBuilder();
        doc.add("role", orNull(role()));
        doc.add("ready", notReady == null);
        doc.add("notReady", orNull(notReady));
        JournalStatus j = n == null ? null : n.journalStatus();
        if (n != null) {
            doc.add("upstream", orNull(n.upstream()));
            doc.add("ackPolicy", n.ackPolicy().label());
            doc.add("applyStopped", orNull(n.applyStopped()));
        }
        ServerStatus s = server;
        if (s != null) {
            doc.add("server", Json.createObjectBuilder().add("bind", orNull(s.bindAddress())).add("port", s.port())
                    .add("connectedClients", s.connectedClients()).add("totalConnections", s.totalConnections()));
        } else {
            doc.addNull("server");
        }
        if (j != null) {
            doc.add("journal", Json.createObjectBuilder().add("directory", j.directory())
                    .add("firstSequence", j.firstSequence()).add("lastSequence", j.lastSequence())
                    .add("durableSequence", j.durableSequence()).add("replicationOffset", j.replicationOffset())
                    .add("segments", j.segments()).add("bytes", j.bytes()).add("chain", orNull(j.chainHex()))
                    .add("stopped", orNull(j.stoppedReason())));
        } else {
            doc.addNull("journal");
        }
        ArchiveStatus a = n == null || j == null ? null : n.archiveStatus();
        if (a != null) {
            doc.add("archive", Json.createObjectBuilder().add("directory", a.directory())
                    .add("status", a.failing() ? "failing" : "ok").add("archivedSequence", a.archivedSequence())
                    .add("lagEntries", a.pendingEntries()).add("pendingSegments", a.pendingSegments())
                    .add("pendingBytes", a.pendingBytes()).add("archivedSegments", a.archivedSegments())
                    .add("lastArchived", orNull(a.lastArchived()))
                    .add("lastArchivedAtMillis", a.lastArchivedAtMillis()).add("failures", a.failures())
                    .add("lastFailed", orNull(a.lastFailed())).add("lastError", orNull(a.lastError()))
                    .add("lastErrorAtMillis", a.lastErrorAtMillis()));
        } else {
            doc.addNull("archive");
        }
        StoreStatus st = n == null ? null : n.storeStatus();
        if (st != null) {
            doc.add("store", Json.createObjectBuilder().add("directory", st.directory())
                    .add("appliedSequence", st.appliedSequence()).add("flushedSequence", st.flushedSequence())
                    .add("keys", st.keys()).add("keysWithExpiry", st.keysWithExpiry())
                    .add("diskBytes", st.diskBytes()));
        } else {
            doc.addNull("store");
        }
        doc.add("fence", fence());
        JsonArrayBuilder protocols = Json.createArrayBuilder();
        for (ReplicationStatusSource source : replication) {
            protocols.add(protocol(source, n, j));
        }
        doc.add("replication", protocols);
        FailoverStatus f = failover();
        if (f != null) {
            doc.add("failover", failover(f));
        } else {
            doc.addNull("failover");
        }
        return doc.build();
    }

    private static JsonObjectBuilder failover(FailoverStatus f) {
        JsonArrayBuilder members = Json.createArrayBuilder();
        for (FailoverStatus.Member m : f.members()) {
            members.add(Json.createObjectBuilder().add("id", m.id()).add("resp", m.resp())
                    .add("replication", m.replication()).add("witness", m.witness()).add("role", m.role())
                    .add("tip", m.tip()).add("heardMillisAgo", m.ageMillis()));
        }
        JsonObjectBuilder doc = Json.createObjectBuilder().add("group", f.group()).add("node", f.nodeId())
                .add("automatic", f.automatic()).add("raftRole", f.raftRole()).add("leader", orNull(f.leader()))
                .add("term", f.term()).add("primary", orNull(f.primary())).add("epoch", f.epoch())
                .add("leaseMillis", f.lease()).add("refusal", orNull(f.refusal()))
                .add("switchover", orNull(f.switchover())).add("members", members);
        FailoverStatus.Failover last = f.last();
        if (last == null) {
            doc.addNull("last");
        } else {
            doc.add("last", Json.createObjectBuilder().add("from", last.from()).add("to", last.to())
                    .add("epoch", last.epoch()).add("atMillis", last.atMillis()).add("downMillis", last.downMillis())
                    .add("reason", last.reason()));
        }
        return doc;
    }

    private JsonObjectBuilder fence() {
        JsonObjectBuilder f = Json.createObjectBuilder();
        String replicationFence = null;
        for (ReplicationStatusSource source : replication) {
            ReplicationStatus r = source.replicationStatus();
            if (r.fence() != null) {
                replicationFence = r.protocol() + ": " + r.fence();
            }
        }
        QuorumFenceStatus.Status q = quorumFence();
        f.add("fenced", replicationFence != null || q != null && q.fenced());
        f.add("promotion", orNull(replicationFence));
        if (q == null) {
            f.addNull("quorum");
        } else {
            JsonObjectBuilder ages = Json.createObjectBuilder();
            q.ackAgesMillis().forEach(ages::add);
            f.add("quorum", Json.createObjectBuilder().add("fenced", q.fenced()).add("selfFence", q.selfFence())
                    .add("windowMillis", q.windowMillis()).add("armed", q.armedAtMillis() != 0)
                    .add("fencedAtMillis", q.fencedAtMillis()).add("refusedWrites", q.refusedWrites())
                    .add("ackAgesMillis", ages));
        }
        return f;
    }

    private static JsonObjectBuilder protocol(ReplicationStatusSource source, Node n, JournalStatus j) {
        ReplicationStatus r = source.replicationStatus();
        JsonObjectBuilder p = Json.createObjectBuilder().add("protocol", r.protocol()).add("role", r.role())
                .add("ackPolicy", orNull(r.ackPolicy() == null ? null : r.ackPolicy().label())).add("epoch", r.epoch())
                .add("listening", orNull(r.listening())).add("transport", orNull(source.transportStatus()));
        ReplicationStatus.Upstream u = r.upstream();
        if (u != null) {
            p.add("upstream", Json.createObjectBuilder().add("address", u.address()).add("state", u.state())
                    .add("received", u.received()).add("acked", u.acked()).add("lastFrameMillis", u.lastFrameMillis())
                    .add("lastError", orNull(u.lastError())).add("transfer", transfer(u.transfer())));
        } else {
            p.addNull("upstream");
        }
        long lastOffset = lastOffset(n, j);
        JsonArrayBuilder replicas = Json.createArrayBuilder();
        for (ReplicationStatus.Replica rep : r.replicas()) {
            long ackedOffset = n == null ? -1 : n.offsetAfter(rep.acked());
            long sentOffset = n == null ? -1 : n.offsetAfter(rep.sent());
            replicas.add(Json.createObjectBuilder().add("id", rep.id()).add("address", rep.address())
                    .add("state", rep.state()).add("sent", rep.sent()).add("inMemory", rep.inMemory())
                    .add("acked", rep.acked()).add("lagEntries", rep.lagEntries())
                    .add("lagBytes", lagBytes(lastOffset, ackedOffset))
                    .add("lastAckMillis", rep.lastAckMillis())
                    .add("offsets", Json.createObjectBuilder().add("sent", sentOffset).add("acked", ackedOffset))
                    .add("transfer", transfer(rep.transfer())));
        }
        p.add("replicas", replicas);
        ReplicationStatus.Psync ps = r.psync();
        if (ps != null) {
            p.add("psync", Json.createObjectBuilder().add("replicationId", ps.replicationId())
                    .add("replicationId2", ps.replicationId2()).add("secondOffset", ps.secondOffset())
                    .add("offset", lastOffset).add("backlogStart", n == null ? -1 : n.backlogStart())
                    .add("syncFull", ps.syncFull()).add("syncPartialOk", ps.syncPartialOk())
                    .add("syncPartialErr", ps.syncPartialErr()));
        }
        return p;
    }

    /** The journal archive's gauges: whether it is on, how far it holds the journal, how archiving fares. */
    private static void archive(MetricsSink sink, ArchiveStatus a) {
        sink.gauge("tandem_journal_archive_enabled", "1 while sealed segments are archived (archive.directory set)",
                a == null ? 0 : 1);
        if (a == null) {
            return;
        }
        sink.gauge("tandem_journal_archive_archived_sequence", "Every entry up to this sequence is archived",
                a.archivedSequence());
        sink.gauge("tandem_journal_archive_lag_entries", "Durable entries not archived yet (the live segment's too)",
                a.pendingEntries());
        sink.gauge("tandem_journal_archive_pending_segments", "Sealed segments waiting to be archived",
                a.pendingSegments());
        sink.gauge("tandem_journal_archive_pending_bytes", "Bytes of the sealed segments waiting to be archived",
                a.pendingBytes());
        sink.counter("tandem_journal_archive_segments_total", "Segments archived since the journal opened",
                a.archivedSegments());
        sink.counter("tandem_journal_archive_failures_total", "Failed archiving attempts since the journal opened",
                a.failures());
        sink.gauge("tandem_journal_archive_failing", "1 while the latest archiving attempt failed", a.failing() ? 1 : 0);
        sink.gauge("tandem_journal_archive_last_archived_timestamp_seconds",
                "When the last segment was archived (Unix time; 0 before one)", a.lastArchivedAtMillis() / 1000.0);
    }

    /** @return the psync offset after the journal's last entry, -1 without a journal or when it is not retained */
    private static long lastOffset(Node n, JournalStatus j) {
        return n == null || j == null ? -1 : n.offsetAfter(j.lastSequence());
    }

    /** @return the bytes between the two offsets, -1 when either is unknown */
    private static long lagBytes(long lastOffset, long ackedOffset) {
        return lastOffset >= 0 && ackedOffset >= 0 ? Math.max(0, lastOffset - ackedOffset) : -1;
    }

    private static jakarta.json.JsonValue transfer(ReplicationStatus.Transfer t) {
        if (t == null) {
            return jakarta.json.JsonValue.NULL;
        }
        double left = t.secondsLeft();
        return Json.createObjectBuilder().add("what", t.what()).add("bytes", t.bytes())
                .add("totalBytes", t.totalBytes())
                .add("bytesPerSecond", Math.round(t.bytesPerSecond()))
                .add("secondsLeft", left < 0 ? -1 : Math.round(left * 10) / 10.0).build();
    }

    private static jakarta.json.JsonValue orNull(String s) {
        return s == null ? jakarta.json.JsonValue.NULL : Json.createValue(s);
    }

    /** Reports every metric: the sources' own, and gauges read from the status contracts. */
    public void collect(MetricsSink sink) {
        for (MetricsSource source : sources) {
            try {
                source.collect(sink);
            } catch (RuntimeException e) { // one source's fault must not take every other metric with it
                LOG.log(System.Logger.Level.WARNING, "metrics: " + source.getClass().getName() + " failed; what it reported before "
                        + "is in this scrape, the rest is not", e);
            }
        }
        Node n = node;
        String notReady = notReady();
        sink.gauge("tandem_ready", "1 when the node serves its keyspace (journal replayed, role settled), else 0",
                notReady == null ? 1 : 0);
        if (n != null) {
            sink.gauge("tandem_role_primary", "1 on a primary, 0 on a replica", n.upstream() == null ? 1 : 0);
            sink.gauge("tandem_apply_stopped", "1 while applying journal entries is stopped (writes refused)",
                    n.applyStopped() == null ? 0 : 1);
            JournalStatus j = n.journalStatus();
            if (j != null) {
                sink.gauge("tandem_journal_bytes", "Bytes of the journal's segment files", j.bytes());
                sink.gauge("tandem_journal_segments", "The journal's segment files", j.segments());
                sink.gauge("tandem_journal_last_sequence", "The last sequence appended", j.lastSequence());
                sink.gauge("tandem_journal_durable_sequence", "The last sequence made durable", j.durableSequence());
                sink.gauge("tandem_journal_stopped", "1 once the journal fail-stopped",
                        j.stoppedReason() == null ? 0 : 1);
                archive(sink, n.archiveStatus());
            }
            StoreStatus st = n.storeStatus();
            if (st != null) {
                sink.gauge("tandem_store_bytes", "Bytes of the store's files", st.diskBytes());
                sink.gauge("tandem_store_keys", "User keys in the store (RocksDB's estimate)", st.keys());
            }
        }
        long lastOffset = lastOffset(n, n == null ? null : n.journalStatus());
        String promotionFence = null;
        for (ReplicationStatus r : replication()) {
            if (r.fence() != null) {
                promotionFence = r.fence();
            }
            ReplicationStatus.Upstream u = r.upstream();
            if (u != null) {
                String[] labels = {"protocol", r.protocol()};
                sink.gauge("tandem_upstream_streaming", "On a replica: 1 while its link to the primary streams",
                        "streaming".equals(u.state()) ? 1 : 0, labels);
                sink.gauge("tandem_upstream_last_frame_seconds", "On a replica: seconds since the primary last sent "
                        + "anything (-1: never)", u.lastFrameMillis() < 0 ? -1 : u.lastFrameMillis() / 1e3, labels);
                sink.gauge("tandem_upstream_acked_sequence", "On a replica: the last sequence it made durable and "
                        + "acknowledged", u.acked(), labels);
                transfer(sink, u.transfer(), "receiving", r.protocol(), "primary");
            }
            for (ReplicationStatus.Replica rep : r.replicas()) {
                String[] labels = {"protocol", r.protocol(), "replica", rep.id()};
                transfer(sink, rep.transfer(), "sending", r.protocol(), rep.id());
                sink.gauge("tandem_replica_lag_entries", "Entries between the primary's last sequence and what the "
                        + "replica made durable", rep.lagEntries(), labels);
                sink.gauge("tandem_replica_last_ack_seconds", "Seconds since the replica's last acknowledgement "
                        + "(-1: none)", rep.lastAckMillis() < 0 ? -1 : rep.lastAckMillis() / 1e3, labels);
                sink.gauge("tandem_replica_streaming", "1 while the replica streams", "streaming".equals(rep.state())
                        ? 1 : 0, labels);
                long lagBytes = lagBytes(lastOffset, n == null ? -1 : n.offsetAfter(rep.acked()));
                if (lagBytes >= 0) {
                    sink.gauge("tandem_replica_lag_bytes", "Replication-offset bytes between the primary's last "
                            + "entry and what the replica made durable", lagBytes, labels);
                }
            }
            if (r.psync() != null) {
                sink.counter("tandem_full_syncs_total", "Full syncs served: psync full syncs, journal-protocol "
                        + "snapshots", r.psync().syncFull(), "protocol", r.protocol());
                sink.counter("tandem_partial_syncs_total", "Partial syncs served (psync +CONTINUE)",
                        r.psync().syncPartialOk(), "protocol", r.protocol());
            }
        }
        QuorumFenceStatus.Status q = quorumFence();
        sink.gauge("tandem_fenced", "1 while writes are refused by a fence (quorum or promotion), else 0",
                promotionFence != null || q != null && q.fenced() ? 1 : 0);
        if (q != null) {
            sink.counter("tandem_fence_refused_writes_total", "Writes the quorum fence refused with CLUSTERDOWN",
                    q.refusedWrites());
        }
    }

    /** A snapshot or full sync under way, as gauges: bytes done and in all (-1: unknown). */
    private static void transfer(MetricsSink sink, ReplicationStatus.Transfer t, String direction, String protocol,
            String peer) {
        if (t == null) {
            return;
        }
        String[] labels = {"protocol", protocol, "direction", direction, "peer", peer, "what", t.what()};
        sink.gauge("tandem_transfer_bytes", "A snapshot or full sync under way: bytes done", t.bytes(), labels);
        sink.gauge("tandem_transfer_total_bytes", "A snapshot or full sync under way: bytes in all (-1: unknown)",
                t.totalBytes(), labels);
    }

    /** For the status page: what each replica of each protocol lags now, by id. */
    Map<String, Long> lagByReplica() {
        Map<String, Long> lag = new java.util.TreeMap<>();
        for (ReplicationStatus r : replication()) {
            for (ReplicationStatus.Replica rep : r.replicas()) {
                lag.put(r.protocol() + " " + shortId(rep.id()), rep.lagEntries());
            }
        }
        return lag;
    }

    static String shortId(String id) {
        return id.length() > 16 ? id.substring(0, 16) : id;
    }
}
