package tandem.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.fencing.QuorumFenceStatus;
import tandem.api.journal.ArchiveStatus;
import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationStatus;

@Timeout(10)
class StatusPageTest {

    private static List<History.Sample> samples(int n) {
        List<History.Sample> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new History.Sample(1_700_000_000_000L + i * 1000L, Map.of("disk", new double[] {0.001, 0.004}),
                    1000 + i, 900 + i, Map.of("journal r1", (long) i)));
        }
        return out;
    }

    @Test
    void showsRoleReadinessReplicasFenceAndAChartPerQuantity() {
        ReplicationStatus journal = new ReplicationStatus("journal", "primary", AckPolicy.DISK, 3, "127.0.0.1:7379",
                null, List.of(new ReplicationStatus.Replica("ab12", "127.0.0.1:5000", "streaming", 10, 10, 9, 1, 4)));
        ArchiveStatus archive = new ArchiveStatus("/mnt/archive", 4711, 12, 1, 65536, 9, "segment-…", 0, 0, null,
                null, 0, false);
        String page = StatusPage.render("primary", null, "disk", 6379, List.of(journal), null, archive, samples(5));
        assertThat(page).contains("<span id=\"role\">primary</span>", "on port 6379",
                "<span class=\"ok\" id=\"ready\">ready</span>", "<span class=\"ok\" id=\"fence\">not fenced</span>",
                "<td>streaming</td>", "<td>1</td>", "4 ms ago", "disk p50", "disk p99", "commands/s",
                "journal entries/s", "journal r1", "<meta http-equiv=\"refresh\" content=\"5\">",
                "<span class=\"ok\" id=\"archive\">ok</span>: /mnt/archive, archived up to sequence 4711, lag 12 "
                        + "entries, 1 sealed segments (65536 bytes) waiting");
        for (String chart : List.of("chart-latency", "chart-throughput", "chart-lag")) {
            int at = page.indexOf("<svg id=\"" + chart + "\"");
            assertThat(at).as(chart).isPositive();
            assertThat(page.substring(at, page.indexOf("</svg>", at))).contains("<polyline");
        }
        assertThat(page).as("no script, nothing loaded from elsewhere").doesNotContain("<script", "src=\"http",
                "href=\"http", "@import");
        assertThat(page).contains("The last 5 seconds");
    }

    @Test
    void notReadyFencedAndEmptyHistoryAreShownAndEverythingIsEscaped() {
        ReplicationStatus journal = new ReplicationStatus("journal", "primary", AckPolicy.DISK, 3, null, null,
                List.of(new ReplicationStatus.Replica("<script>alert(1)</script>", "", "disconnected", 0, 0, 0, 0,
                        -1)), "READONLY a registered replica <b>is ahead</b>");
        QuorumFenceStatus.Status quorum = new QuorumFenceStatus.Status(true, 5000, 1, 2, 7, Map.of());
        String page = StatusPage.render("primary", "replaying the journal: 1 of 2 entries", "disk", 6379,
                List.of(journal), quorum, new ArchiveStatus("/mnt/<archive>", 10, 900, 3, 1 << 20, 2, null, 0, 4,
                        "journal.000003", "/mnt/<archive>: No such file", 0, true), List.of());
        assertThat(page).contains("<span class=\"bad\" id=\"ready\">not ready: replaying the journal: 1 of 2 entries",
                "<span class=\"bad\" id=\"fence\">FENCED: READONLY a registered replica &lt;b&gt;is ahead&lt;/b&gt;",
                "&lt;script&gt;", "never", "no data yet", "7 writes refused",
                "<span class=\"bad\" id=\"archive\">FAILING: /mnt/&lt;archive&gt;: No such file (4 failures)</span>");
        assertThat(page).doesNotContain("<script>", "<b>is");
    }
}
