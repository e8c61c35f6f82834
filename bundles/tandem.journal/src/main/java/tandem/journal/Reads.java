package tandem.journal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.JournalReader;
import tandem.api.journal.SegmentInfo;
import tandem.api.journal.SlotVisitor;
import tandem.journal.ChainHasher.ChainPoint;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/**
 * Reading what is durable, from the files: entries from any retained sequence (fragments joined) or as slots, the
 * chain value at a sequence, a snapshot's segment seed, and a check of every segment. A reader that follows the
 * journal resumes where its last read of a segment stopped; any other read starts at the segment's index point.
 */
final class Reads {

    private final Path directory;
    private final SegmentSet segments;
    private final Durability durability;
    private final ChainHasher chain;
    private final OffsetMeasure measure;

    Reads(Path directory, SegmentSet segments, Durability durability, ChainHasher chain, OffsetMeasure measure) {
        this.directory = directory;
        this.segments = segments;
        this.durability = durability;
        this.chain = chain;
        this.measure = measure;
    }

    /** @see JournalReader#read */
    void read(long afterSequence, EntryVisitor visitor) {
        long durable = durability.sequence();
        List<Segment> snapshot = segments.snapshot();
        long from = afterSequence + 1;
        long first = snapshot.get(0).startSequence;
        if (from < first) {
            throw new IllegalArgumentException("sequence " + from + " is no longer retained: the journal in "
                    + directory + " starts at " + first);
        }
        if (afterSequence >= durable) {
            return;
        }
        int i = snapshot.size() - 1;
        while (snapshot.get(i).startSequence > from) {
            i--;
        }
        Reader reader = new Reader(afterSequence, durable, visitor);
        try {
            for (; i < snapshot.size() && !reader.stopped; i++) {
                reader.readSegment(snapshot.get(i), from);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the journal in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** @see JournalReader#readSlots */
    void readSlots(long afterSequence, SlotVisitor visitor) {
        long durable = durability.sequence();
        List<Segment> snapshot = segments.snapshot();
        long first = snapshot.get(0).startSequence;
        if (afterSequence + 1 < first) {
            throw new IllegalArgumentException("sequence " + (afterSequence + 1) + " is no longer retained: the "
                    + "journal in " + directory + " starts at " + first);
        }
        int i = snapshot.size() - 1;
        while (i > 0 && snapshot.get(i).startSequence > afterSequence + 1) {
            i--;
        }
        long position = afterSequence;
        try {
            for (; i < snapshot.size(); i++) {
                Segment seg = snapshot.get(i);
                if (seg.startSequence > 1 && position == seg.startSequence - 1
                        && !visitor.segment(seg.startSequence, seg.anchor.clone())) {
                    return;
                }
                if (position >= durable) {
                    continue;
                }
                long[] at = {position};
                boolean more = forEachEntry(seg, position + 1, (e, cursor) -> {
                    long seq = e.sequence();
                    if (seq > durable) {
                        return false;
                    }
                    if (seq <= at[0]) {
                        return true;
                    }
                    ByteBuffer slot = ByteBuffer.wrap(cursor.array(), cursor.entryPosition()
                            + JournalEntry.SLOT_OFFSET, e.size() - 6).slice().order(ByteOrder.LITTLE_ENDIAN);
                    if (!visitor.slot(seq, slot)) {
                        return false;
                    }
                    at[0] = seq;
                    return true;
                });
                position = at[0];
                if (!more) {
                    return;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the journal in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads a segment's durable bytes from the index point at or before sequence {@code from} (its first entry when
     * {@code from} is 0), or from where the last read of it stopped when that is nearer, and hands each entry over
     * until the handler stops.
     *
     * @return false when the handler stopped the read
     */
    private boolean forEachEntry(Segment segment, long from, EntryCursor.Handler handler) throws IOException {
        SegmentSet.View view;
        try {
            view = segments.view(segment);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("sequence " + Math.max(from, segment.startSequence)
                    + " is no longer retained in " + directory, e);
        }
        long limit = view.limit();
        long start = SegmentHeader.SIZE;
        long[] point = from > 0 ? segment.index.floor(from) : null;
        if (point != null) {
            start = point[1];
        }
        // a reader that follows the journal (a replica's apply, a stream) resumes where the last read stopped
        // instead of re-reading from the index point
        long[] resume = segment.resume;
        if (from > 0 && resume != null && resume[0] < from && resume[1] > start && resume[1] <= limit) {
            start = resume[1];
        }
        long[] last = {0, 0};
        try {
            return EntryCursor.walk(view.channel(), start, limit, segment.name(), (e, cursor) -> {
                if (!handler.entry(e, cursor)) {
                    return false;
                }
                last[0] = e.sequence();
                last[1] = cursor.entryOffset() + e.size();
                return true;
            });
        } finally {
            if (last[0] > 0) {
                segment.resume = last;
            }
        }
    }

    /** Delivers entries, joining fragment groups; discards a group that another entry cuts short. */
    private final class Reader {
        final long after;
        final long durable;
        final EntryVisitor visitor;
        final ByteArrayOutputStream group = new ByteArrayOutputStream();
        long groupStart;
        boolean stopped;

        Reader(long after, long durable, EntryVisitor visitor) {
            this.after = after;
            this.durable = durable;
            this.visitor = visitor;
        }

        void readSegment(Segment segment, long from) throws IOException {
            // inside an open fragment group the read starts at the segment's start, not at an index point
            boolean more = forEachEntry(segment, groupStart == 0 ? from : 0, (e, cursor) -> {
                long seq = e.sequence();
                return seq <= durable && deliver(seq, e, cursor.array());
            });
            stopped = !more;
        }

        private boolean deliver(long seq, JournalEntry e, byte[] array) {
            byte tag = e.tag();
            if (tag == EntryTag.APP_CONTINUATION) {
                if (groupStart == 0) {
                    groupStart = seq;
                    group.reset();
                }
                group.write(array, e.payloadOffset(), e.payloadLength());
                return true;
            }
            byte[] payload;
            if (tag == EntryTag.APP && groupStart != 0) {
                group.write(array, e.payloadOffset(), e.payloadLength());
                payload = group.toByteArray();
                group.reset();
                groupStart = 0;
            } else {
                if (groupStart != 0) {
                    for (long s = Math.max(groupStart, after + 1); s < seq; s++) {
                        visitor.skipped(s);
                    }
                    group.reset();
                    groupStart = 0;
                }
                payload = e.payload();
            }
            if (seq <= after) {
                return true;
            }
            return visitor.entry(seq, e.timestampNs(), e.keyHash(), tag, payload);
        }
    }

    /** @see JournalReader#chainAt */
    byte[] chainAt(long sequence) {
        if (sequence > durability.sequence()) {
            return null;
        }
        List<Segment> snapshot = segments.snapshot();
        for (int i = snapshot.size() - 1; i >= 0; i--) {
            Segment seg = snapshot.get(i);
            if (seg.startSequence == sequence + 1) {
                return seg.anchor.clone();
            }
            if (seg.startSequence <= sequence) {
                if (sequence > seg.lastSequence) {
                    return null;
                }
                if (sequence == seg.lastSequence && seg.archiveNumber > 0) {
                    return seg.tailChain.clone();
                }
                ChainPoint p = chain.valued();
                if (p.sequence() == sequence && seg.archiveNumber == 0) {
                    return p.value().clone();
                }
                try {
                    return scanChain(seg, sequence);
                } catch (IOException e) {
                    throw new UncheckedIOException("reading " + seg.name() + ": " + e.getMessage(), e);
                }
            }
        }
        return null;
    }

    /** The chain at {@code sequence} by re-hashing the segment's entries up to it. */
    private static byte[] scanChain(Segment seg, long sequence) throws IOException {
        ChainHash c = new ChainHash(seg.anchor);
        try (FileChannel ch = FileChannel.open(seg.path, StandardOpenOption.READ)) {
            EntryCursor cursor = new EntryCursor(ch, SegmentHeader.SIZE, seg.bytes);
            while (cursor.next() >= 0) {
                JournalEntry e = cursor.entry();
                c.absorb(cursor.array(), cursor.entryPosition(), e.size());
                if (e.sequence() == sequence) {
                    return c.value();
                }
            }
        }
        return null;
    }

    /** @see JournalReader#segments */
    List<SegmentInfo> segments() {
        List<SegmentInfo> out = new ArrayList<>();
        for (Segment seg : segments.snapshot()) {
            out.add(new SegmentInfo(seg.name(), seg.startSequence, seg.lastSequence, seg.anchor.clone(),
                    seg.headerOffset, seg.archiveNumber > 0));
        }
        return out;
    }

    /** @see JournalReader#writeSeed */
    long writeSeed(long snapSequence, WritableByteChannel out) throws IOException {
        if (snapSequence > durability.sequence()) {
            throw new IllegalArgumentException("sequence " + snapSequence + " is not durable");
        }
        Segment holder = null;
        for (Segment seg : segments.snapshot()) {
            if (seg.startSequence <= snapSequence + 1 && snapSequence <= seg.lastSequence) {
                holder = seg;
            } else if (seg.startSequence == snapSequence + 1) {
                holder = seg; // the snapshot sits at its start: the seed is its header
            }
        }
        if (holder == null) {
            throw new IllegalArgumentException("no retained segment of " + directory + " holds sequence "
                    + (snapSequence + 1));
        }
        long end = SegmentHeader.SIZE;
        if (snapSequence >= holder.startSequence) {
            long[] found = {-1};
            forEachEntry(holder, snapSequence, (e, cursor) -> {
                if (e.sequence() == snapSequence) {
                    found[0] = cursor.entryOffset() + e.size();
                    return false;
                }
                return e.sequence() < snapSequence;
            });
            if (found[0] < 0) {
                throw new IllegalArgumentException("sequence " + snapSequence + " not found in " + holder.name());
            }
            end = found[0];
        }
        FileChannel ch = holder.readChannel();
        long at = 0;
        while (at < end) {
            long n = ch.transferTo(at, end - at, out);
            if (n <= 0) {
                throw new IOException("the seed of " + holder.name() + " stopped at byte " + at + " of " + end);
            }
            at += n;
        }
        return end;
    }

    /** @see JournalReader#verify(JournalReader.Progress); {@code progress} null: never told */
    String verify(JournalReader.Progress progress) {
        List<FileChannel> channels = new ArrayList<>();
        List<SegmentScanner.Source> sources = new ArrayList<>();
        try {
            chain.awaitHashed(durability::sequence); // so that the value checked covers what was durable at the call
            byte[] expectedChain = segments.whileStill(list -> {
                // the point moves on with the chain thread, but always in step with the live segment's end
                ChainPoint p = chain.valued();
                for (Segment seg : list) {
                    FileChannel ch = FileChannel.open(seg.path, StandardOpenOption.READ);
                    channels.add(ch);
                    boolean isLive = seg.archiveNumber == 0;
                    sources.add(new SegmentScanner.Source(seg.path, seg.archiveNumber, ch, isLive,
                            isLive ? p.segmentEnd() : Long.MAX_VALUE));
                }
                return p.value();
            });
            SegmentScanner.Result result = new SegmentScanner(measure, progress).scan(sources, false);
            if (result.broken != null) {
                return result.broken.verifyMessage();
            }
            Segment tail = result.segments.get(result.segments.size() - 1);
            if (!Arrays.equals(tail.tailChain, expectedChain)) {
                return Segment.LIVE + ": the chain value of the file (" + ChainHash.hex(tail.tailChain)
                        + ") differs from the journal's (" + ChainHash.hex(expectedChain) + ")";
            }
            return null;
        } catch (IOException e) {
            return "cannot read the journal in " + directory + ": " + e;
        } finally {
            for (FileChannel ch : channels) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // read-only
                }
            }
        }
    }
}
