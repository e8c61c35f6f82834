package tandem.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.felix.hc.api.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import jakarta.json.JsonObject;

import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.JournalStatus;
import tandem.api.metrics.Histogram;
import tandem.api.metrics.MetricsSink;
import tandem.api.node.Node;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;

/** What health makes of the status contracts, with the node core and a protocol faked. */
@Timeout(10)
class NodeProbeTest {

    /** Lines as {@code name{k=v,...} value}. */
    private static final class Lines implements MetricsSink {
        final List<String> lines = new ArrayList<>();

        private void add(String name, double value, String... labels) {
            StringBuilder b = new StringBuilder(name).append('{');
            for (int i = 0; i < labels.length; i += 2) {
                b.append(i == 0 ? "" : ",").append(labels[i]).append('=').append(labels[i + 1]);
            }
            lines.add(b.append("} ").append(value).toString());
        }

        @Override
        public void counter(String name, String help, double value, String... labels) {
            add(name, value, labels);
        }

        @Override
        public void gauge(String name, String help, double value, String... labels) {
            add(name, value, labels);
        }

        @Override
        public void histogram(String name, String help, Histogram.Snapshot snapshot, String... labels) {
            add(name, snapshot.count(), labels);
        }
    }

    /** A primary whose journal ends at sequence 100; a psync offset is ten times its sequence. */
    private static Node primaryNode() {
        return primaryNode(null);
    }

    /** {@link #primaryNode()}, archiving as {@code archive} says (null: not archiving). */
    private static Node primaryNode(ArchiveStatus archive) {
        JournalStatus journal = new JournalStatus("/j", 1, 100, 100, 0, 1000, 1, 4096, "ab", null);
        return (Node) Proxy.newProxyInstance(Node.class.getClassLoader(), new Class<?>[] {Node.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "notReady", "upstream", "applyStopped", "storeStatus" -> null;
                    case "archiveStatus" -> archive;
                    case "journalStatus" -> journal;
                    case "ackPolicy" -> AckPolicy.DISK_RAM;
                    case "offsetAfter" -> (Long) args[0] * 10;
                    case "backlogStart" -> 0L;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static NodeProbe probe(Node node, ReplicationStatus status) throws ReflectiveOperationException {
        NodeProbe probe = new NodeProbe();
        set(probe, "node", node);
        set(probe, "server", Proxy.newProxyInstance(tandem.api.server.ServerStatus.class.getClassLoader(),
                new Class<?>[] {tandem.api.server.ServerStatus.class}, (proxy, method, args) ->
                        switch (method.getName()) {
                            case "bindAddress" -> "127.0.0.1";
                            case "port" -> 6379;
                            case "connectedClients" -> 0;
                            case "totalConnections" -> 0L;
                            default -> null;
                        }));
        @SuppressWarnings("unchecked")
        List<ReplicationStatusSource> sources = (List<ReplicationStatusSource>) get(probe, "replication");
        sources.add(() -> status);
        return probe;
    }

    private static void set(Object o, String field, Object value) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(o, value);
    }

    private static Object get(Object o, String field) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        return f.get(o);
    }

    @Test
    void aPrimaryReportsEachReplicasLagInEntriesAndBytesAndATransferUnderWay() throws Exception {
        ReplicationStatus journal = new ReplicationStatus("journal", "primary", AckPolicy.DISK_RAM, 2,
                "127.0.0.1:7379", null, List.of(
                        new ReplicationStatus.Replica("r1", "127.0.0.1:5000", "streaming", 100, 100, 97, 3, 12),
                        new ReplicationStatus.Replica("r2", "127.0.0.1:5001", "snapshot", 0, 0, 0, 100, -1,
                                new ReplicationStatus.Transfer("snapshot", 512, 2048, 1024))));
        NodeProbe probe = probe(primaryNode(), journal);
        Lines m = new Lines();
        probe.collect(m);
        assertThat(m.lines).contains(
                "tandem_replica_lag_entries{protocol=journal,replica=r1} 3.0",
                "tandem_replica_lag_bytes{protocol=journal,replica=r1} 30.0",
                "tandem_replica_last_ack_seconds{protocol=journal,replica=r1} 0.012",
                "tandem_replica_streaming{protocol=journal,replica=r1} 1.0",
                "tandem_replica_streaming{protocol=journal,replica=r2} 0.0",
                "tandem_replica_last_ack_seconds{protocol=journal,replica=r2} -1.0",
                "tandem_transfer_bytes{protocol=journal,direction=sending,peer=r2,what=snapshot} 512.0",
                "tandem_transfer_total_bytes{protocol=journal,direction=sending,peer=r2,what=snapshot} 2048.0",
                "tandem_ready{} 1.0", "tandem_role_primary{} 1.0", "tandem_fenced{} 0.0",
                "tandem_journal_last_sequence{} 100.0");

        JsonObject r2 = probe.health().getJsonArray("replication").getJsonObject(0).getJsonArray("replicas")
                .getJsonObject(1);
        assertThat(r2.getJsonNumber("lagBytes").longValue()).isEqualTo(1000);
        assertThat(r2.getJsonObject("transfer").getJsonNumber("secondsLeft").doubleValue()).isEqualTo(1.5);
    }

    @Test
    void aReplicaReportsItsLinkAndWhatItReceivesAndAPromotionFenceFences() throws Exception {
        ReplicationStatus replica = new ReplicationStatus("journal", "replica", AckPolicy.DISK, 2, null,
                new ReplicationStatus.Upstream("127.0.0.1:7379", "snapshot", 40, 40, 250, null,
                        new ReplicationStatus.Transfer("snapshot", 100, -1, 0)),
                List.of(), "READONLY fenced for the test");
        Lines m = new Lines();
        probe(primaryNode(), replica).collect(m);
        assertThat(m.lines).contains(
                "tandem_upstream_streaming{protocol=journal} 0.0",
                "tandem_upstream_last_frame_seconds{protocol=journal} 0.25",
                "tandem_upstream_acked_sequence{protocol=journal} 40.0",
                "tandem_transfer_bytes{protocol=journal,direction=receiving,peer=primary,what=snapshot} 100.0",
                "tandem_transfer_total_bytes{protocol=journal,direction=receiving,peer=primary,what=snapshot} -1.0",
                "tandem_fenced{} 1.0");
    }

    @Test
    void aFailingJournalArchiveShowsItsLagInHealthAndMetricsAndWarns() throws Exception {
        ArchiveStatus failing = new ArchiveStatus("/archive", 80, 20, 2, 8192, 5, "segment-x", 1_700_000_000_000L,
                4, "journal.000006", "the archive directory /archive does not exist", 1_700_000_001_000L, true);
        NodeProbe probe = probe(primaryNode(failing), new ReplicationStatus("journal", "primary", AckPolicy.DISK, 0,
                "127.0.0.1:7379", null, List.of()));
        Lines m = new Lines();
        probe.collect(m);
        assertThat(m.lines).contains("tandem_journal_archive_enabled{} 1.0",
                "tandem_journal_archive_archived_sequence{} 80.0", "tandem_journal_archive_lag_entries{} 20.0",
                "tandem_journal_archive_pending_segments{} 2.0", "tandem_journal_archive_pending_bytes{} 8192.0",
                "tandem_journal_archive_segments_total{} 5.0", "tandem_journal_archive_failures_total{} 4.0",
                "tandem_journal_archive_failing{} 1.0",
                "tandem_journal_archive_last_archived_timestamp_seconds{} 1.7E9");

        JsonObject a = probe.health().getJsonObject("archive");
        assertThat(a.getString("status")).isEqualTo("failing");
        assertThat(a.getJsonNumber("archivedSequence").longValue()).isEqualTo(80);
        assertThat(a.getJsonNumber("lagEntries").longValue()).isEqualTo(20);
        assertThat(a.getJsonNumber("pendingBytes").longValue()).isEqualTo(8192);
        assertThat(a.getString("lastError")).isEqualTo("the archive directory /archive does not exist");
        assertThat(a.getString("lastFailed")).isEqualTo("journal.000006");

        Result check = SubsystemChecks.archive(probe);
        assertThat(check.getStatus()).isEqualTo(Result.Status.WARN);
        assertThat(check.iterator().next().getMessage()).contains("/archive fails: the archive directory /archive does not exist")
                .contains("2 sealed segments (8192 bytes) waiting");
    }

    @Test
    void withoutArchivingHealthSaysSoAndTheArchiveCheckPasses() throws Exception {
        NodeProbe probe = probe(primaryNode(), new ReplicationStatus("journal", "primary", AckPolicy.DISK, 0,
                "127.0.0.1:7379", null, List.of()));
        Lines m = new Lines();
        probe.collect(m);
        assertThat(m.lines).contains("tandem_journal_archive_enabled{} 0.0")
                .noneMatch(l -> l.startsWith("tandem_journal_archive_lag_entries"));
        assertThat(probe.health().isNull("archive")).isTrue();
        assertThat(SubsystemChecks.archive(probe).getStatus()).isEqualTo(Result.Status.OK);
    }

    @Test
    void withoutANodeCoreHealthSaysSoAndIsNotReady() {
        NodeProbe probe = new NodeProbe();
        assertThat(probe.notReady()).isEqualTo("the node core (tandem.node) is not active");
        JsonObject h = probe.health();
        assertThat(h.getBoolean("ready")).isFalse();
        assertThat(h.isNull("journal")).isTrue();
        assertThat(h.getJsonArray("replication")).isEmpty();
        assertThat(Map.of("role", h.get("role"))).containsEntry("role", jakarta.json.JsonValue.NULL);
    }
}
