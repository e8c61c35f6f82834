package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.JournalAppender;
import tandem.api.journal.ReplicaJournal;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/** Shared helpers: what was appended, what a read delivers, entry boundaries of a file, bounded waits. */
final class Fixtures {

    private Fixtures() {
    }

    /** The node's measure of the replication offset, as the journal component gives it. */
    static final OffsetMeasure MEASURE = FrplPayload::length;

    /** Each replica's measure of what it is fed, fragments included, as a replica's receiver keeps one. */
    private static final Map<ReplicaJournal, FrplPayload.Fragments> FRAGMENTS =
            Collections.synchronizedMap(new IdentityHashMap<>());

    /** Opens a journal with the node's measure. */
    static SegmentedJournal open(JournalSettings settings) {
        return new SegmentedJournal(settings, MEASURE);
    }

    /** Appends as the node does: with the FRPL length the caller computes. */
    static long append(JournalAppender j, long timestampNs, long keyHash, byte tag, byte[] payload) {
        return j.append(timestampNs, keyHash, tag, payload, FrplPayload.length(tag, timestampNs, payload));
    }

    /** Appends a primary's entry as a replica's receiver does: the offset length measured as fragments come. */
    static void appendReplicated(ReplicaJournal replica, long sequence, long timestampNs, long keyHash,
            long requestSeq, byte tag, ByteBuffer payload) {
        long length = FRAGMENTS.computeIfAbsent(replica, r -> new FrplPayload.Fragments()).length(sequence,
                timestampNs, tag, payload);
        replica.appendReplicated(sequence, timestampNs, keyHash, requestSeq, tag, payload, length);
    }

    record Delivered(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Delivered d && d.sequence == sequence && d.timestampNs == timestampNs
                    && d.keyHash == keyHash && d.tag == tag && java.util.Arrays.equals(d.payload, payload);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(sequence);
        }

        @Override
        public String toString() {
            return "#" + sequence + " tag=" + tag + " ts=" + timestampNs + " len=" + payload.length;
        }
    }

    static final class Collector implements EntryVisitor {
        final List<Delivered> entries = new ArrayList<>();
        final List<Long> skipped = new ArrayList<>();

        @Override
        public boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {
            entries.add(new Delivered(sequence, timestampNs, keyHash, tag, payload));
            return true;
        }

        @Override
        public void skipped(long sequence) {
            skipped.add(sequence);
        }
    }

    static Collector readAll(SegmentedJournal j, long after) {
        Collector c = new Collector();
        j.read(after, c);
        return c;
    }

    static byte[] command(String... args) {
        byte[][] a = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            a[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return CommandPayload.encode(a);
    }

    /** A SET whose value makes the payload {@code size}-ish bytes long. */
    static byte[] bigCommand(int size, byte fill) {
        byte[] value = new byte[size];
        java.util.Arrays.fill(value, fill);
        return CommandPayload.encode(new byte[][] {"SET".getBytes(StandardCharsets.US_ASCII),
                "big".getBytes(StandardCharsets.US_ASCII), value});
    }

    static byte[] tick(long ts) {
        return ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(ts).array();
    }

    /** @return the end offset of every valid entry of a segment file, in order */
    static List<long[]> entryBounds(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
        CRC32C crc = new CRC32C();
        JournalEntry e = new JournalEntry();
        List<long[]> out = new ArrayList<>();
        int p = SegmentHeader.SIZE;
        while (true) {
            int r = JournalEntry.check(b, p, b.capacity(), crc);
            if (r <= 0) {
                return out;
            }
            e.wrap(b, p);
            out.add(new long[] {e.sequence(), p, p + r, e.tag()});
            p += r;
        }
    }

    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static boolean isFragmenting(byte[] payload) {
        return payload.length > JournalEntry.MAX_PAYLOAD;
    }

    static final byte APP = EntryTag.APP;
    static final byte TICK = EntryTag.TICK;
}
