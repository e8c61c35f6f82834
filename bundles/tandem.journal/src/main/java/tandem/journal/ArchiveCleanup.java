package tandem.journal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import tandem.protocol.files.DurableFiles;
import tandem.protocol.journal.ArchivedSegmentName;

/**
 * Prunes a journal archive down to what restores from a kept backup read: what {@code bin/tandem clean-archive}
 * runs, after PostgreSQL's {@code pg_archivecleanup}. Tandem never prunes an archive itself, since only the operator
 * knows which backups are kept.
 *
 * <p>A restore from a backup reads the segment its {@code journal.seed} is a prefix of, and the segments after it.
 * So every archived segment whose last sequence lies before that segment's first one is read by no restore from this
 * backup, nor from any later backup whose store is further on: those files are deleted, whatever history they belong
 * to, and the temporary copies of them a crashed archiver left. The backup is verified first; a backup that does not
 * verify deletes nothing. Nothing else in the directory is touched, nor a temporary copy of a segment still needed
 * (an archiver may be writing it).
 */
public final class ArchiveCleanup {

    /**
     * A clean-up done (or, dry, what it would do).
     *
     * @param keptFrom the first sequence still needed: the first of the segment the backup's seed begins
     * @param removed  the files deleted (or that would be), oldest first
     * @param bytes    their size
     * @param kept     how many archived segments are left
     */
    public record Result(long keptFrom, List<Path> removed, long bytes, int kept) {
    }

    /** What follows an archived segment's name in the archiver's temporary copy of it. */
    static final String TEMPORARY = ".tmp-";

    private ArchiveCleanup() {
    }

    /**
     * @param archive a journal archive ({@code archive.directory})
     * @param backup  the oldest backup whose restores the archive must still serve
     * @param dryRun  true: delete nothing, only say what would go
     * @param log     a line per file deleted
     * @throws IOException when the backup does not verify or the archive is no directory (nothing deleted), or a
     *                     deletion fails (what was deleted before it stays deleted; running again finishes)
     */
    public static Result run(Path archive, Path backup, boolean dryRun, PrintStream log) throws IOException {
        BackupVerifier.Verified v = BackupVerifier.verify(backup);
        if (!Files.isDirectory(archive, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(archive + ": not a directory");
        }
        long keptFrom = v.seedStart();
        List<Path> removed = new ArrayList<>();
        int kept = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(archive)) {
            for (Path p : ds) {
                String file = p.getFileName().toString();
                int tmp = file.indexOf(TEMPORARY);
                ArchivedSegmentName name = ArchivedSegmentName.parse(tmp < 0 ? file : file.substring(0, tmp));
                if (name == null || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                if (name.lastSequence() < keptFrom) {
                    removed.add(p); // a temporary copy too: a crash left it, since the segment is archived by now
                } else if (tmp < 0) {
                    kept++;
                }
            }
        }
        removed.sort(Comparator.comparing(Path::getFileName));
        long bytes = 0;
        for (Path p : removed) {
            bytes += Files.size(p);
            if (!dryRun) {
                Files.delete(p);
            }
            log.println((dryRun ? "would remove " : "removed ") + p);
        }
        if (!dryRun && !removed.isEmpty()) {
            DurableFiles.syncDirectory(archive);
        }
        return new Result(keptFrom, List.copyOf(removed), bytes, kept);
    }
}
