/**
 * Metrics, exporter-neutral.
 *
 * <p>A provider that measures something no status contract carries (latency distributions, counters of events)
 * registers a {@link tandem.api.metrics.MetricsSource}; the health bundle collects every source into its
 * {@link tandem.api.metrics.MetricsSink} when {@code /metrics} is read and renders Prometheus' text exposition.
 * Gauges that a status contract already gives (journal, store, replication, fence) are read from those contracts,
 * not duplicated here. {@link tandem.api.metrics.Histogram} is the one recording structure providers share: fixed
 * buckets, so what a provider records is exactly what Prometheus scrapes, and no metrics library leaks into a
 * provider.
 */
@Export
@Version("1.0.0")
package tandem.api.metrics;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
