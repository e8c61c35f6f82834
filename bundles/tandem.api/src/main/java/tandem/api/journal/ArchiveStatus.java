package tandem.api.journal;

/**
 * The journal archive as one node sees it ({@code archive.directory} of {@code tandem.journal}): how far the archive
 * holds this node's journal, what still waits, and how archiving fares.
 *
 * @param directory            the archive directory
 * @param archivedSequence     every entry up to this sequence is in the archive, or was deleted from the journal
 *                             before archiving was configured: the last sequence of the newest sealed segment that is
 *                             archived together with every older retained one
 * @param pendingEntries       durable entries after {@code archivedSequence}: the archive's lag in entries, the live
 *                             segment's included (it is archived once sealed)
 * @param pendingSegments      sealed segments not archived yet
 * @param pendingBytes         their total size
 * @param archivedSegments     segments archived since the journal opened (copied, or found already there identical)
 * @param lastArchived         the archive file name of the last segment archived, or null before one
 * @param lastArchivedAtMillis when it was archived (epoch milliseconds), 0 before one
 * @param failures             failed attempts since the journal opened (each retried with a backoff)
 * @param lastFailed           the file of the segment of the last failed attempt, or null before one
 * @param lastError            why the last failed attempt failed, or null before one
 * @param lastErrorAtMillis    when it failed (epoch milliseconds), 0 before one
 * @param failing              true while the latest attempt failed: the archive lags until a retry succeeds
 */
public record ArchiveStatus(String directory, long archivedSequence, long pendingEntries, int pendingSegments,
        long pendingBytes, long archivedSegments, String lastArchived, long lastArchivedAtMillis, long failures,
        String lastFailed, String lastError, long lastErrorAtMillis, boolean failing) {
}
