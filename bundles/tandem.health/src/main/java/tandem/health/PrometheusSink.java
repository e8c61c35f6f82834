package tandem.health;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import tandem.api.metrics.Histogram;
import tandem.api.metrics.MetricsSink;

/**
 * Gathers what the sources report into Prometheus' model, grouped by metric name, and writes the text exposition
 * with the client library's own writer. A name reported with another type than its first report, or a second time
 * with the same labels, is dropped, counted ({@code tandem_metrics_conflicts}) and named in {@link #conflicts()}
 * rather than failing the whole scrape: the model refuses both.
 */
final class PrometheusSink implements MetricsSink {

    private enum Type { COUNTER, GAUGE, HISTOGRAM }

    private record Family(Type type, String help, List<Object> points, Set<Labels> labels) {
    }

    private final Map<String, Family> families = new LinkedHashMap<>();
    private final List<String> conflicts = new ArrayList<>();

    @Override
    public void counter(String name, String help, double value, String... labels) {
        // the model adds _total itself and refuses a name that already ends with it
        String base = name.endsWith("_total") ? name.substring(0, name.length() - "_total".length()) : name;
        Labels l = Labels.of(labels);
        add(base, Type.COUNTER, help, l, CounterSnapshot.CounterDataPointSnapshot.builder().value(value).labels(l)
                .build());
    }

    @Override
    public void gauge(String name, String help, double value, String... labels) {
        Labels l = Labels.of(labels);
        add(name, Type.GAUGE, help, l, GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(l).build());
    }

    @Override
    public void histogram(String name, String help, Histogram.Snapshot snapshot, String... labels) {
        double[] bounds = java.util.Arrays.copyOf(snapshot.upperBounds(), snapshot.upperBounds().length + 1);
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        Labels l = Labels.of(labels);
        add(name, Type.HISTOGRAM, help, l, HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, snapshot.counts())).sum(snapshot.sum())
                .labels(l).build());
    }

    private void add(String name, Type type, String help, Labels labels, Object point) {
        Family f = families.computeIfAbsent(name, n -> new Family(type, help, new ArrayList<>(), new HashSet<>()));
        if (f.type != type) {
            conflicts.add(name + " reported as a " + type + " after a " + f.type);
        } else if (!f.labels.add(labels)) {
            conflicts.add(name + labels + " reported twice");
        } else {
            f.points.add(point);
        }
    }

    /** @return what was dropped from this scrape, and why */
    List<String> conflicts() {
        return conflicts;
    }

    /** @return the snapshots gathered */
    MetricSnapshots snapshots() {
        List<MetricSnapshot> out = new ArrayList<>();
        gauge("tandem_metrics_conflicts", "Metrics dropped from this scrape: a name reported with two types, or twice "
                + "with the same labels", conflicts.size());
        for (Map.Entry<String, Family> e : families.entrySet()) {
            Family f = e.getValue();
            switch (f.type) {
                case COUNTER -> {
                    CounterSnapshot.Builder b = CounterSnapshot.builder().name(e.getKey()).help(f.help);
                    f.points.forEach(p -> b.dataPoint((CounterSnapshot.CounterDataPointSnapshot) p));
                    out.add(b.build());
                }
                case GAUGE -> {
                    GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(e.getKey()).help(f.help);
                    f.points.forEach(p -> b.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) p));
                    out.add(b.build());
                }
                case HISTOGRAM -> {
                    HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(e.getKey()).help(f.help);
                    f.points.forEach(p -> b.dataPoint((HistogramSnapshot.HistogramDataPointSnapshot) p));
                    out.add(b.build());
                }
            }
        }
        return new MetricSnapshots(out);
    }

    /** Writes Prometheus' text exposition format 0.0.4. */
    void write(OutputStream out) throws IOException {
        new PrometheusTextFormatWriter(false).write(out, snapshots());
    }

    static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }
}
