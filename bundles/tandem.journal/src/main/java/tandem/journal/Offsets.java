package tandem.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import tandem.protocol.journal.SegmentHeader;

/**
 * The psync replication offset and the journal's sequences, both ways: each segment's header holds the offset at
 * its start, its sparse index the offset at points inside it, and a lookup reads the entries from the nearest point,
 * adding up their lengths as the appends that wrote them did ({@link OffsetCounter}).
 */
final class Offsets {

    private final Path directory;
    private final SegmentSet segments;
    private final Durability durability;
    private final OffsetMeasure measure;

    Offsets(Path directory, SegmentSet segments, Durability durability, OffsetMeasure measure) {
        this.directory = directory;
        this.segments = segments;
        this.durability = durability;
        this.measure = measure;
    }

    /** @see tandem.api.journal.PsyncOffsets#offsetAfter */
    long offsetAfter(long sequence) {
        if (sequence < 0 || sequence > durability.sequence()) {
            return -1;
        }
        for (Segment seg : segments.snapshot()) {
            if (sequence == seg.startSequence - 1) {
                return seg.headerOffset;
            }
            if (sequence < seg.startSequence || sequence > seg.lastSequence) {
                continue;
            }
            if (sequence == seg.lastSequence) {
                return seg.endOffset;
            }
            long[] result = {-1};
            scan(seg, seg.index.floor(sequence), (seq, after, boundary) -> {
                if (seq == sequence) {
                    result[0] = after;
                    return false;
                }
                return true;
            });
            return result[0];
        }
        return -1;
    }

    /** @see tandem.api.journal.PsyncOffsets#sequenceAtOffset */
    long sequenceAtOffset(long offset) {
        if (offset < 0 || offset > durability.offset()) {
            return -1;
        }
        for (Segment seg : segments.snapshot()) {
            if (offset < seg.headerOffset) {
                return -1; // before this segment, and after every earlier one: not a retained boundary
            }
            if (offset == seg.headerOffset) {
                return seg.startSequence - 1;
            }
            if (offset > seg.endOffset) {
                continue;
            }
            long[] point = seg.index.floorByOffset(offset);
            if (point != null && point[2] == offset) {
                return point[0] - 1;
            }
            long[] result = {-1};
            scan(seg, point, (seq, after, boundary) -> {
                if (!boundary) {
                    return true;
                }
                if (after == offset) {
                    result[0] = seq;
                }
                return after < offset;
            });
            return result[0];
        }
        return -1;
    }

    /** Sees each entry of a scan with the replication offset after it. */
    private interface OffsetVisitor {
        /**
         * @param boundary whether the entry ends a command (not a fragment): the offset after it is a point a psync
         *                 stream may resume at
         * @return false to stop
         */
        boolean entry(long sequence, long offsetAfter, boolean boundary);
    }

    /** Reads a segment's durable entries from an index point (its first entry when null), counting offsets. */
    private void scan(Segment seg, long[] point, OffsetVisitor visitor) {
        SegmentSet.View view;
        try {
            view = segments.view(seg);
        } catch (IOException e) {
            throw new IllegalArgumentException(seg.name() + " is no longer retained in " + directory, e);
        }
        OffsetCounter counter = new OffsetCounter(measure, point == null ? seg.headerOffset : point[2]);
        try {
            EntryCursor.walk(view.channel(), point == null ? SegmentHeader.SIZE : point[1],
                    view.limit(), seg.name(), (e, cursor) -> {
                        boolean boundary = counter.add(e);
                        return visitor.entry(e.sequence(), counter.offset(), boundary);
                    });
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + seg.name() + ": " + e.getMessage(), e);
        }
    }
}
