package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

import org.bouncycastle.crypto.digests.Blake3Digest;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalStatus;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/**
 * Whatever the batching, the rotations and the chain thread's lag, every segment file is byte for byte the file
 * that hashing in step with the writes gives: rebuilt here from the appends alone (entries encoded, headers with
 * the anchor BLAKE3 gives over the predecessor's rebuilt bytes), with only the random genesis anchor and the
 * segment boundaries (which depend on timing) taken from the journal.
 */
class ChainPropertiesTest {

    record Op(byte tag, long keyHash, byte[] payload) {
    }

    /** A batch of appends, then: 0 go on, 1 await durability, 2 await and rotate. */
    record Batch(List<Op> ops, int then) {
    }

    @Provide
    Arbitrary<List<Batch>> batches() {
        Arbitrary<byte[]> smallArg = Arbitraries.bytes().array(byte[].class).ofMaxSize(1200);
        Arbitrary<byte[]> bigArg = Arbitraries.integers().between(60_000, 140_000).map(byte[]::new);
        Arbitrary<byte[]> arg = Arbitraries.frequencyOf(Tuple.of(20, smallArg), Tuple.of(1, bigArg));
        Arbitrary<Op> app = Combinators.combine(arg.list().ofMinSize(1).ofMaxSize(4), Arbitraries.longs())
                .as((args, kh) -> new Op(EntryTag.APP, kh, CommandPayload.encode(args.toArray(byte[][]::new))));
        Arbitrary<Op> tick = Arbitraries.longs().map(ts -> new Op(EntryTag.TICK, 0, Fixtures.tick(ts)));
        Arbitrary<Op> publish = Combinators.combine(smallArg, smallArg).as((channel, message) -> new Op(
                EntryTag.PUBLISH, 0, CommandPayload.encode(new byte[][] {"PUBLISH".getBytes(), channel, message})));
        Arbitrary<Op> op = Arbitraries.frequencyOf(Tuple.of(8, app), Tuple.of(1, tick), Tuple.of(1, publish));
        Arbitrary<Batch> batch = Combinators.combine(op.list().ofMinSize(1).ofMaxSize(40),
                Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(3, 1), Tuple.of(1, 2))).as(Batch::new);
        return batch.list().ofMinSize(1).ofMaxSize(12);
    }

    @Property(tries = 20)
    void filesAndChainsAreThoseOfHashingInStepWithTheWrites(@ForAll("batches") List<Batch> batches,
            @ForAll @IntRange(min = 0, max = 1) int smallSegments, @ForAll @IntRange(min = 0, max = 2) int slowChain)
            throws Exception {
        within(60, () -> check(batches, smallSegments, slowChain));
    }

    /** jqwik does not honour JUnit's @Timeout: a property that hangs fails here instead of stalling the build. */
    private static void within(int seconds, java.util.concurrent.Callable<Void> body) throws Exception {
        java.util.concurrent.FutureTask<Void> task = new java.util.concurrent.FutureTask<>(body);
        Thread t = new Thread(task, "chain-property");
        t.setDaemon(true);
        t.start();
        try {
            task.get(seconds, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw (Error) e.getCause();
        }
    }

    private static Void check(List<Batch> batches, int smallSegments, int slowChain) throws Exception {
        Path dir = Files.createTempDirectory("journal-chain-prop");
        try {
            JournalSettings settings = JournalSettings.defaults(dir)
                    .withSegmentSize(smallSegments == 1 ? JournalSettings.MIN_SEGMENT_SIZE : 1 << 30);
            Blake3Digest extra = new Blake3Digest();
            byte[] work = new byte[32 * 1024];
            LongConsumer beforeHash = sequence -> {
                for (int i = 0; i < slowChain; i++) {
                    extra.update(work, 0, work.length);
                }
            };
            List<Op> appended = new ArrayList<>();
            List<Long> timestamps = new ArrayList<>();
            long ts = 1_000;
            try (SegmentedJournal j = new SegmentedJournal(settings, Fixtures.MEASURE, FileIo.STANDARD,
                    Clock.systemUTC(),
                    beforeHash)) {
                for (Batch b : batches) {
                    for (Op op : b.ops()) {
                        ts += 11;
                        Fixtures.append(j, ts, op.keyHash(), op.tag(), op.payload());
                        appended.add(op);
                        timestamps.add(ts);
                    }
                    if (b.then() >= 1) {
                        j.awaitDurable(j.lastSequence());
                    }
                    if (b.then() == 2) {
                        j.rotate();
                    }
                }
                j.awaitDurable(j.lastSequence());
                // a rotation by size may still be under way: the chain at the last sequence is the same on either
                // side of it (an empty segment's value is its anchor, the sealed one's tail)
                byte[] chain = j.chainValue();
                JournalStatus status = j.status();
                assertThat(status.durableSequence()).isEqualTo(j.lastSequence());
                assertThat(j.verify()).isNull();
                j.close(); // the files and the segment list hold still from here on
                List<Segment> segs = j.segmentList();
                Expected expected = rebuild(appended, timestamps, segs);
                for (int i = 0; i < segs.size(); i++) {
                    assertThat(Files.readAllBytes(segs.get(i).path)).as(segs.get(i).name())
                            .isEqualTo(expected.files.get(i));
                }
                for (int i = 0; i + 1 < segs.size(); i++) {
                    assertThat(segs.get(i).tailChain).isEqualTo(segs.get(i + 1).anchor);
                }
                assertThat(chain).isEqualTo(expected.liveChain);
                assertThat(status.chainHex()).isEqualTo(ChainHash.hex(expected.liveChain));
                assertThat(j.chainValue()).isEqualTo(expected.liveChain);
                try (SegmentedJournal reopened = Fixtures.open(settings)) {
                    assertThat(reopened.chainValue()).isEqualTo(expected.liveChain);
                    assertThat(reopened.verify()).isNull();
                }
            }
        } finally {
            Fixtures.deleteTree(dir);
        }
        return null;
    }

    record Expected(List<byte[]> files, byte[] liveChain) {
    }

    /** The segment files as the appends and the journal's boundaries define them, hashed in one pass each. */
    private static Expected rebuild(List<Op> ops, List<Long> timestamps, List<Segment> segments) {
        List<byte[]> entries = new ArrayList<>(); // index = sequence - 1
        List<Long> offsetAfter = new ArrayList<>(); // replication offset after each sequence, at command ends
        CRC32C crc = new CRC32C();
        long offset = 0;
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            long ts = timestamps.get(i);
            byte[] p = op.payload();
            int at = 0;
            while (p.length - at > JournalEntry.MAX_PAYLOAD) {
                entries.add(entry(entries.size() + 1, ts, op.keyHash(), EntryTag.APP_CONTINUATION, p, at,
                        JournalEntry.MAX_PAYLOAD, crc));
                offsetAfter.add(-1L);
                at += JournalEntry.MAX_PAYLOAD;
            }
            entries.add(entry(entries.size() + 1, ts, op.keyHash(), op.tag(), p, at, p.length - at, crc));
            offset += FrplPayload.length(op.tag(), ts, p);
            offsetAfter.add(offset);
        }
        List<byte[]> files = new ArrayList<>();
        byte[] anchor = segments.get(0).anchor; // random at genesis: the one input not derived from the appends
        byte[] chain = anchor;
        for (int s = 0; s < segments.size(); s++) {
            long start = segments.get(s).startSequence;
            long end = s + 1 < segments.size() ? segments.get(s + 1).startSequence - 1 : entries.size();
            long headerOffset = start == 1 ? 0 : offsetAfter.get((int) start - 2);
            assertThat(headerOffset).as("a segment never starts inside a command").isNotNegative();
            ByteBuffer header = ByteBuffer.allocate(SegmentHeader.SIZE);
            SegmentHeader.encode(header, 0, start, anchor, headerOffset, crc);
            ByteArrayOutputStream file = new ByteArrayOutputStream();
            file.writeBytes(header.array());
            Blake3Digest d = new Blake3Digest();
            for (long q = start; q <= end; q++) {
                byte[] e = entries.get((int) q - 1);
                file.writeBytes(e);
                d.update(e, 0, e.length);
            }
            files.add(file.toByteArray());
            if (end >= start) {
                d.update(anchor, 0, anchor.length);
                chain = new byte[32];
                d.doFinal(chain, 0);
            } else {
                chain = anchor;
            }
            anchor = chain;
        }
        return new Expected(files, chain);
    }

    private static byte[] entry(long sequence, long ts, long keyHash, byte tag, byte[] payload, int at, int length,
            CRC32C crc) {
        ByteBuffer b = ByteBuffer.allocate(JournalEntry.sizeOf(length));
        JournalEntry.encode(b, 0, sequence, ts, keyHash, tag, payload, at, length, crc);
        return b.array();
    }
}
