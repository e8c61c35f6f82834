package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.metrics.Histogram;
import tandem.api.metrics.MetricsSink;
import tandem.api.replication.AckPolicy;

@Timeout(10)
class WriteAckLatencyTest {

    /** Keeps what was reported, by name and first label value. */
    private static final class Recording implements MetricsSink {
        final List<String> lines = new ArrayList<>();
        final java.util.Map<String, Histogram.Snapshot> histograms = new java.util.HashMap<>();

        @Override
        public void counter(String name, String help, double value, String... labels) {
            lines.add(name + " " + value);
        }

        @Override
        public void gauge(String name, String help, double value, String... labels) {
            lines.add(name + " " + value);
        }

        @Override
        public void histogram(String name, String help, Histogram.Snapshot snapshot, String... labels) {
            histograms.put(name + "{" + String.join("=", labels) + "}", snapshot);
        }
    }

    @Test
    void eachWriteIsMeasuredOnceUnderThePolicyInForceWhenReleased() {
        WriteAckLatency l = new WriteAckLatency();
        l.appended(1, 1_000_000);
        l.appended(2, 2_000_000);
        l.appended(3, 3_000_000);
        l.released(2, AckPolicy.DISK, 4_000_000); // 3 ms and 2 ms
        assertThat(l.waiting()).isTrue();
        l.released(2, AckPolicy.DISK, 9_000_000); // nothing new released
        l.released(3, AckPolicy.RAM, 3_500_000); // 0.5 ms
        assertThat(l.waiting()).isFalse();
        Recording r = new Recording();
        l.collect(r);
        Histogram.Snapshot disk = r.histograms.get("tandem_write_ack_seconds{policy=disk}");
        Histogram.Snapshot ram = r.histograms.get("tandem_write_ack_seconds{policy=ram}");
        assertThat(disk.count()).isEqualTo(2);
        assertThat(disk.sum()).isCloseTo(0.005, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(ram.count()).isEqualTo(1);
        assertThat(r.histograms.get("tandem_write_ack_seconds{policy=two-disks}").count()).isZero();
        assertThat(r.lines).contains("tandem_write_ack_unmeasured_total 0.0");
    }

    @Test
    void aFullRingCountsWhatItCannotMeasureAndClearForgetsTheWaiting() {
        WriteAckLatency l = new WriteAckLatency();
        for (long s = 1; s <= 70_000; s++) {
            l.appended(s, s);
        }
        Recording r = new Recording();
        l.collect(r);
        assertThat(r.lines).contains("tandem_write_ack_unmeasured_total " + (70_000.0 - 65_536));
        l.clear();
        assertThat(l.waiting()).isFalse();
        l.released(Long.MAX_VALUE, AckPolicy.DISK, 100_000);
        Recording after = new Recording();
        l.collect(after);
        assertThat(after.histograms.get("tandem_write_ack_seconds{policy=disk}").count()).isZero();
    }
}
