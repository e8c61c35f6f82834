package tandem.journal;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;

import tandem.api.home.NodeHome;
import tandem.protocol.config.PropertyCheck;

/**
 * The validated configuration of the journal. Every check names the property it refuses, so that an operator who
 * mistypes {@code etc/tandem.journal.cfg} reads which line is wrong.
 */
record JournalSettings(Path directory, long segmentSize, WaitStrategy waitStrategy, int maxBatchEntries,
        long retentionMaxBytes, long retentionMaxAgeSeconds, int lineageArchivesKeep, Path archiveDirectory,
        long archiveIntervalSeconds) {

    /** Settings that archive nothing. */
    JournalSettings(Path directory, long segmentSize, WaitStrategy waitStrategy, int maxBatchEntries,
            long retentionMaxBytes, long retentionMaxAgeSeconds, int lineageArchivesKeep) {
        this(directory, segmentSize, waitStrategy, maxBatchEntries, retentionMaxBytes, retentionMaxAgeSeconds,
                lineageArchivesKeep, null, 0);
    }

    static final String PID = "tandem.journal";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);
    static final long MIN_SEGMENT_SIZE = 64 * 1024;

    static JournalSettings of(JournalComponent.Config c, NodeHome home) {
        Path directory = directory(c.directory(), home);
        long segmentSize = CHECK.range("segment.size", c.segment_size(), MIN_SEGMENT_SIZE, 1L << 40);
        WaitStrategy wait;
        try {
            wait = WaitStrategy.parse(c.wait_strategy());
        } catch (IllegalArgumentException e) {
            throw CHECK.invalid("wait.strategy", c.wait_strategy(), "must be blocking, spin-yield or busy-spin");
        }
        int maxBatch = (int) CHECK.range("max.batch.entries", c.max_batch_entries(), 1, 1 << 20);
        long retentionBytes = CHECK.range("retention.max.bytes", c.retention_max_bytes(), 0, Long.MAX_VALUE);
        long retentionAge = CHECK.range("retention.max.age.seconds", c.retention_max_age_seconds(), 0,
                Long.MAX_VALUE / 1000);
        int keep = (int) CHECK.range("lineage.archives.keep", c.lineage_archives_keep(), 0, 1000);
        Path archive = archiveDirectory(c.archive_directory(), home, directory);
        long interval = CHECK.range("archive.interval.seconds", c.archive_interval_seconds(), 0, 366L * 86400);
        return new JournalSettings(directory, segmentSize, wait, maxBatch, retentionBytes, retentionAge, keep,
                archive, interval);
    }

    /** Settings for tests and tools: defaults except the directory. */
    static JournalSettings defaults(Path directory) {
        return new JournalSettings(directory, 256L * 1024 * 1024, WaitStrategy.BLOCKING, 4096, 0, 0, 3);
    }

    JournalSettings withSegmentSize(long size) {
        return new JournalSettings(directory, size, waitStrategy, maxBatchEntries, retentionMaxBytes,
                retentionMaxAgeSeconds, lineageArchivesKeep, archiveDirectory, archiveIntervalSeconds);
    }

    JournalSettings withWaitStrategy(WaitStrategy strategy) {
        return new JournalSettings(directory, segmentSize, strategy, maxBatchEntries, retentionMaxBytes,
                retentionMaxAgeSeconds, lineageArchivesKeep, archiveDirectory, archiveIntervalSeconds);
    }

    JournalSettings withRetention(long maxBytes, long maxAgeSeconds) {
        return new JournalSettings(directory, segmentSize, waitStrategy, maxBatchEntries, maxBytes, maxAgeSeconds,
                lineageArchivesKeep, archiveDirectory, archiveIntervalSeconds);
    }

    /** @param archive the archive directory, null: archive nothing */
    JournalSettings withArchive(Path archive, long intervalSeconds) {
        return new JournalSettings(directory, segmentSize, waitStrategy, maxBatchEntries, retentionMaxBytes,
                retentionMaxAgeSeconds, lineageArchivesKeep, archive, intervalSeconds);
    }

    /** The same settings in {@code running}'s directory, which changes only when the journal is next opened. */
    JournalSettings withDirectory(Path running) {
        return new JournalSettings(running, segmentSize, waitStrategy, maxBatchEntries, retentionMaxBytes,
                retentionMaxAgeSeconds, lineageArchivesKeep, archiveDirectory, archiveIntervalSeconds);
    }

    /** @return the archive directory, or null for none; never the journal's own directory */
    private static Path archiveDirectory(String configured, NodeHome home, Path journal) {
        String value = configured == null ? "" : configured.trim();
        if (value.isEmpty()) {
            return null;
        }
        Path path;
        try {
            path = Paths.get(value);
        } catch (InvalidPathException e) {
            throw CHECK.invalid("archive.directory", value, "is not a path: " + e.getReason());
        }
        if (!path.isAbsolute() && home.isSet()) {
            path = home.directory().resolve(path);
        }
        if (!path.isAbsolute()) {
            throw CHECK.invalid("archive.directory", value,
                    "must be an absolute path (or relative to an absolute tandem.home)");
        }
        path = path.normalize();
        if (path.equals(journal)) {
            // the journal's purge and lineage archives own that directory's files
            throw CHECK.invalid("archive.directory", value, "is the journal's own directory");
        }
        return path;
    }

    private static Path directory(String configured, NodeHome home) {
        String value = configured == null ? "" : configured.trim();
        if (value.isEmpty() && !home.isSet()) {
            throw CHECK.invalid("directory", "", "is not set and the framework property tandem.home is not set either");
        }
        Path path = value.isEmpty() ? home.directory().resolve("data").resolve("journal") : Paths.get(value);
        if (!path.isAbsolute() && home.isSet()) {
            path = home.directory().resolve(path);
        }
        if (!path.isAbsolute()) {
            throw CHECK.invalid("directory", value,
                    "must be an absolute path (or relative to an absolute tandem.home)");
        }
        return path.normalize();
    }
}
