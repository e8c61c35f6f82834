package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.journal.Fixtures.await;
import static tandem.journal.Fixtures.command;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalTap;
import tandem.api.journal.SegmentInfo;
import tandem.protocol.journal.ArchivedSegmentName;
import tandem.protocol.journal.JournalEntry;

/**
 * The journal archive: sealed segments copied byte for byte under their archive names, on rotation and when the
 * journal opens; the purge held back until a segment is archived; a failing archive reported and retried; a shared
 * archive; the directory switched live.
 */
@Timeout(30)
class JournalArchiveTest {

    @TempDir
    Path dir;

    private Path journalDir() {
        return dir.resolve("journal");
    }

    private JournalSettings settings(Path archive) {
        // retention keeps nothing: whatever stays in the journal stays because of the archive
        return JournalSettings.defaults(journalDir()).withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE)
                .withRetention(0, 0).withArchive(archive, 0);
    }

    private static SegmentedJournal open(JournalSettings settings) {
        SegmentedJournal j = Fixtures.open(settings);
        j.archiver().timing(10, 50, 20);
        return j;
    }

    /** Appends a few entries and seals them into a segment. */
    private static void sealOne(SegmentedJournal j, String prefix) throws InterruptedException {
        long seq = 0;
        for (int i = 0; i < 5; i++) {
            seq = Fixtures.append(j, 1_000 + j.lastSequence(), i, Fixtures.APP, command("SET", prefix + i, "v" + i));
        }
        j.awaitDurable(seq);
        j.rotate();
    }

    private static List<Segment> sealed(SegmentedJournal j) {
        return j.segmentList().stream().filter(s -> s.archiveNumber > 0).toList();
    }

    private static String archiveName(Segment s) {
        return ArchivedSegmentName.of(s.startSequence, s.lastSequence, s.tailChain).toString();
    }

    private static List<String> names(Path archive) throws IOException {
        try (Stream<Path> files = Files.list(archive)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static void awaitArchived(SegmentedJournal j, long segments) {
        await(() -> j.archiveStatus().archivedSegments() >= segments && j.archiveStatus().pendingSegments() == 0,
                segments + " segments archived");
    }

    @Test
    void sealedSegmentsAreArchivedByteForByteUnderTheirNames() throws Exception {
        Path archive = Files.createDirectory(dir.resolve("archive"));
        try (SegmentedJournal j = open(settings(archive))) {
            sealOne(j, "a");
            sealOne(j, "b");
            awaitArchived(j, 2);

            List<Segment> sealed = sealed(j);
            assertThat(names(archive)).containsExactly(archiveName(sealed.get(0)), archiveName(sealed.get(1)));
            for (Segment s : sealed) {
                assertThat(Files.readAllBytes(archive.resolve(archiveName(s)))).isEqualTo(Files.readAllBytes(s.path));
            }
            ArchiveStatus st = j.archiveStatus();
            assertThat(st.directory()).isEqualTo(archive.toString());
            assertThat(st.archivedSequence()).isEqualTo(10);
            assertThat(st.pendingEntries()).isZero();
            assertThat(st.pendingBytes()).isZero();
            assertThat(st.lastArchived()).isEqualTo(archiveName(sealed.get(1)));
            assertThat(st.lastArchivedAtMillis()).isPositive();
            assertThat(st.failures()).isZero();
            assertThat(st.failing()).isFalse();

            long live = Fixtures.append(j, 5_000, 0, Fixtures.APP, command("SET", "c", "1"));
            j.awaitDurable(live);
            // the live segment is archived once sealed: its entries are the lag
            assertThat(j.archiveStatus().pendingEntries()).isEqualTo(1);
            assertThat(j.purge(live)).isEqualTo(2); // archived: retention alone decides, and it keeps none
        }
    }

    @Test
    void segmentsSealedBeforeArchivingAreArchivedWhenTheJournalOpensAndAnIdenticalFileCountsAsArchived()
            throws Exception {
        Path archive = Files.createDirectory(dir.resolve("archive"));
        List<String> expected = new ArrayList<>();
        try (SegmentedJournal j = open(settings(null))) {
            sealOne(j, "a");
            sealOne(j, "b");
            sealOne(j, "c");
            assertThat(j.archiveStatus()).isNull();
            for (Segment s : sealed(j)) {
                expected.add(archiveName(s));
            }
            // the first is there already, as a journal replica sharing the archive would have left it
            Files.copy(sealed(j).get(0).path, archive.resolve(expected.get(0)));
        }
        long before = Files.getLastModifiedTime(archive.resolve(expected.get(0))).toMillis();
        try (SegmentedJournal j = open(settings(archive))) {
            awaitArchived(j, 3);
            assertThat(names(archive)).containsExactlyElementsOf(expected);
            for (Segment s : sealed(j)) {
                assertThat(Files.readAllBytes(archive.resolve(archiveName(s)))).isEqualTo(Files.readAllBytes(s.path));
            }
            assertThat(Files.getLastModifiedTime(archive.resolve(expected.get(0))).toMillis()).isEqualTo(before);
            assertThat(j.archiveStatus().archivedSequence()).isEqualTo(15);
        }
    }

    @Test
    void aFailingArchiveIsReportedKeepsEverySegmentOverRetentionAndResumesOnceFixed() throws Exception {
        Path archive = dir.resolve("archive");
        Files.writeString(archive, "a file where the archive directory should be");
        try (SegmentedJournal j = open(settings(archive))) {
            sealOne(j, "a");
            sealOne(j, "b");
            await(() -> j.archiveStatus().failures() > 0, "a failure");
            ArchiveStatus st = j.archiveStatus();
            assertThat(st.failing()).isTrue();
            assertThat(st.lastError()).contains(archive.toString()).contains("not a directory");
            assertThat(st.lastFailed()).contains("journal.000001");
            assertThat(st.lastErrorAtMillis()).isPositive();
            assertThat(st.archivedSequence()).isZero();
            assertThat(st.pendingSegments()).isEqualTo(2);
            assertThat(st.pendingEntries()).isEqualTo(10);

            assertThat(j.purge(j.durableSequence())).isZero(); // over retention.max.bytes=0, yet kept
            assertThat(sealed(j)).hasSize(2);

            Files.delete(archive);
            Files.createDirectory(archive);
            awaitArchived(j, 2);
            assertThat(j.archiveStatus().failing()).isFalse();
            assertThat(j.archiveStatus().failures()).isPositive(); // counted, not forgotten
            assertThat(names(archive)).hasSize(2); // no temporary file left
            assertThat(j.purge(j.durableSequence())).isEqualTo(2);
        }
    }

    @Test
    void segmentsSealedDuringABackoffWaitForItAndAChangedDirectoryIsTriedAtOnce() throws Exception {
        Path missing = dir.resolve("missing");
        try (SegmentedJournal j = open(settings(missing))) {
            j.archiver().timing(60_000, 60_000, 20);
            sealOne(j, "a");
            await(() -> j.archiveStatus().failures() == 1, "the first failure");
            // each seal signals the archiver; none may cut the minute's backoff short
            sealOne(j, "b");
            sealOne(j, "c");
            sealOne(j, "d");
            Path fixed = Files.createDirectory(dir.resolve("archive"));
            j.reconfigure(j.settings().withArchive(fixed, 0));
            awaitArchived(j, 4);
            assertThat(j.archiveStatus().failures()).isEqualTo(1);
            assertThat(names(fixed)).hasSize(4);
        }
    }

    @Test
    void aFileOfTheSameNameWithOtherContentIsNeverReplaced() throws Exception {
        Path archive = Files.createDirectory(dir.resolve("archive"));
        String name;
        try (SegmentedJournal j = open(settings(null))) {
            sealOne(j, "a");
            name = archiveName(sealed(j).get(0));
        }
        Files.writeString(archive.resolve(name), "something else");
        try (SegmentedJournal j = open(settings(archive))) {
            await(() -> j.archiveStatus().failing(), "the archive to fail");
            assertThat(j.archiveStatus().lastError()).contains(name).contains("other content");
            assertThat(j.purge(j.durableSequence())).isZero();
            assertThat(Files.readString(archive.resolve(name))).isEqualTo("something else");

            Files.delete(archive.resolve(name)); // the operator decides
            awaitArchived(j, 1);
            assertThat(Files.readAllBytes(archive.resolve(name))).isEqualTo(
                    Files.readAllBytes(sealed(j).get(0).path));
        }
    }

    @Test
    void aLineageSetAsideIsNotArchivedAfterwards() throws Exception {
        Path archive = dir.resolve("archive"); // missing: nothing gets archived
        try (SegmentedJournal j = open(settings(archive))) {
            sealOne(j, "a");
            await(() -> j.archiveStatus().failing(), "the archive to fail");
            assertThat(j.archiveStatus().lastError()).contains("does not exist");
            j.archiveLineage();
            await(() -> !j.archiveStatus().failing(), "nothing left to archive");
            ArchiveStatus st = j.archiveStatus();
            assertThat(st.pendingSegments()).isZero();
            assertThat(st.archivedSequence()).isZero(); // the new genesis starts at 1
            assertThat(st.pendingEntries()).isZero();
            assertThat(Files.exists(archive)).isFalse();
            assertThat(Files.exists(journalDir().resolve("lineage.1").resolve("journal.000001"))).isTrue();
        }
    }

    @Test
    void aPrimaryAndItsJournalReplicaShareOneArchive() throws Exception {
        Path archive = Files.createDirectory(dir.resolve("archive"));
        JournalSettings p = settings(archive);
        JournalSettings r = JournalSettings.defaults(dir.resolve("replica"))
                .withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE).withRetention(0, 0).withArchive(archive, 0);
        try (SegmentedJournal primary = open(p); SegmentedJournal replica = open(r)) {
            replica.rotateBySize(false);
            SegmentInfo origin = primary.segments().get(0);
            replica.adopt(origin.startSequence(), origin.anchor(), origin.replicationOffset());
            Forward tap = new Forward(replica);
            primary.tap(tap);
            sealOne(primary, "a");
            sealOne(primary, "b");
            tap.drain();
            replica.awaitDurable(replica.lastSequence());
            awaitArchived(primary, 2);
            awaitArchived(replica, 2);
            assertThat(names(archive)).containsExactly(archiveName(sealed(primary).get(0)),
                    archiveName(sealed(primary).get(1)));
            assertThat(primary.archiveStatus().failures() + replica.archiveStatus().failures()).isZero();
            assertThat(replica.archiveStatus().archivedSequence()).isEqualTo(10);
        }
    }

    /** What a journal-protocol replica does with its primary's batches and rotations, on the test's thread. */
    private static final class Forward implements JournalTap {
        private final SegmentedJournal replica;
        private final ConcurrentLinkedQueue<Runnable> steps = new ConcurrentLinkedQueue<>();

        Forward(SegmentedJournal replica) {
            this.replica = replica;
        }

        @Override
        public void batch(ByteBuffer entries, int count, long firstSequence, long lastSequence) {
            ByteBuffer b = entries.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            JournalEntry e = new JournalEntry();
            for (int p = b.position(); p < b.limit(); p += e.size()) {
                e.wrap(b, p);
                byte[] one = new byte[e.size()];
                b.get(p, one);
                steps.add(() -> {
                    JournalEntry x = new JournalEntry();
                    x.wrap(ByteBuffer.wrap(one).order(ByteOrder.LITTLE_ENDIAN), 0);
                    Fixtures.appendReplicated(replica, x.sequence(), x.timestampNs(), x.keyHash(), x.requestSeq(),
                            x.tag(), ByteBuffer.wrap(one, x.payloadOffset(), x.payloadLength()));
                });
            }
        }

        @Override
        public void rotated(long boundarySequence, byte[] tailHash) {
            steps.add(() -> replica.rotateAt(boundarySequence, tailHash));
        }

        @Override
        public void chainCheck(long sequence, byte[] chainHash) {
        }

        void drain() {
            Runnable step;
            while ((step = steps.poll()) != null) {
                step.run();
            }
        }
    }

    @Test
    void aPrimarySealsTheLiveSegmentOnceItsFirstEntryIsOlderThanTheInterval() throws Exception {
        Path archive = Files.createDirectory(dir.resolve("archive"));
        try (SegmentedJournal j = open(settings(archive).withArchive(archive, 1))) {
            long old = (System.currentTimeMillis() - 5_000) * 1_000_000;
            long seq = Fixtures.append(j, old, 0, Fixtures.APP, command("SET", "a", "1"));
            j.awaitDurable(seq);
            awaitArchived(j, 1); // no rotate(), no size reached
            assertThat(sealed(j)).hasSize(1);
            assertThat(j.archiveStatus().archivedSequence()).isEqualTo(seq);
        }
    }

    @Test
    void aReplicaSealsOnlyWhereItsPrimaryDoes() throws Exception {
        Path archive = Files.createDirectory(dir.resolve("archive"));
        try (SegmentedJournal j = open(settings(archive).withArchive(archive, 1))) {
            j.rotateBySize(false);
            long old = (System.currentTimeMillis() - 5_000) * 1_000_000;
            long seq = Fixtures.append(j, old, 0, Fixtures.APP, command("SET", "a", "1"));
            j.awaitDurable(seq);
            // two checks after the entry: a primary would have sealed at the first
            long checks = j.archiver().sealChecks();
            await(() -> j.archiver().sealChecks() >= checks + 2, "two interval checks");
            assertThat(sealed(j)).isEmpty();
            assertThat(j.archiveStatus().pendingEntries()).isEqualTo(1);
        }
    }

    @Test
    void theComponentSwitchesTheArchiveLiveAndValidatesIt() throws Exception {
        Path home = dir;
        Files.createDirectory(home.resolve("a"));
        Files.createDirectory(home.resolve("b"));
        Map<String, Object> props = new HashMap<>();
        props.put("segment.size", JournalSettings.MIN_SEGMENT_SIZE);
        props.put("retention.max.bytes", 0);
        props.put("retention.max.age.seconds", 0);
        props.put("archive.directory", "a");
        JournalComponent c = new JournalComponent(config(props), () -> home);
        try {
            c.archiver().timing(10, 50, 20);
            assertThat(c.settings().archiveDirectory()).isEqualTo(home.resolve("a"));
            sealOne(c, "x");
            awaitArchived(c, 1);
            String name = archiveName(sealed(c).get(0));
            assertThat(names(home.resolve("a"))).containsExactly(name);

            props.put("archive.directory", home.resolve("b").toString());
            c.modified(config(props));
            // the segment is not archived in b yet: it moves on to the new directory
            await(() -> Files.exists(home.resolve("b").resolve(name))
                    && c.archiveStatus().pendingSegments() == 0, "archived in b");
            assertThat(c.archiveStatus().directory()).isEqualTo(home.resolve("b").toString());

            props.put("archive.directory", home.resolve("data/journal").toString());
            c.modified(config(props)); // refused: the running configuration stays
            assertThat(c.settings().archiveDirectory()).isEqualTo(home.resolve("b"));

            Files.delete(home.resolve("b").resolve(name));
            Files.delete(home.resolve("b"));
            sealOne(c, "y");
            await(() -> c.archiveStatus().failing(), "the archive to fail");
            assertThat(c.purge(c.durableSequence())).isEqualTo(1); // the archived one, not the other
            assertThat(sealed(c)).hasSize(1);

            props.put("archive.directory", "");
            c.modified(config(props));
            assertThat(c.archiveStatus()).isNull();
            assertThat(c.purge(c.durableSequence())).isEqualTo(1); // the guard went with the archive
        } finally {
            c.deactivate();
        }
    }

    @Test
    void invalidArchiveSettingsNameTheirProperty() {
        assertThatThrownBy(() -> JournalSettings.of(config(Map.of("archive.interval.seconds", -1)), () -> dir))
                .hasMessageContaining("tandem.journal: archive.interval.seconds=-1 is invalid");
        assertThatThrownBy(() -> JournalSettings.of(config(Map.of("archive.directory", "data/journal")), () -> dir))
                .hasMessageContaining("archive.directory=data/journal is invalid: is the journal's own directory");
        JournalSettings none = JournalSettings.of(config(Map.of()), () -> dir);
        assertThat(none.archiveDirectory()).isNull();
        assertThat(none.archiveIntervalSeconds()).isZero();
    }

    private static JournalComponent.Config config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(JournalComponent.Config.class);
    }
}
