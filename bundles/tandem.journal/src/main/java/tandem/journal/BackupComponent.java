package tandem.journal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.checkpoint.Backups;
import tandem.api.checkpoint.Checkpoints;
import tandem.api.home.NodeHome;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;
import tandem.protocol.files.DurableFiles;

/**
 * Takes backups ({@code backup:create}): a checkpoint of the store cut by {@link Checkpoints}, the journal's segment
 * prefix up to the checkpoint's applied sequence, and a manifest, written last. Lives beside the journal because a
 * backup is its segment format and chain as much as the store's files, and the offline restore
 * ({@code bin/tandem restore}) reads both with the journal's own scanner.
 */
@Component(service = Backups.class, immediate = true)
public final class BackupComponent implements Backups {

    private static final Logger LOG = System.getLogger("tandem.journal");
    private static final String NO_ID = "0".repeat(40);

    /** The node's own backup ({@link #save}), beside the store and the journal. */
    static final String SAVED = "data/backup";

    private final Checkpoints checkpoints;
    private final Journal journal;
    private final Path saved;
    private final Path saving;
    private final Path replaced;

    /** Where the psync id and the epoch come from: the protocol that has them. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    volatile List<ReplicationStatusSource> replication = List.of();

    @Activate
    public BackupComponent(@Reference Checkpoints checkpoints, @Reference Journal journal,
            @Reference NodeHome home) throws IOException {
        this(checkpoints, journal, home.directory());
    }

    BackupComponent(Checkpoints checkpoints, Journal journal, Path home) throws IOException {
        this.checkpoints = checkpoints;
        this.journal = journal;
        this.saved = home.resolve(SAVED).toAbsolutePath().normalize();
        this.saving = saved.resolveSibling("backup.saving");
        this.replaced = saved.resolveSibling("backup.replaced");
        recover();
    }

    /**
     * Finishes or undoes a {@link #save} a crash cut short: a backup set aside with none in its place goes back;
     * what remains beside it is deleted.
     */
    private void recover() throws IOException {
        if (!Files.exists(saved) && Files.isRegularFile(replaced.resolve(BackupManifest.FILE))) {
            Files.move(replaced, saved, StandardCopyOption.ATOMIC_MOVE);
            DurableFiles.syncDirectory(saved.getParent());
        }
        for (Path leftover : new Path[] {saving, replaced}) {
            if (Files.exists(leftover)) {
                LOG.log(Level.INFO, "deleting {0}, left by a save that a restart ended", leftover);
                DurableFiles.deleteTree(leftover);
            }
        }
    }

    @Override
    public synchronized Backup save() throws IOException {
        DurableFiles.deleteTree(saving);
        Backup b = create(saving);
        if (Files.exists(saved)) {
            Files.move(saved, replaced, StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(saving, saved, StandardCopyOption.ATOMIC_MOVE);
        DurableFiles.syncDirectory(saved.getParent());
        DurableFiles.deleteTree(replaced);
        return new Backup(saved, b.appliedSequence(), b.timestampNs(), b.chainHex(), b.replicationId(), b.epoch(),
                b.bytes(), b.createdAt());
    }

    /** One backup at a time: each cuts a checkpoint of the whole store. */
    @Override
    public synchronized Backup create(Path directory) throws IOException {
        Path dir = directory.toAbsolutePath().normalize();
        if (Files.exists(dir) && (!Files.isDirectory(dir) || hasEntries(dir))) {
            throw new IllegalArgumentException(dir + " is not an empty directory: a backup needs one of its own");
        }
        Files.createDirectories(dir);
        long started = System.nanoTime();
        String id = NO_ID;
        long epoch = 0;
        for (ReplicationStatusSource source : replication) {
            ReplicationStatus s = source.replicationStatus();
            epoch = Math.max(epoch, s.epoch());
            if (s.psync() != null && s.psync().replicationId() != null) {
                id = s.psync().replicationId();
            }
        }
        try (Checkpoints.Cut cut = checkpoints.cut("backup")) {
            long applied = cut.appliedSequence();
            long offset = journal.offsetAfter(applied);
            byte[] chain = journal.chainAt(applied);
            if (offset < 0 || chain == null) {
                throw new IllegalStateException("the journal no longer holds sequence " + applied
                        + ", where the store's checkpoint is (it was purged meanwhile): take the backup again");
            }
            long timestamp = timestampOf(applied);
            Path store = dir.resolve(BackupManifest.STORE);
            try (FileChannel out = FileChannel.open(store, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                cut.send(NO_ID.equals(id) ? "backup" : id, offset, out);
                out.force(true);
            }
            Path seed = dir.resolve(BackupManifest.SEED);
            try (FileChannel out = FileChannel.open(seed, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                journal.writeSeed(applied, out);
                out.force(true);
            }
            DurableFiles.syncDirectory(dir);
            // the hashes the manifest records are of the bytes read back, which the stream's own checksums and the
            // seed's CRCs and chain then vouch for: verify() reads them again exactly so
            BackupManifest manifest = new BackupManifest(Instant.now(), applied, timestamp,
                    HexFormat.of().formatHex(chain), offset, id, epoch,
                    Map.of(BackupManifest.STORE, hash(store), BackupManifest.SEED, hash(seed)));
            Backup backup = describe(dir, BackupVerifier.verify(dir, manifest, null));
            manifest.write(dir);
            DurableFiles.syncDirectory(dir);
            LOG.log(Level.INFO, "backup in {0}: store at sequence {1}, {2} bytes, verified, in {3} ms", dir,
                    Long.toString(applied), Long.toString(backup.bytes()), (System.nanoTime() - started) / 1_000_000);
            return backup;
        }
    }

    @Override
    public Backup verify(Path directory) throws IOException {
        Path dir = directory.toAbsolutePath().normalize();
        return describe(dir, BackupVerifier.verify(dir));
    }

    private static Backup describe(Path dir, BackupVerifier.Verified v) {
        BackupManifest m = v.manifest();
        return new Backup(dir, m.appliedSequence(), m.appliedTimestampNs(), m.chainHex(), m.replicationId(),
                m.epoch(), v.bytes(), m.createdAt());
    }

    private long timestampOf(long sequence) {
        if (sequence == 0) {
            return 0;
        }
        long[] ts = {0};
        journal.read(sequence - 1, new EntryVisitor() {
            @Override
            public boolean entry(long s, long timestampNs, long keyHash, byte tag, byte[] payload) {
                ts[0] = timestampNs;
                return false;
            }

            @Override
            public void skipped(long s) {
                // a fragment of the command that ends at the sequence: its timestamp comes with it
            }
        });
        return ts[0];
    }

    private static BackupManifest.FileHash hash(Path file) throws IOException {
        return new BackupManifest.FileHash(Files.size(file), BackupVerifier.sha256Hex(file));
    }

    private static boolean hasEntries(Path dir) throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.findAny().isPresent();
        }
    }
}
