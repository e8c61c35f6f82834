package tandem.journal;

import tandem.api.metrics.Histogram;
import tandem.api.metrics.MetricsSink;

/** What each group commit costs: its {@code fdatasync}'s latency and the batch's entries and bytes. */
final class JournalMetrics {

    private final Histogram syncSeconds = new Histogram(Histogram.LATENCY_SECONDS);
    private final Histogram batchEntries = new Histogram(Histogram.SIZES);
    private final Histogram batchBytes = new Histogram(Histogram.SIZES);

    /** Journal thread: a batch of {@code entries} entries and {@code bytes} bytes was written and synced. */
    void batch(long syncNanos, long entries, long bytes) {
        syncSeconds.recordNanos(syncNanos);
        batchEntries.record(entries);
        batchBytes.record(bytes);
    }

    void collect(MetricsSink sink) {
        sink.histogram("tandem_journal_fdatasync_seconds", "Latency of the journal's fdatasync, one per group commit",
                syncSeconds.snapshot());
        sink.histogram("tandem_journal_batch_entries", "Entries per group commit", batchEntries.snapshot());
        sink.histogram("tandem_journal_batch_bytes", "Bytes per group commit", batchBytes.snapshot());
    }
}
