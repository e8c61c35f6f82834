package tandem.api.metrics;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where a {@link MetricsSource} reports. Names follow Prometheus' conventions: {@code tandem_} first, base units
 * (seconds, bytes), {@code _total} at the end of a counter's name. Labels are given as name/value pairs:
 * {@code "policy", "disk"}. One name has one help text, one type and one set of label names, whichever source
 * reports it.
 */
@ProviderType
public interface MetricsSink {
    /** A value that only grows while the source lives (it restarts from 0 with the source). */
    void counter(String name, String help, double value, String... labels);

    /** A value that goes up and down. */
    void gauge(String name, String help, double value, String... labels);

    /** A distribution, as {@link Histogram#collect} reports it. */
    void histogram(String name, String help, Histogram.Snapshot snapshot, String... labels);
}
