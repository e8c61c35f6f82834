package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.journal.Fixtures.bigCommand;
import static tandem.journal.Fixtures.command;
import static tandem.journal.Fixtures.tick;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.protocol.frpl.FrplPayload;

/**
 * The psync offset of every entry, looked up both ways, equals the FRPL bytes of every complete command before it,
 * across rotations, fragment groups and entries without frames, in the running journal and after it reopened (the
 * index rebuilt from the files); an offset inside a command or outside the retained journal is no boundary.
 */
@Timeout(60)
class OffsetIndexTest {

    @TempDir
    Path dir;

    /** sequence → offset after it, for the entries that end a command (or carry no frames) */
    private static TreeMap<Long, Long> expected(SegmentedJournal j, long startOffset) {
        TreeMap<Long, Long> out = new TreeMap<>();
        long[] offset = {startOffset};
        j.read(0, new EntryVisitor() {
            @Override
            public boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {
                offset[0] += FrplPayload.length(tag, timestampNs, payload);
                out.put(sequence, offset[0]);
                return true;
            }
        });
        return out;
    }

    private static void check(SegmentedJournal j, TreeMap<Long, Long> boundaries) {
        for (var e : boundaries.entrySet()) {
            assertThat(j.offsetAfter(e.getKey())).as("offset after %d", e.getKey()).isEqualTo(e.getValue());
        }
        // the earliest sequence at each offset: entries without frames (EpochBump) share their predecessor's
        TreeMap<Long, Long> first = new TreeMap<>();
        first.put(0L, 0L);
        for (var e : boundaries.entrySet()) {
            first.putIfAbsent(e.getValue(), e.getKey());
        }
        for (var e : first.entrySet()) {
            assertThat(j.sequenceAtOffset(e.getKey())).as("sequence at offset %d", e.getKey())
                    .isEqualTo(e.getValue());
        }
        long last = boundaries.lastEntry().getValue();
        for (var e : boundaries.entrySet()) {
            Long next = boundaries.higherKey(e.getKey());
            if (next != null && boundaries.get(next) > e.getValue() + 1) {
                assertThat(j.sequenceAtOffset(e.getValue() + 1)).as("inside the command after %d", e.getKey())
                        .isEqualTo(-1);
            }
        }
        assertThat(j.sequenceAtOffset(last + 1)).isEqualTo(-1);
        assertThat(j.offsetAfter(j.durableSequence() + 1)).isEqualTo(-1);
    }

    @Test
    void offsetsMatchTheFrplBytesBothWaysAcrossRotationsFragmentsAndAReopen() throws Exception {
        JournalSettings settings = JournalSettings.defaults(dir).withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE);
        Random r = new Random(3);
        TreeMap<Long, Long> boundaries;
        try (SegmentedJournal j = Fixtures.open(settings)) {
            long ts = 1_700_000_000_000_000_000L;
            for (int i = 0; i < 3000; i++) {
                ts += 1 + r.nextInt(1000);
                int kind = r.nextInt(100);
                if (kind < 2) {
                    Fixtures.append(j, ts, 0, EntryTag.APP, bigCommand(70_000 + r.nextInt(100_000), (byte) 'z'));
                } else if (kind < 6) {
                    Fixtures.append(j, ts, 0, EntryTag.TICK, tick(ts));
                } else if (kind < 8) {
                    Fixtures.append(j, ts, 0, EntryTag.EPOCH_BUMP, new byte[8]);
                } else {
                    Fixtures.append(j, ts, 0, EntryTag.APP, command("SET", "k" + i, "v".repeat(r.nextInt(300))));
                }
                if (i % 700 == 699) {
                    j.rotate();
                }
            }
            j.awaitDurable(j.lastSequence());
            assertThat(j.segmentList().size()).isGreaterThan(3);
            boundaries = expected(j, 0);
            assertThat(boundaries.lastEntry().getValue()).isEqualTo(j.status().replicationOffset());
            check(j, boundaries);
        }
        try (SegmentedJournal again = Fixtures.open(settings)) {
            check(again, boundaries);
        }
    }

    /**
     * Found by the differential fuzzer: a rotation by size while the durable tail ended inside a fragment group
     * (its last fragments appended, not yet written: a command larger than a batch) split the group across two
     * segments, so that the new segment began with the tail of a command: its offsets could not be computed
     * ({@code ROLE} and {@code INFO replication} failed on the primary), and it read as broken.
     */
    @Test
    void aRotationBySizeNeverSplitsAFragmentGroup() throws Exception {
        JournalSettings settings = JournalSettings.defaults(dir).withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE);
        Random r = new Random(11);
        TreeMap<Long, Long> boundaries;
        try (SegmentedJournal j = Fixtures.open(settings)) {
            j.rotateBySize(true);
            long ts = 1_700_000_000_000_000_000L;
            for (int i = 0; i < 80; i++) {
                ts += 1 + r.nextInt(1000);
                long seq = r.nextInt(3) == 0
                        ? Fixtures.append(j, ts, 0, EntryTag.APP,
                                bigCommand(1_000_000 + r.nextInt(2_000_000), (byte) 'g'))
                        : Fixtures.append(j, ts, 0, EntryTag.APP, command("SET", "k" + i, "v".repeat(r.nextInt(3000))));
                if (r.nextInt(3) == 0) {
                    j.awaitDurable(seq);
                }
            }
            j.awaitDurable(j.lastSequence());
            assertThat(j.segmentList().size()).isGreaterThan(3);
            for (var seg : j.segmentList()) {
                j.read(seg.startSequence - 1, new EntryVisitor() {
                    @Override
                    public boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {
                        return false; // the first command of each segment reads whole
                    }
                });
            }
            boundaries = expected(j, 0);
            for (long s = 1; s <= j.durableSequence(); s++) {
                assertThat(j.offsetAfter(s)).as("offset after %d", s).isNotEqualTo(-2);
            }
            check(j, boundaries);
        }
        try (SegmentedJournal again = Fixtures.open(settings)) {
            assertThat(again.status().stoppedReason()).isNull();
            check(again, boundaries);
        }
    }

    /**
     * Found by the differential fuzzer: with many batches (one sync each) of large commands, an offset lookup of any
     * sequence — a replica acknowledges fragments too — never starts a scan inside a fragment group.
     */
    @Test
    void everySequenceHasAnOffsetWhateverTheBatchesAroundFragmentGroups() throws Exception {
        Random r = new Random(7);
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            long ts = 1_700_000_000_000_000_000L;
            for (int i = 0; i < 400; i++) {
                ts += 1 + r.nextInt(1000);
                long seq = r.nextInt(4) == 0
                        ? Fixtures.append(j, ts, 0, EntryTag.APP, bigCommand(60_000 + r.nextInt(300_000), (byte) 'q'))
                        : Fixtures.append(j, ts, 0, EntryTag.APP, command("SET", "k" + i, "v".repeat(r.nextInt(3000))));
                if (r.nextBoolean()) {
                    j.awaitDurable(seq);
                }
            }
            j.awaitDurable(j.lastSequence());
            TreeMap<Long, Long> boundaries = expected(j, 0);
            for (long s = 1; s <= j.durableSequence(); s++) {
                long after = j.offsetAfter(s);
                if (boundaries.containsKey(s)) {
                    assertThat(after).as("offset after %d", s).isEqualTo(boundaries.get(s));
                }
            }
            check(j, boundaries);
        }
    }

    @Test
    void beforeTheRetainedJournalThereIsNoBoundaryAndResetStartsAHistoryAtAnOffset() throws Exception {
        JournalSettings settings = JournalSettings.defaults(dir).withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE)
                .withRetention(0, 0);
        try (SegmentedJournal j = Fixtures.open(settings)) {
            long ts = 1;
            for (int i = 0; i < 2000; i++) {
                Fixtures.append(j, ts++, 0, EntryTag.APP, command("SET", "k" + i, "value-" + i));
            }
            j.rotate();
            Fixtures.append(j, ts++, 0, EntryTag.APP, command("SET", "tail", "x"));
            j.awaitDurable(j.lastSequence());
            long firstOffset = j.offsetAfter(100);
            assertThat(j.purge(2000)).isPositive();
            long retainedFrom = j.segmentList().get(0).startSequence;
            assertThat(j.sequenceAtOffset(firstOffset)).as("purged").isEqualTo(-1);
            assertThat(j.offsetAfter(50)).isEqualTo(-1);
            long atStart = j.segmentList().get(0).headerOffset;
            assertThat(j.sequenceAtOffset(atStart)).isEqualTo(retainedFrom - 1);

            long generation = j.generation();
            byte[] anchor = new byte[32];
            anchor[0] = 9;
            j.reset(5001, anchor, 777_777);
            assertThat(j.generation()).isGreaterThan(generation);
            assertThat(j.lastSequence()).isEqualTo(5000);
            assertThat(j.durableSequence()).isEqualTo(5000);
            assertThat(j.chainAt(5000)).isEqualTo(anchor);
            assertThat(j.status().replicationOffset()).isEqualTo(777_777);
            assertThat(j.sequenceAtOffset(777_777)).isEqualTo(5000);
            long seq = Fixtures.append(j, ts++, 0, EntryTag.APP, command("SET", "after", "reset"));
            j.awaitDurable(seq);
            assertThat(seq).isEqualTo(5001);
            assertThat(j.offsetAfter(5001)).isEqualTo(777_777 + FrplPayload.length(EntryTag.APP, ts - 1,
                    command("SET", "after", "reset")));
            List<String> lineages = new ArrayList<>();
            try (var ds = Files.list(dir)) {
                ds.filter(p -> p.getFileName().toString().startsWith("lineage.")).forEach(p -> lineages.add(
                        p.getFileName().toString()));
            }
            assertThat(lineages).as("the old history is archived").containsExactly("lineage.1");
        }
    }
}
