package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.journal.Fixtures.readAll;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplPayload;

/** Recovery properties: a clean reopen reads back exactly what was appended; a torn tail leaves a valid prefix. */
class JournalPropertiesTest {

    /** One append: a command (sometimes larger than one entry) or a Tick. */
    record Op(byte tag, long keyHash, byte[] payload) {
    }

    @Provide
    Arbitrary<List<List<Op>>> batches() {
        Arbitrary<byte[]> smallArg = Arbitraries.bytes().array(byte[].class).ofMaxSize(40);
        Arbitrary<byte[]> bigArg = Arbitraries.integers().between(60_000, 150_000)
                .map(n -> new byte[n]);
        Arbitrary<byte[]> arg = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(12, smallArg), net.jqwik.api.Tuple.of(1, bigArg));
        Arbitrary<Op> app = Combinators.combine(arg.list().ofMinSize(1).ofMaxSize(4), Arbitraries.longs())
                .as((args, kh) -> new Op(Fixtures.APP, kh, CommandPayload.encode(args.toArray(byte[][]::new))));
        Arbitrary<Op> tick = Arbitraries.longs().map(ts -> new Op(Fixtures.TICK, 0, Fixtures.tick(ts)));
        Arbitrary<Op> op = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, app), net.jqwik.api.Tuple.of(1, tick));
        return op.list().ofMinSize(1).ofMaxSize(12).list().ofMinSize(1).ofMaxSize(5);
    }

    @Property(tries = 25)
    void aCleanReopenReadsBackWhatWasAppended(@ForAll("batches") List<List<Op>> batches,
            @ForAll @IntRange(min = 0, max = 1) int smallSegments) throws Exception {
        Path dir = Files.createTempDirectory("journal-prop");
        try {
            JournalSettings settings = JournalSettings.defaults(dir)
                    .withSegmentSize(smallSegments == 1 ? JournalSettings.MIN_SEGMENT_SIZE : 1 << 30);
            List<Fixtures.Delivered> expected = new ArrayList<>();
            long offset = 0;
            long ts = 1_000;
            byte[] chain;
            long last;
            try (SegmentedJournal j = Fixtures.open(settings)) {
                for (List<Op> batch : batches) {
                    for (Op op : batch) {
                        ts += 7;
                        long seq = Fixtures.append(j, ts, op.keyHash(), op.tag(), op.payload());
                        expected.add(new Fixtures.Delivered(seq, ts, op.keyHash(), op.tag(), op.payload()));
                        offset += FrplPayload.length(op.tag(), ts, op.payload());
                    }
                    j.awaitDurable(j.lastSequence());
                }
                chain = j.chainValue();
                last = j.lastSequence();
                assertThat(j.replicationOffset()).isEqualTo(offset);
                assertThat(readAll(j, 0).entries).containsExactlyElementsOf(expected);
            }
            try (SegmentedJournal j = Fixtures.open(settings)) {
                Fixtures.Collector c = readAll(j, 0);
                assertThat(c.entries).containsExactlyElementsOf(expected);
                assertThat(c.skipped).isEmpty();
                assertThat(j.lastSequence()).isEqualTo(last).isEqualTo(j.durableSequence());
                assertThat(j.chainValue()).isEqualTo(chain);
                assertThat(j.replicationOffset()).isEqualTo(offset);
                assertThat(j.status().replicationOffset()).isEqualTo(offset);
                assertThat(j.verify()).isNull();
                // reading from the middle delivers the same suffix
                int mid = expected.size() / 2;
                long after = mid == 0 ? 0 : expected.get(mid - 1).sequence();
                assertThat(readAll(j, after).entries).containsExactlyElementsOf(expected.subList(mid, expected.size()));
            }
        } finally {
            Fixtures.deleteTree(dir);
        }
    }

    @Property(tries = 25)
    void aTornLiveTailLeavesAValidPrefixWithEveryEntryBeforeTheCut(@ForAll("batches") List<List<Op>> batches,
            @ForAll @DoubleRange(min = 0, max = 1) double cutAt, @ForAll @IntRange(min = 0, max = 3000) int zeros)
            throws Exception {
        Path dir = Files.createTempDirectory("journal-torn");
        try {
            JournalSettings settings = JournalSettings.defaults(dir);
            List<Fixtures.Delivered> appended = new ArrayList<>();
            List<long[]> firstSequences = new ArrayList<>();
            long ts = 5_000;
            try (SegmentedJournal j = Fixtures.open(settings)) {
                for (List<Op> batch : batches) {
                    for (Op op : batch) {
                        ts += 3;
                        long first = j.lastSequence() + 1;
                        long seq = Fixtures.append(j, ts, op.keyHash(), op.tag(), op.payload());
                        appended.add(new Fixtures.Delivered(seq, ts, op.keyHash(), op.tag(), op.payload()));
                        firstSequences.add(new long[] {first, seq});
                    }
                }
                j.awaitDurable(j.lastSequence());
            }
            Path live = dir.resolve(Segment.LIVE);
            List<long[]> bounds = Fixtures.entryBounds(live);
            long size = Files.size(live);
            long cut = 4096 + (long) ((size - 4096) * cutAt);
            long survivors = bounds.stream().filter(b -> b[2] <= cut).count();
            try (FileChannel ch = FileChannel.open(live, StandardOpenOption.WRITE)) {
                ch.truncate(cut);
                ch.write(java.nio.ByteBuffer.allocate(zeros), cut); // a zero-filled extent after the tear
            }
            try (SegmentedJournal j = Fixtures.open(settings)) {
                assertThat(j.lastSequence()).isEqualTo(survivors);
                assertThat(j.verify()).isNull();
                assertThat(Files.size(live)).isEqualTo(survivors == 0 ? 4096 : bounds.get((int) survivors - 1)[2]);
                List<Fixtures.Delivered> complete = new ArrayList<>();
                long dangling = 0;
                for (int i = 0; i < appended.size(); i++) {
                    if (appended.get(i).sequence() <= survivors) {
                        complete.add(appended.get(i));
                    } else if (firstSequences.get(i)[0] <= survivors) {
                        dangling = firstSequences.get(i)[0];
                    }
                }
                Fixtures.Collector c = readAll(j, 0);
                assertThat(c.entries).containsExactlyElementsOf(complete);
                assertThat(c.skipped).isEmpty();

                long seq = Fixtures.append(j, ts + 1, 9, Fixtures.APP, Fixtures.command("SET", "after", "tear"));
                j.awaitDurable(seq);
                c = readAll(j, 0);
                Fixtures.Delivered tail = c.entries.get(c.entries.size() - 1);
                assertThat(tail.sequence()).isEqualTo(seq);
                assertThat(tail.payload()).isEqualTo(Fixtures.command("SET", "after", "tear"));
                if (dangling > 0) {
                    List<Long> lost = new ArrayList<>();
                    for (long s = dangling; s <= survivors; s++) {
                        lost.add(s);
                    }
                    assertThat(c.skipped).containsExactlyElementsOf(lost);
                    assertThat(c.entries.get(c.entries.size() - 2).tag()).isEqualTo(Fixtures.TICK);
                } else {
                    assertThat(c.skipped).isEmpty();
                    assertThat(seq).isEqualTo(survivors + 1);
                }
                assertThat(j.verify()).isNull();
            }
        } finally {
            Fixtures.deleteTree(dir);
        }
    }

}
