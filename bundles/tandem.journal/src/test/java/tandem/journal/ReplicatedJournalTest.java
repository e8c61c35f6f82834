package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.journal.Fixtures.bigCommand;
import static tandem.journal.Fixtures.command;
import static tandem.journal.Fixtures.readAll;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalTap;
import tandem.api.journal.SegmentInfo;
import tandem.api.journal.SlotVisitor;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;

/**
 * A replica's journal fed with its primary's entries (through a tap, as replication does) is byte-identical to the
 * primary's, segment by segment, and so has the same chain values.
 */
@Timeout(60)
class ReplicatedJournalTest {

    @TempDir
    Path dir;

    /** What a tap saw, in order: batches as slot lists, rotations, chain checks. */
    private static final class Recording implements JournalTap {
        final ConcurrentLinkedQueue<Object> events = new ConcurrentLinkedQueue<>();

        @Override
        public void batch(ByteBuffer entries, int count, long firstSequence, long lastSequence) {
            ByteBuffer b = entries.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            JournalEntry e = new JournalEntry();
            List<byte[]> entryBytes = new ArrayList<>();
            for (int p = b.position(); p < b.limit(); p += e.size()) {
                e.wrap(b, p);
                byte[] one = new byte[e.size()];
                b.get(p, one);
                entryBytes.add(one);
            }
            assertThat(entryBytes).hasSize(count);
            events.add(entryBytes);
        }

        @Override
        public void rotated(long boundarySequence, byte[] tailHash) {
            events.add(new Object[] {boundarySequence, tailHash});
        }

        @Override
        public void chainCheck(long sequence, byte[] chainHash) {
            events.add(new long[] {sequence});
        }
    }

    @SuppressWarnings("unchecked")
    private static void replay(Recording r, SegmentedJournal replica) {
        JournalEntry e = new JournalEntry();
        Object ev;
        while ((ev = r.events.poll()) != null) {
            if (ev instanceof List<?> list) {
                for (byte[] bytes : (List<byte[]>) list) {
                    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                    e.wrap(b, 0);
                    Fixtures.appendReplicated(replica, e.sequence(), e.timestampNs(), e.keyHash(), e.requestSeq(),
                            e.tag(),
                            ByteBuffer.wrap(bytes, e.payloadOffset(), e.payloadLength()));
                }
            } else if (ev instanceof Object[] rot) {
                replica.rotateAt((Long) rot[0], (byte[]) rot[1]);
            }
        }
    }

    @Test
    void aReplicaFedThroughATapIsByteIdenticalAcrossRotations() throws Exception {
        JournalSettings small = JournalSettings.defaults(dir.resolve("p")).withSegmentSize(
                JournalSettings.MIN_SEGMENT_SIZE);
        try (SegmentedJournal primary = Fixtures.open(small);
                SegmentedJournal replica = Fixtures.open(JournalSettings.defaults(dir.resolve("r"))
                        .withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE))) {
            replica.rotateBySize(false);
            SegmentInfo origin = primary.segments().get(0);
            replica.adopt(origin.startSequence(), origin.anchor(), origin.replicationOffset());
            Recording tap = new Recording();
            primary.tap(tap);
            long ts = 1_000;
            for (int i = 0; i < 400; i++) {
                Fixtures.append(primary, ts += 10, i, EntryTag.APP, command("SET", "k" + i, "v".repeat(i % 300)));
                if (i % 97 == 0) {
                    Fixtures.append(primary, ts, 0, EntryTag.APP, bigCommand(150_000, (byte) 'x')); // fragments
                }
                if (i % 7 == 0) {
                    primary.awaitDurable(primary.lastSequence());
                    replay(tap, replica);
                }
            }
            primary.awaitDurable(primary.lastSequence());
            primary.rotate();
            replay(tap, replica);
            replica.awaitDurable(replica.lastSequence());

            assertThat(primary.segments().size()).isGreaterThan(3);
            assertThat(replica.segments()).hasSameSizeAs(primary.segments());
            for (int i = 0; i < primary.segments().size(); i++) {
                Path p = primary.segmentList().get(i).path;
                Path r = replica.segmentList().get(i).path;
                assertThat(Files.readAllBytes(r)).as("segment %d", i).isEqualTo(Files.readAllBytes(p));
            }
            assertThat(replica.status().chainHex()).isEqualTo(primary.status().chainHex());
            assertThat(replica.status().replicationOffset()).isEqualTo(primary.status().replicationOffset());
            assertThat(replica.verify()).isNull();
            assertThat(readAll(replica, 0).entries).usingRecursiveFieldByFieldElementComparator().isEqualTo(readAll(primary, 0).entries);
        }
    }

    @Test
    void aRotationWhoseTailDiffersIsRefusedAndTheJournalStaysUsable() throws Exception {
        try (SegmentedJournal replica = Fixtures.open(JournalSettings.defaults(dir))) {
            Fixtures.appendReplicated(replica, 1, 10, 0, 0, EntryTag.APP, ByteBuffer.wrap(command("SET", "a", "b")));
            replica.awaitDurable(1);
            assertThatThrownBy(() -> replica.rotateAt(1, new byte[32 - 1])).isInstanceOf(
                    IllegalArgumentException.class);
            byte[] wrong = new byte[32];
            wrong[0] = 1;
            assertThatThrownBy(() -> replica.rotateAt(1, wrong)).hasMessageContaining("chain mismatch");
            assertThatThrownBy(() -> replica.rotateAt(5, wrong)).hasMessageContaining("last sequence is 1");
            byte[] right = replica.chainAt(1);
            replica.rotateAt(1, right);
            replica.rotateAt(1, right); // announced again: nothing happens
            assertThat(replica.segments()).hasSize(2);
            assertThat(replica.segments().get(1).anchor()).isEqualTo(right);
            Fixtures.appendReplicated(replica, 2, 10, 0, 0, EntryTag.TICK, ByteBuffer.wrap(new byte[8]));
            replica.awaitDurable(2);
            assertThat(replica.verify()).isNull();
        }
    }

    @Test
    void appendReplicatedRefusesGapsAndTimeGoingBack() {
        try (SegmentedJournal replica = Fixtures.open(JournalSettings.defaults(dir))) {
            assertThatThrownBy(() -> Fixtures.appendReplicated(replica, 2, 10, 0, 0, EntryTag.APP,
                    ByteBuffer.wrap(command("PING")))).hasMessageContaining("sequence 2 does not follow the "
                            + "journal's last 0");
            Fixtures.appendReplicated(replica, 1, 10, 0, 0, EntryTag.APP, ByteBuffer.wrap(command("SET", "a", "b")));
            assertThatThrownBy(() -> Fixtures.appendReplicated(replica, 2, 9, 0, 0, EntryTag.APP,
                    ByteBuffer.wrap(command("SET", "a", "b")))).hasMessageContaining("before the last one");
            assertThatThrownBy(() -> replica.appendReplicated(2, 11, 0, 0, (byte) 0x07,
                    ByteBuffer.wrap(new byte[1]), 0)).hasMessageContaining("cannot be appended");
            assertThatThrownBy(() -> replica.appendReplicated(2, 11, 0, 0, EntryTag.TICK,
                    ByteBuffer.wrap(new byte[8]), -1)).hasMessageContaining("negative replication offset");
        }
    }

    @Test
    void chainChecksCompareAtTheExactSequenceEvenInsideABatch() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            for (int i = 1; i <= 5; i++) {
                Fixtures.appendReplicated(j, i, 10 + i, 0, 0, EntryTag.APP,
                        ByteBuffer.wrap(command("SET", "k", "" + i)));
            }
            j.awaitDurable(5);
            byte[] at3 = j.chainAt(3);
            byte[] at5 = j.chainAt(5);
            assertThat(at3).isNotEqualTo(at5);
            assertThat(j.chainAt(6)).isNull();
            assertThat(j.checkChain(3, at3).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(j.checkChain(5, at3).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
            // not yet hashed: the chain thread stops at the sequence to compare
            for (int i = 6; i <= 9; i++) {
                Fixtures.appendReplicated(j, i, 20 + i, 0, 0, EntryTag.APP,
                        ByteBuffer.wrap(command("SET", "k", "" + i)));
            }
            var pending = j.checkChain(7, at3).toCompletableFuture();
            j.awaitDurable(9);
            byte[] at7 = j.chainAt(7);
            assertThat(pending.get(10, TimeUnit.SECONDS)).isEqualTo(java.util.Arrays.equals(at7, at3));
            assertThat(j.checkChain(8, j.chainAt(8)).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void readSlotsAnnouncesEachSegmentItEntersAndGivesTheEntriesMinusMagicAndCrc() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            long ts = 100;
            for (int i = 0; i < 3; i++) {
                Fixtures.append(j, ts++, 0, EntryTag.APP, command("SET", "a", "" + i));
            }
            j.awaitDurable(3);
            j.rotate();
            j.rotate(); // the live segment is empty: a no-op
            for (int i = 0; i < 2; i++) {
                Fixtures.append(j, ts++, 0, EntryTag.APP, command("SET", "b", "" + i));
            }
            j.awaitDurable(5);
            List<String> seen = new ArrayList<>();
            SlotVisitor v = new SlotVisitor() {
                @Override
                public boolean segment(long startSequence, byte[] anchor) {
                    assertThat(anchor).isEqualTo(j.chainAt(startSequence - 1));
                    seen.add("segment " + startSequence);
                    return true;
                }

                @Override
                public boolean slot(long sequence, ByteBuffer slot) {
                    assertThat(Short.toUnsignedInt(slot.getShort(slot.position())))
                            .isEqualTo(slot.remaining() - JournalEntry.SLOT_OVERHEAD + JournalEntry.LENGTH_BASE);
                    assertThat(slot.getLong(slot.position() + 2)).isEqualTo(sequence);
                    seen.add("slot " + sequence);
                    return true;
                }
            };
            j.readSlots(0, v);
            assertThat(seen).containsExactly("slot 1", "slot 2", "slot 3", "segment 4", "slot 4", "slot 5");
            seen.clear();
            j.readSlots(3, v); // a replica sitting on the boundary hears the rotation again
            assertThat(seen).containsExactly("segment 4", "slot 4", "slot 5");
            seen.clear();
            j.readSlots(5, v);
            assertThat(seen).isEmpty();
        }
    }

    @Test
    void adoptRefusesAJournalWithEntries() {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            Fixtures.append(j, 1, 0, EntryTag.APP, command("PING"));
            assertThatThrownBy(() -> j.adopt(1, new byte[32], 0)).hasMessageContaining("holds entries");
        }
    }

    @Test
    void anUntappedTapIsNoLongerCalled() throws Exception {
        try (SegmentedJournal j = Fixtures.open(JournalSettings.defaults(dir))) {
            Recording r = new Recording();
            j.tap(r);
            Fixtures.append(j, 1, 0, EntryTag.APP, command("SET", "a", "1"));
            j.awaitDurable(1);
            assertThat(r.events).hasSize(1);
            j.untap(r);
            Fixtures.append(j, 2, 0, EntryTag.APP, command("SET", "a", "2"));
            j.awaitDurable(2);
            assertThat(r.events).hasSize(1);
        }
    }

    /**
     * A replica's receiver that starts while its journal's tail is a command cut in mid-fragments (the node
     * restarted, or the replication bundle was updated, while the primary streamed it) reads the group's first
     * fragments back from the journal, so that the command's offset counts them: the replica's offsets stay the
     * primary's. A receiver that starts on a whole command reads nothing back.
     */
    @Test
    void aReceiverThatStartsInMidCommandMeasuresTheWholeCommand() throws Exception {
        try (SegmentedJournal primary = Fixtures.open(JournalSettings.defaults(dir.resolve("p")));
                SegmentedJournal replica = Fixtures.open(JournalSettings.defaults(dir.resolve("r")))) {
            SegmentInfo origin = primary.segments().get(0);
            replica.adopt(origin.startSequence(), origin.anchor(), origin.replicationOffset());
            long ts = 1_000;
            Fixtures.append(primary, ts, 1, EntryTag.APP, command("SET", "a", "1"));
            Fixtures.append(primary, ts, 2, EntryTag.APP, bigCommand(200_000, (byte) 'q')); // sequences 2..5
            Fixtures.append(primary, ts, 0, EntryTag.APP, command("SET", "b", "2"));
            primary.awaitDurable(primary.lastSequence());
            assertThat(primary.lastSequence()).isEqualTo(6);

            FrplPayload.Fragments first = new FrplPayload.Fragments();
            first.resume(replica);
            feed(primary, replica, first, 0, 3); // the command's first two fragments, then the link ends
            FrplPayload.Fragments next = new FrplPayload.Fragments();
            next.resume(replica);
            feed(primary, replica, next, 3, 6);

            replica.awaitDurable(6);
            assertThat(replica.status().replicationOffset()).isEqualTo(primary.status().replicationOffset());
            assertThat(replica.offsetAfter(5)).isEqualTo(primary.offsetAfter(5));
            assertThat(replica.status().chainHex()).isEqualTo(primary.status().chainHex());
            assertThat(replica.verify()).isNull();
        }
    }

    /** Appends the primary's entries {@code after + 1 .. last} to the replica, measured by {@code fragments}. */
    private static void feed(SegmentedJournal primary, SegmentedJournal replica, FrplPayload.Fragments fragments,
            long after, long last) {
        primary.readSlots(after, (sequence, slot) -> {
            int p = slot.position();
            long ts = slot.getLong(p + 10);
            byte tag = slot.get(p + 34);
            ByteBuffer body = slot.duplicate().position(p + 35);
            replica.appendReplicated(sequence, ts, slot.getLong(p + 18), slot.getLong(p + 26), tag, body,
                    fragments.length(sequence, ts, tag, body));
            return sequence < last;
        });
    }

    /** Feeds the replica every entry of the primary after {@code after}, announcing rotations as the primary does. */
    private static void catchUp(SegmentedJournal primary, SegmentedJournal replica, long after) {
        primary.readSlots(after, new SlotVisitor() {
            @Override
            public boolean segment(long startSequence, byte[] anchor) {
                replica.rotateAt(startSequence - 1, anchor);
                return true;
            }

            @Override
            public boolean slot(long sequence, ByteBuffer slot) {
                ByteBuffer b = slot.duplicate().order(ByteOrder.LITTLE_ENDIAN);
                int p = b.position();
                int payload = Short.toUnsignedInt(b.getShort(p)) - JournalEntry.LENGTH_BASE;
                ByteBuffer body = b.duplicate().position(p + 35).limit(p + 35 + payload);
                Fixtures.appendReplicated(replica, b.getLong(p + 2), b.getLong(p + 10), b.getLong(p + 18),
                        b.getLong(p + 26),
                        b.get(p + 34), body);
                return true;
            }
        });
    }

    @Test
    void aSeedAndTheEntriesAfterItMakeAReplicaByteIdenticalFromTheSnapshotOn() throws Exception {
        JournalSettings small = JournalSettings.defaults(dir.resolve("p")).withSegmentSize(
                JournalSettings.MIN_SEGMENT_SIZE);
        try (SegmentedJournal primary = Fixtures.open(small)) {
            long ts = 1_000;
            for (int i = 0; i < 300; i++) {
                Fixtures.append(primary, ts += 10, i, EntryTag.APP, command("SET", "k" + i, "v".repeat(500 + i % 700)));
                if (i % 10 == 9) {
                    primary.awaitDurable(primary.lastSequence()); // batches of ten: rotation is checked after each
                }
            }
            primary.awaitDurable(primary.lastSequence());
            // a control runs after every pending rotation by size: from here on the segments do not move
            Fixtures.append(primary, ts += 10, 0, EntryTag.APP, command("SET", "last", "x"));
            primary.rotate();
            Fixtures.append(primary, ts += 10, 0, EntryTag.APP, command("SET", "in-live", "x"));
            primary.awaitDurable(primary.lastSequence());
            List<SegmentInfo> segs = primary.segments();
            assertThat(segs.size()).isGreaterThan(2);
            long atBoundary = segs.get(1).startSequence() - 1; // the snapshot sits exactly at a segment's start
            long inside = segs.get(1).startSequence() + 3;
            long tip = primary.durableSequence();
            int n = 0;
            for (long snap : new long[] {inside, atBoundary, tip}) {
                Path seed = dir.resolve("seed" + n);
                long length;
                try (var out = java.nio.channels.FileChannel.open(seed, java.nio.file.StandardOpenOption.CREATE_NEW,
                        java.nio.file.StandardOpenOption.WRITE)) {
                    length = primary.writeSeed(snap, out);
                }
                assertThat(Files.size(seed)).isEqualTo(length);
                try (SegmentedJournal replica = Fixtures.open(JournalSettings.defaults(dir.resolve("r" + n))
                        .withSegmentSize(JournalSettings.MIN_SEGMENT_SIZE))) {
                    replica.rotateBySize(false);
                    Fixtures.append(replica, 5, 0, EntryTag.APP, command("SET", "stale", "history")); // to be archived
                    replica.awaitDurable(1);
                    long generation = replica.generation();
                    replica.installSeed(seed);
                    assertThat(replica.generation()).as("another history: a new generation").isGreaterThan(generation);
                    assertThat(replica.lastSequence()).isEqualTo(snap);
                    assertThat(replica.chainAt(snap)).isEqualTo(primary.chainAt(snap));
                    assertThat(Files.isDirectory(dir.resolve("r" + n).resolve("lineage.1"))).as("history kept").isTrue();
                    catchUp(primary, replica, snap);
                    replica.awaitDurable(replica.lastSequence());
                    assertThat(replica.lastSequence()).isEqualTo(tip);
                    assertThat(replica.status().chainHex()).isEqualTo(primary.status().chainHex());
                    assertThat(replica.status().replicationOffset()).isEqualTo(primary.status().replicationOffset());
                    assertThat(Files.readAllBytes(replica.segmentList().get(replica.segmentList().size() - 1).path))
                            .isEqualTo(Files.readAllBytes(primary.segmentList().get(segs.size() - 1).path));
                    assertThat(replica.verify()).isNull();
                }
                n++;
            }
        }
    }

    @Test
    void aSeedThatIsNotASoundSegmentChangesNothing() throws Exception {
        try (SegmentedJournal replica = Fixtures.open(JournalSettings.defaults(dir.resolve("r")))) {
            Fixtures.append(replica, 5, 0, EntryTag.APP, command("SET", "a", "1"));
            replica.awaitDurable(1);
            Path seed = dir.resolve("seed");
            Files.write(seed, new byte[100]);
            long generation = replica.generation();
            assertThatThrownBy(() -> replica.installSeed(seed)).hasMessageContaining("not a sound segment prefix");
            assertThat(replica.lastSequence()).isEqualTo(1);
            assertThat(replica.generation()).isEqualTo(generation);
            assertThat(replica.verify()).isNull();
        }
    }

    @Test
    void aSeedForASequenceNoSegmentHoldsIsRefused() throws Exception {
        try (SegmentedJournal primary = Fixtures.open(JournalSettings.defaults(dir.resolve("p")))) {
            Fixtures.append(primary, 5, 0, EntryTag.APP, command("SET", "a", "1"));
            primary.awaitDurable(1);
            assertThatThrownBy(() -> primary.writeSeed(7, java.nio.channels.Channels.newChannel(
                    new java.io.ByteArrayOutputStream()))).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
