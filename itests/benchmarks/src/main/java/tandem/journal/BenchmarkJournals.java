package tandem.journal;

import java.nio.file.Path;

import tandem.protocol.frpl.FrplPayload;

/**
 * Opens a {@link SegmentedJournal} for the benchmarks. The journal's constructor and settings are package-private
 * (the OSGi component is its public face), so this class sits in the journal's package, as the journal's own tests
 * do; it only exists on the benchmarks' class path, never in a bundle.
 */
public final class BenchmarkJournals {

    private BenchmarkJournals() {
    }

    /** @return a journal in {@code directory} with the component's default settings (blocking waits, 4096-entry batches, 256 MiB segments) */
    public static SegmentedJournal open(Path directory) {
        return new SegmentedJournal(JournalSettings.defaults(directory), FrplPayload::length);
    }
}
