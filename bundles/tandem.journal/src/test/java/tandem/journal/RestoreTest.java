package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.checkpoint.Backups;
import tandem.api.checkpoint.Checkpoints;
import tandem.protocol.journal.SegmentHeader;

/**
 * A backup taken from a real journal ({@link BackupHistory}), and restores from it across sealed segments copied as
 * an archive would hold them: each target reached exactly (a time, a sequence, just before a command, never inside a
 * fragmented command), the entries copied byte for byte under a fresh anchor; a missing segment, a damaged one, a
 * segment of another history, a damaged backup each refused with what is wrong named, leaving the home empty; and
 * the archive cleaned down to what a kept backup's restores read.
 */
@Timeout(60)
class RestoreTest {

    @TempDir
    Path dir;
    BackupHistory history;
    Path journalDir;
    Path archive;
    Path backup;
    SegmentedJournal journal;
    long big;
    long[] m;
    long flushall;
    long last;

    @BeforeEach
    void history() throws Exception {
        history = new BackupHistory(dir);
        journalDir = history.journalDir;
        archive = history.archive;
        backup = history.backup;
        journal = history.journal;
        big = history.big;
        m = history.m;
        flushall = history.flushall;
        last = history.last;
    }

    @org.junit.jupiter.api.AfterEach
    void close() {
        history.close();
    }

    private Checkpoints checkpoints(long applied) {
        return history.checkpoints(applied);
    }

    private List<BackupHistory.Sealed> sealed() {
        return history.sealed();
    }

    private String restore(Path home, Restore.Target target, Path... sources) throws IOException {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Restore.Result r = new Restore(backup, List.of(sources), target, home,
                new PrintStream(log, true, StandardCharsets.UTF_8)).run();
        return r.backupSequence() + ".." + r.sequence() + " next=" + r.next();
    }

    /** The sequences of the restored journal's entries, read as the node would read them. */
    private static List<Long> restoredSequences(Path home) throws IOException {
        List<Long> out = new ArrayList<>();
        String broken = Inspection.read(home.resolve("data/journal"), Fixtures.MEASURE,
                (seq, ts, kh, tag, payload) -> out.add(seq) || true);
        assertThat(broken).isNull();
        return out;
    }

    @Test
    void theBackupVerifiesAndDescribesItself() throws Exception {
        Backups.Backup b = new BackupComponent(checkpoints(5), journal, dir.resolve("home")).verify(backup);
        assertThat(b.appliedSequence()).isEqualTo(5);
        assertThat(b.timestampNs()).isEqualTo(BackupHistory.T + 5_000_000_000L);
        assertThat(b.chainHex()).isEqualTo(ChainHash.hex(journal.chainAt(5)));
        assertThat(Files.readString(backup.resolve(BackupManifest.FILE))).contains("applied_sequence=5\n");
        assertThatThrownBy(() -> new BackupComponent(checkpoints(5), journal, dir.resolve("home")).create(backup))
                .hasMessageContaining("is not an empty directory");
    }

    @Test
    void theNodesOwnBackupIsReplacedWhole() throws Exception {
        BackupComponent backups = new BackupComponent(checkpoints(5), journal, dir.resolve("home"));
        Backups.Backup first = backups.save();
        assertThat(first.directory()).isEqualTo(dir.resolve("home/data/backup"));
        BackupComponent later = new BackupComponent(checkpoints(10), journal, dir.resolve("home"));
        assertThat(later.save().appliedSequence()).isEqualTo(10);
        assertThat(BackupVerifier.verify(first.directory()).manifest().appliedSequence()).isEqualTo(10);
        try (var names = Files.list(dir.resolve("home/data"))) {
            assertThat(names.map(p -> p.getFileName().toString())).containsExactly("backup");
        }
        // a crash between setting the old one aside and putting the new one in place: the old one comes back
        Files.move(first.directory(), dir.resolve("home/data/backup.replaced"));
        Files.createDirectories(dir.resolve("home/data/backup.saving"));
        new BackupComponent(checkpoints(10), journal, dir.resolve("home"));
        assertThat(BackupVerifier.verify(first.directory()).manifest().appliedSequence()).isEqualTo(10);
        assertThat(dir.resolve("home/data/backup.saving")).doesNotExist();
    }

    @Test
    void restoresToEachKindOfTarget() throws Exception {
        assertThat(big).isGreaterThan(11); // the big command took several sequences, one per fragment
        assertThat(restore(dir.resolve("h1"), Restore.Target.before("flushall"), archive))
                .isEqualTo("5.." + m[2] + " next=" + flushall + "  2026-12-05T10:00:15Z  FLUSHALL");
        assertThat(restoredSequences(dir.resolve("h1"))).containsExactly(6L, 7L, 8L, 9L, 10L, big, m[0], m[1], m[2]);
        // a time between two entries: everything decided at or before it
        assertThat(restore(dir.resolve("h2"), Restore.Target.time(Instant.parse("2026-12-05T10:00:08.5Z")),
                archive)).startsWith("5..8 next=9  ");
        assertThat(restoredSequences(dir.resolve("h2"))).containsExactly(6L, 7L, 8L);
        assertThat(restore(dir.resolve("h3"), Restore.Target.sequence(5), archive)).isEqualTo("5..5 next=null");
        assertThat(restoredSequences(dir.resolve("h3"))).isEmpty();
        // past the archive, into the live segment of the node's journal directory
        assertThat(restore(dir.resolve("h4"), Restore.Target.sequence(last - 1), archive, journalDir))
                .isEqualTo("5.." + (last - 1) + " next=null");
        assertThat(restore(dir.resolve("h5"), Restore.Target.time(Instant.parse("2026-12-06T00:00:00Z")), archive,
                journalDir)).isEqualTo("5.." + last + " next=null");
        // without the journal directory, a moment after the archive's end cannot be told from a gap
        assertThatThrownBy(() -> restore(dir.resolve("h6"), Restore.Target.time(Instant.parse(
                "2026-12-06T00:00:00Z")), archive)).hasMessageContaining("the entries available end at sequence "
                        + flushall).hasMessageContaining("--journal HOME/data/journal");
        // the new journal continues at the backup with a fresh anchor and the backup's replication offset
        Inspection i = Inspection.of(dir.resolve("h4/data/journal"), Fixtures.MEASURE);
        assertThat(i.problem()).isNull();
        assertThat(i.segments().get(0).startSequence()).isEqualTo(6);
        assertThat(i.segments().get(0).anchorHex()).isNotEqualTo(ChainHash.hex(journal.chainAt(5)));
        assertThat(i.segments().get(0).replicationOffset()).isEqualTo(journal.offsetAfter(5));
        assertThat(i.segments().get(0).endReplicationOffset()).isEqualTo(journal.offsetAfter(last - 1));
        assertThat(Files.readString(dir.resolve("h4/data/store/000001.sst"))).isEqualTo("pretend sst");
    }

    @Test
    void aTargetInsideAFragmentedCommandStopsBeforeTheCommand() throws Exception {
        // the big command's fragments take sequences 11..big; a target among them restores up to 10
        assertThat(restore(dir.resolve("h"), Restore.Target.sequence(big - 1), archive))
                .startsWith("5..10 next=" + big + "  2026-12-05T10:00:11Z  SET big xxx");
        assertThat(restoredSequences(dir.resolve("h"))).containsExactly(6L, 7L, 8L, 9L, 10L);
    }

    @Test
    void aMissingSegmentIsNamedAndNothingIsLeft() throws Exception {
        List<BackupHistory.Sealed> sealed = sealed();
        Files.delete(archive.resolve(sealed.get(1).name().toString()));
        long from = sealed.get(1).name().firstSequence();
        Path home = dir.resolve("h");
        assertThatThrownBy(() -> restore(home, Restore.Target.before("FLUSHALL"), archive))
                .hasMessageContaining("no entry after the backup's sequence 5 up to 10 holds FLUSHALL")
                .hasMessageContaining("nothing in [" + archive + "] holds sequence " + from + " or later");
        assertThat(home.resolve("data/store")).doesNotExist();
        assertThat(home.resolve("data/journal")).doesNotExist();
        // an earlier target needs only what is there
        assertThat(restore(home, Restore.Target.sequence(9), archive)).isEqualTo("5..9 next=null");
    }

    @Test
    void aDamagedSegmentIsNamedUnlessASoundCopyIsThere() throws Exception {
        BackupHistory.Sealed second = sealed().get(1);
        Path damaged = archive.resolve(second.name().toString());
        try (RandomAccessFile f = new RandomAccessFile(damaged.toFile(), "rw")) {
            f.seek(Files.size(damaged) - 10);
            f.write(f.read() ^ 0x5A);
        }
        assertThatThrownBy(() -> restore(dir.resolve("h1"), Restore.Target.sequence(last), archive))
                .hasMessageStartingWith("damaged: " + damaged)
                .hasMessageContaining("no sound copy of the segment that starts at sequence " + second.name()
                        .firstSequence());
        // the node's journal directory holds the same segment, sound
        assertThat(restore(dir.resolve("h2"), Restore.Target.sequence(last), archive, journalDir))
                .isEqualTo("5.." + last + " next=null");
        // a target before the damage (in FLUSHALL's entry) needs nothing past it
        assertThat(restore(dir.resolve("h3"), Restore.Target.sequence(m[2]), archive))
                .isEqualTo("5.." + m[2] + " next=null");
    }

    @Test
    void aSegmentOfAnotherHistoryIsNeverTaken() throws Exception {
        BackupHistory.Sealed second = sealed().get(1);
        Path file = archive.resolve(second.name().toString());
        byte[] bytes = Files.readAllBytes(file);
        byte[] other = new byte[32];
        other[0] = 1;
        java.nio.ByteBuffer header = java.nio.ByteBuffer.wrap(bytes);
        SegmentHeader.encode(header, 0, second.name().firstSequence(), other, new SegmentHeader().wrap(header, 0)
                .replicationOffset(), new java.util.zip.CRC32C());
        Files.write(file, bytes);
        assertThatThrownBy(() -> restore(dir.resolve("h"), Restore.Target.sequence(last), archive))
                .hasMessageContaining("before the target sequence " + last + ": a segment starts at sequence "
                        + second.name().firstSequence() + " but belongs to another history");
    }

    @Test
    void aDamagedBackupOrATargetBeforeItIsRefused() throws Exception {
        assertThatThrownBy(() -> restore(dir.resolve("h1"), Restore.Target.sequence(4), archive))
                .hasMessageContaining("the backup holds the store at sequence 5")
                .hasMessageContaining("restore from an older backup");
        Path seed = backup.resolve(BackupManifest.SEED);
        byte[] b = Files.readAllBytes(seed);
        b[b.length - 1] ^= 1;
        Files.write(seed, b);
        assertThatThrownBy(() -> BackupVerifier.verify(backup)).hasMessageContaining(seed + ": SHA-256 ");
        assertThatThrownBy(() -> restore(dir.resolve("h2"), Restore.Target.sequence(9), archive))
                .hasMessageContaining(seed + ": SHA-256 ");
        assertThat(dir.resolve("h2/data/store")).doesNotExist();
        Files.delete(backup.resolve(BackupManifest.FILE));
        assertThatThrownBy(() -> BackupVerifier.verify(backup)).hasMessageContaining("has no MANIFEST");
    }

    @Test
    void cleaningTheArchiveDeletesOnlyWhatNoRestoreFromTheKeptBackupReads() throws Exception {
        Path first = backup;
        Path later = dir.resolve("later");
        new BackupComponent(checkpoints(m[0]), journal, dir.resolve("home")).create(later);
        List<BackupHistory.Sealed> sealed = sealed();
        Path oldest = archive.resolve(sealed.get(0).name().toString());
        Path crashed = Files.writeString(archive.resolve(oldest.getFileName() + ".tmp-0a1b2c3d"), "a crash's copy");
        Path writing = Files.writeString(archive.resolve(sealed.get(1).name() + ".tmp-0a1b2c3d"), "being written");
        Path other = Files.writeString(archive.resolve("notes.txt"), "an operator's");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);

        ArchiveCleanup.Result dry = ArchiveCleanup.run(archive, later, true, out);
        assertThat(dry.keptFrom()).as("the later backup's seed begins the second segment")
                .isEqualTo(sealed.get(1).name().firstSequence());
        assertThat(dry.removed()).containsExactly(oldest, crashed);
        assertThat(dry.bytes()).isEqualTo(Files.size(oldest) + Files.size(crashed));
        assertThat(oldest).exists();
        assertThat(log.toString(StandardCharsets.UTF_8)).isEqualTo("would remove " + oldest + "\nwould remove "
                + crashed + "\n");

        // a backup that does not verify deletes nothing
        Path seed = later.resolve(BackupManifest.SEED);
        byte[] sound = Files.readAllBytes(seed);
        byte[] flipped = sound.clone();
        flipped[flipped.length - 1] ^= 1;
        Files.write(seed, flipped);
        assertThatThrownBy(() -> ArchiveCleanup.run(archive, later, false, out))
                .hasMessageContaining(seed + ": SHA-256 ");
        assertThat(oldest).exists();
        Files.write(seed, sound);

        ArchiveCleanup.Result r = ArchiveCleanup.run(archive, later, false, out);
        assertThat(r.removed()).containsExactly(oldest, crashed);
        assertThat(r.kept()).isEqualTo(sealed.size() - 1);
        assertThat(oldest).doesNotExist();
        assertThat(crashed).doesNotExist();
        assertThat(writing).as("a temporary copy of a segment still needed may be being written").exists();
        assertThat(other).as("only archived segments' names are touched").exists();
        assertThat(ArchiveCleanup.run(archive, later, false, out).removed()).as("nothing more to delete").isEmpty();

        // the kept backup restores through what is left; the older one now misses its first segment, named
        backup = later;
        assertThat(restore(dir.resolve("h1"), Restore.Target.before("FLUSHALL"), archive))
                .isEqualTo(m[0] + ".." + m[2] + " next=" + flushall + "  2026-12-05T10:00:15Z  FLUSHALL");
        backup = first;
        assertThatThrownBy(() -> restore(dir.resolve("h2"), Restore.Target.sequence(9), archive))
                .hasMessageContaining("sequences 1.." + sealed.get(0).name().lastSequence() + " are missing from ["
                        + archive + "]");
    }
}
