package tandem.api.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Backups of the node: self-describing directories from which {@code bin/tandem restore} builds a new node home,
 * alone or with a journal archive to reach a later moment. A backup holds a checkpoint of the store (as the
 * checkpoint stream a full sync sends), the journal's segment prefix up to the checkpoint's applied sequence (the
 * seed a snapshot installs, which links the backup to the archived segments after it), and a {@code MANIFEST} with the
 * history's identity and a SHA-256 of each file, written last: a directory without it is not a backup.
 *
 * @since 1.2
 */
@ProviderType
public interface Backups {

    /**
     * Writes a backup into {@code directory} (created when missing; it must be empty) and verifies it by reading it
     * back before it writes the manifest.
     *
     * @throws IllegalArgumentException when {@code directory} is not an empty directory
     * @throws IllegalStateException    when no store is active, or the journal no longer holds the checkpoint's
     *                                  position, naming why
     * @throws IOException              when a file cannot be written or does not verify (what was written is left,
     *                                  without a manifest)
     */
    Backup create(Path directory) throws IOException;

    /**
     * Writes the node's own backup, {@code HOME/data/backup} (what {@code SAVE} and {@code BGSAVE} make, where Redis
     * writes {@code dump.rdb}): a new backup is written beside it and put in its place by a rename once verified, so
     * that a crash leaves the new one or the previous one, whole.
     *
     * @return the backup, in its place
     * @throws IllegalStateException and {@link IOException} as {@link #create}
     */
    Backup save() throws IOException;

    /**
     * Verifies a backup reading nothing but its directory: the manifest, each file's size and SHA-256, the checkpoint
     * stream's own checksums and trailer, the seed's entries and its chain value.
     *
     * @throws IOException naming the file and what is wrong with it
     */
    Backup verify(Path directory) throws IOException;

    /**
     * A backup, as its manifest describes it.
     *
     * @param directory         where it is
     * @param appliedSequence   the last journal sequence its store holds
     * @param timestampNs       that entry's timestamp (ns since the epoch; 0 when the store holds none)
     * @param chainHex          the journal's chain value at {@code appliedSequence}: the history it belongs to
     * @param replicationId     the node's psync replication id when it was taken (40 zeros when it had none)
     * @param epoch             the node's fencing epoch when it was taken
     * @param bytes             the size of its files
     * @param createdAt         when it was taken
     */
    record Backup(Path directory, long appliedSequence, long timestampNs, String chainHex, String replicationId,
            long epoch, long bytes, Instant createdAt) {
    }
}
