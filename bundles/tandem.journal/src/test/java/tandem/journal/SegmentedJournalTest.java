package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.journal.Fixtures.command;
import static tandem.journal.Fixtures.readAll;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.journal.JournalStatus;
import tandem.journal.tool.JournalToolAccess;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;

@Timeout(30)
class SegmentedJournalTest {

    @TempDir
    Path dir;

    private long appendN(SegmentedJournal j, int n, String prefix) throws InterruptedException {
        long seq = 0;
        for (int i = 0; i < n; i++) {
            seq = Fixtures.append(j, 1_000 + j.lastSequence(), i, Fixtures.APP, command("SET", prefix + i, "v" + i));
        }
        j.awaitDurable(seq);
        return seq;
    }

    @Test
    void aNewJournalStartsAtSequenceOneWithARandomAnchor() {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            JournalStatus s = j.status();
            assertThat(s.firstSequence()).isZero();
            assertThat(s.lastSequence()).isZero();
            assertThat(s.durableSequence()).isZero();
            assertThat(s.segments()).isEqualTo(1);
            assertThat(s.replicationOffset()).isZero();
            assertThat(s.stoppedReason()).isNull();
            assertThat(j.segmentList().get(0).startSequence).isEqualTo(1);
            assertThat(s.chainHex()).isEqualTo(ChainHash.hex(j.segmentList().get(0).anchor)).isNotEqualTo("00".repeat(32));
            assertThat(Files.exists(dir.resolve("journal"))).isTrue();
        }
    }

    @Test
    void rotationContinuesTheChainAndReadsCrossSegments() throws Exception {
        JournalSettings settings = JournalSettings.defaults(dir).withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE);
        try (SegmentedJournal j = Fixtures.open(settings)) {
            appendN(j, 10, "a");
            j.rotate();
            j.rotate(); // the live segment is empty: nothing happens
            assertThat(j.segmentList()).hasSize(2);
            // by size: about 2 KB per entry, the 64 KiB threshold is crossed after ~30 entries
            for (int i = 0; i < 80; i++) {
                // one batch each, so that the size check after each batch sees every threshold crossing
                j.awaitDurable(Fixtures.append(j, 5_000 + i, 0, Fixtures.APP,
                        command("SET", "k" + i, "x".repeat(2000))));
            }
            List<Segment> segs = j.segmentList();
            assertThat(segs.size()).isGreaterThanOrEqualTo(4);
            for (int i = 1; i < segs.size(); i++) {
                assertThat(segs.get(i).anchor).isEqualTo(segs.get(i - 1).tailChain);
                assertThat(segs.get(i).startSequence).isEqualTo(segs.get(i - 1).lastSequence + 1);
                assertThat(segs.get(i).headerOffset).isEqualTo(segs.get(i - 1).endOffset);
                assertThat(segs.get(i - 1).name()).isEqualTo(Segment.archiveName(i));
            }
            Fixtures.Collector all = readAll(j, 0);
            assertThat(all.entries).hasSize(90);
            for (int i = 0; i < 90; i++) {
                assertThat(all.entries.get(i).sequence()).isEqualTo(i + 1);
            }
            assertThat(readAll(j, 40).entries).extracting(Fixtures.Delivered::sequence).startsWith(41L)
                    .endsWith(90L).hasSize(50);
            assertThat(j.verify()).isNull();

            Inspection inspection = Inspection.of(dir, Fixtures.MEASURE);
            assertThat(inspection.problem()).isNull();
            assertThat(inspection.segments()).hasSize(segs.size());
            for (int i = 1; i < inspection.segments().size(); i++) {
                assertThat(inspection.segments().get(i).anchorHex())
                        .isEqualTo(inspection.segments().get(i - 1).tailChainHex());
            }
        }
    }

    @Test
    void verifyReportsItsProgressEveryFewMebibytesAndAtTheEnd() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            byte[] big = Fixtures.bigCommand(64 * 1024, (byte) 'x');
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 200; i++) { // about 12.5 MiB per segment
                    Fixtures.append(j, System.nanoTime(), 0, Fixtures.APP, big);
                }
                j.awaitDurable(j.lastSequence());
                j.rotate();
            }
            List<long[]> reports = new java.util.ArrayList<>();
            assertThat(j.verify((bytes, total) -> reports.add(new long[] {bytes, total}))).isNull();
            long total = reports.get(reports.size() - 1)[1];
            assertThat(total).as("every segment's bytes").isEqualTo(j.status().bytes());
            assertThat(reports.get(reports.size() - 1)[0]).isEqualTo(total);
            assertThat(reports.size()).as("a report per %d bytes", SegmentScanner.PROGRESS_STEP)
                    .isGreaterThanOrEqualTo((int) (total / SegmentScanner.PROGRESS_STEP));
            for (int i = 1; i < reports.size(); i++) {
                assertThat(reports.get(i)[0]).isGreaterThan(reports.get(i - 1)[0]);
                assertThat(reports.get(i)[1]).isEqualTo(total);
            }
        }
    }

    @Test
    void purgeDeletesOnlyArchivesAtOrBelowTheAppliedSequence() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            appendN(j, 5, "a");
            j.rotate(); // journal.000001: 1..5
            appendN(j, 5, "b");
            j.rotate(); // journal.000002: 6..10
            appendN(j, 5, "c"); // live: 11..15
            assertThat(j.purge(4)).isZero();
            assertThat(j.purge(7)).isEqualTo(1);
            assertThat(Files.exists(dir.resolve("journal.000001"))).isFalse();
            assertThat(Files.exists(dir.resolve("journal.000002"))).isTrue();
            assertThatThrownBy(() -> j.read(4, (s, t, k, g, p) -> true))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no longer retained");
            assertThat(readAll(j, 5).entries).hasSize(10);
            assertThat(j.status().firstSequence()).isEqualTo(6);
            assertThat(j.purge(1_000)).isEqualTo(1); // never the live segment
            assertThat(j.segmentList()).hasSize(1);
            assertThat(readAll(j, 10).entries).hasSize(5);
            assertThat(j.verify()).isNull();
        }
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            assertThat(j.lastSequence()).isEqualTo(15);
            assertThat(j.status().firstSequence()).isEqualTo(11);
        }
    }

    @Test
    void retentionKeepsAppliedArchivesWithinTheCaps() throws Exception {
        JournalSettings settings = JournalSettings.defaults(dir).withRetention(1L << 30, 3600);
        try (SegmentedJournal j = Fixtures.open(settings)) {
            appendN(j, 5, "a");
            j.rotate();
            appendN(j, 5, "b");
            assertThat(j.purge(100)).isZero();
            j.reconfigure(settings.withRetention(0, 3600));
            assertThat(j.purge(100)).isEqualTo(1);
        }
    }

    @Test
    void aCorruptArchivedEntryFailsTheOpenAndVerifyNamingTheSequence() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            appendN(j, 5, "a");
            j.rotate();
            appendN(j, 5, "b");
            j.rotate();
            appendN(j, 5, "c");
            assertThat(j.verify()).isNull();
            List<long[]> bounds = Fixtures.entryBounds(dir.resolve("journal.000002"));
            long[] third = bounds.get(2);
            assertThat(third[0]).isEqualTo(8);
            flip(dir.resolve("journal.000002"), third[1] + JournalEntry.PAYLOAD_OFFSET + 3);
            assertThat(j.verify()).isEqualTo("sequence 8 in journal.000002: CRC mismatch (offset " + third[1] + ")");
        }
        assertThatThrownBy(() -> Fixtures.open(JournalSettings.defaults(dir)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("journal.000002: entry at sequence 8: CRC mismatch (offset " + bounds(dir)[2] + ")");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(JournalToolAccess.run(new String[] {dir.toString()}, new PrintStream(out, true))).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("journal.000001").contains(
                "BROKEN: journal.000002: entry at sequence 8: CRC mismatch");
    }

    private static long[] bounds(Path dir) throws Exception {
        return Fixtures.entryBounds(dir.resolve("journal.000002")).get(1).clone();
    }

    @Test
    void aCorruptEntryFarFromTheLiveTailIsNotMistakenForATornWrite() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            appendN(j, 3, "a");
            for (int i = 0; i < 80; i++) {
                Fixtures.append(j, 9_000 + i, 0, Fixtures.APP, Fixtures.bigCommand(60_000, (byte) i));
            }
            j.awaitDurable(j.lastSequence());
        }
        flip(dir.resolve("journal"), Fixtures.entryBounds(dir.resolve("journal")).get(1)[1] + 40);
        assertThatThrownBy(() -> Fixtures.open(JournalSettings.defaults(dir)))
                .hasMessageStartingWith("journal: entry at sequence 2: CRC mismatch");
    }

    @Test
    void aRotationCutShortBeforeTheNewLiveSegmentIsCompletedAtOpen() throws Exception {
        byte[] chain;
        long offset;
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            appendN(j, 7, "a");
            j.rotate();
            chain = j.chainValue();
            offset = j.replicationOffset();
        }
        Files.delete(dir.resolve("journal")); // the crash hit after the rename, before the successor
        Files.write(dir.resolve("journal.tmp"), new byte[100]);
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            assertThat(j.lastSequence()).isEqualTo(7);
            assertThat(j.chainValue()).isEqualTo(chain);
            assertThat(j.replicationOffset()).isEqualTo(offset);
            assertThat(j.segmentList().get(1).startSequence).isEqualTo(8);
            assertThat(Files.exists(dir.resolve("journal.tmp"))).isFalse();
            appendN(j, 2, "b");
            assertThat(readAll(j, 0).entries).hasSize(9);
            assertThat(j.verify()).isNull();
        }
    }

    @Test
    void aCommandCutShortByACrashIsSkippedAndClosedByATick() throws Exception {
        byte[] big = Fixtures.bigCommand(3 * JournalEntry.MAX_PAYLOAD, (byte) 7);
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            assertThat(Fixtures.append(j, 100, 1, Fixtures.APP, command("SET", "a", "1"))).isEqualTo(1);
            // fragments 2, 3, 4 and the last at 5
            assertThat(Fixtures.append(j, 200, 2, Fixtures.APP, big)).isEqualTo(5);
            j.awaitDurable(5);
            Fixtures.Collector c = readAll(j, 0);
            assertThat(c.entries).extracting(Fixtures.Delivered::sequence).containsExactly(1L, 5L);
            assertThat(c.entries.get(1).payload()).isEqualTo(big);
            assertThat(readAll(j, 3).entries).extracting(Fixtures.Delivered::sequence).containsExactly(5L);
        }
        Path live = dir.resolve("journal");
        long[] third = Fixtures.entryBounds(live).get(2);
        try (FileChannel ch = FileChannel.open(live, StandardOpenOption.WRITE)) {
            ch.truncate(third[2] + 100); // fragments 2 and 3 whole, 4 torn
        }
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            assertThat(j.lastSequence()).isEqualTo(3);
            assertThat(Fixtures.append(j, 300, 3, Fixtures.APP, command("SET", "b", "2"))).isEqualTo(5);
            j.awaitDurable(5);
            Fixtures.Collector c = readAll(j, 0);
            assertThat(c.skipped).containsExactly(2L, 3L);
            assertThat(c.entries).extracting(Fixtures.Delivered::sequence).containsExactly(1L, 4L, 5L);
            assertThat(c.entries.get(1).tag()).isEqualTo(Fixtures.TICK);
            assertThat(c.entries.get(1).timestampNs()).isEqualTo(200);
            assertThat(c.entries.get(2).payload()).isEqualTo(command("SET", "b", "2"));
            assertThat(readAll(j, 2).skipped).containsExactly(3L);
            assertThat(j.verify()).isNull();
        }
    }

    @Test
    void archiveLineageStartsANewGenesisAndKeepsTheConfiguredNumber() throws Exception {
        JournalSettings settings = JournalSettings.defaults(dir);
        settings = new JournalSettings(dir, settings.segmentSize(), settings.waitStrategy(), 4096, 0, 0, 1);
        try (SegmentedJournal j = Fixtures.open(settings)) {
            appendN(j, 4, "a");
            j.rotate();
            appendN(j, 2, "b");
            String oldChain = j.status().chainHex();
            j.archiveLineage();
            assertThat(j.lastSequence()).isZero();
            assertThat(j.durableSequence()).isZero();
            assertThat(j.lastTimestampNs()).isPositive();
            assertThat(Files.exists(dir.resolve("lineage.1/journal.000001"))).isTrue();
            assertThat(Files.exists(dir.resolve("lineage.1/journal"))).isTrue();
            assertThat(j.status().chainHex()).isNotEqualTo(oldChain);
            assertThat(appendN(j, 3, "c")).isEqualTo(3);
            j.archiveLineage();
            assertThat(Files.exists(dir.resolve("lineage.1"))).isFalse();
            assertThat(Files.exists(dir.resolve("lineage.2/journal"))).isTrue();
            assertThat(appendN(j, 1, "d")).isEqualTo(1);
            assertThat(j.verify()).isNull();
        }
        try (SegmentedJournal j = Fixtures.open(settings)) {
            assertThat(j.lastSequence()).isEqualTo(1);
        }
    }

    @Test
    void theToolPrintsOneLinePerSegmentAndOk() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            appendN(j, 3, "a");
            j.rotate();
            appendN(j, 2, "b");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(JournalToolAccess.run(new String[] {dir.toString()}, new PrintStream(out, true))).isZero();
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).startsWith("journal.000001").contains("start=1 entries=3");
        assertThat(lines[1]).startsWith("journal ").contains("start=4 entries=2");
        assertThat(lines[2]).isEqualTo("OK");
        assertThat(JournalToolAccess.run(new String[0], new PrintStream(new ByteArrayOutputStream()))).isEqualTo(2);
    }

    @Test
    void appendRefusesWhatCannotBeJournaled() {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            byte[] ping = command("PING");
            long length = FrplPayload.length(Fixtures.APP, 1, ping);
            assertThatThrownBy(() -> j.append(-1, 0, Fixtures.APP, ping, length))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative timestamp");
            assertThatThrownBy(() -> j.append(1, 0, (byte) 0x81, ping, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be appended");
            assertThatThrownBy(() -> j.append(1, 0, Fixtures.TICK, new byte[JournalEntry.MAX_PAYLOAD + 1], 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-App");
            assertThatThrownBy(() -> j.append(1, 0, Fixtures.APP, ping, -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative replication offset");
            // a payload that is no command is refused by the caller's measure: the journal is told the length and
            // reads no payload for it
            assertThatThrownBy(() -> Fixtures.append(j, 1, 0, Fixtures.APP, new byte[] {1, 2}))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(j.lastSequence()).isZero();
        }
    }

    private static void flip(Path file, long at) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
            ch.write(b, at);
        }
    }
}
