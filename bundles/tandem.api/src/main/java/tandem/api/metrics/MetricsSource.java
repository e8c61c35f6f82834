package tandem.api.metrics;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A provider's metrics, collected when they are read. Registered as a service by each provider that has any.
 *
 * <p>{@link #collect} runs on the reader's thread (an HTTP request), concurrently with the provider's work: it reads
 * what the provider's threads record without stopping them, and it must be cheap (no I/O, no lock a hot path holds
 * for long).
 */
@ConsumerType
public interface MetricsSource {
    /** Reports every metric of this source to {@code sink}. */
    void collect(MetricsSink sink);
}
