package tandem.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.metrics.Histogram;

@Timeout(10)
class PrometheusSinkTest {

    private static String render(PrometheusSink sink) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        sink.write(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void countersGaugesAndHistogramsInTheTextFormatGolden() throws IOException {
        PrometheusSink sink = new PrometheusSink();
        sink.counter("tandem_commands_total", "Commands run", 3, "command", "set");
        sink.counter("tandem_commands_total", "Commands run", 1, "command", "get");
        sink.gauge("tandem_ready", "1 when ready", 1);
        Histogram h = new Histogram(new double[] {0.001, 0.01});
        h.record(0.0005);
        h.record(0.005);
        h.record(0.005);
        h.record(5);
        sink.histogram("tandem_write_ack_seconds", "Write-to-ack latency", h.snapshot(), "policy", "disk");
        assertThat(render(sink)).isEqualTo("""
                # HELP tandem_commands_total Commands run
                # TYPE tandem_commands_total counter
                tandem_commands_total{command="get"} 1.0
                tandem_commands_total{command="set"} 3.0
                # HELP tandem_metrics_conflicts Metrics dropped from this scrape: a name reported with two types, \
                or twice with the same labels
                # TYPE tandem_metrics_conflicts gauge
                tandem_metrics_conflicts 0.0
                # HELP tandem_ready 1 when ready
                # TYPE tandem_ready gauge
                tandem_ready 1.0
                # HELP tandem_write_ack_seconds Write-to-ack latency
                # TYPE tandem_write_ack_seconds histogram
                tandem_write_ack_seconds_bucket{policy="disk",le="0.001"} 1
                tandem_write_ack_seconds_bucket{policy="disk",le="0.01"} 3
                tandem_write_ack_seconds_bucket{policy="disk",le="+Inf"} 4
                tandem_write_ack_seconds_count{policy="disk"} 4
                tandem_write_ack_seconds_sum{policy="disk"} 5.0105
                """);
    }

    @Test
    void aNameReportedWithTwoTypesIsDroppedAndCountedNotFatal() throws IOException {
        PrometheusSink sink = new PrometheusSink();
        sink.gauge("tandem_x", "x", 1);
        sink.counter("tandem_x", "x", 2);
        String text = render(sink);
        assertThat(text).contains("tandem_x 1.0", "tandem_metrics_conflicts 1.0").doesNotContain("tandem_x_total");
        assertThat(sink.conflicts()).containsExactly("tandem_x reported as a COUNTER after a GAUGE");
        assertThat(PrometheusSink.contentType()).startsWith("text/plain; version=0.0.4");
    }

    @Test
    void aSeriesReportedTwiceWithTheSameLabelsKeepsItsFirstValueAndIsCountedNotFatal() throws IOException {
        PrometheusSink sink = new PrometheusSink();
        sink.gauge("tandem_upstream_streaming", "s", 1, "protocol", "journal");
        sink.gauge("tandem_upstream_streaming", "s", 0, "protocol", "journal");
        sink.gauge("tandem_upstream_streaming", "s", 0, "protocol", "psync");
        String text = render(sink);
        assertThat(text).contains("tandem_upstream_streaming{protocol=\"journal\"} 1.0",
                "tandem_upstream_streaming{protocol=\"psync\"} 0.0", "tandem_metrics_conflicts 1.0")
                .doesNotContain("tandem_upstream_streaming{protocol=\"journal\"} 0.0");
        assertThat(sink.conflicts()).singleElement().asString().startsWith("tandem_upstream_streaming{")
                .endsWith(" reported twice");
    }
}
