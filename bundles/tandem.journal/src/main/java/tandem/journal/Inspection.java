package tandem.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A read-only check of a journal directory, without a node: what {@code JournalTool} prints. It never writes: a
 * torn tail that recovery would truncate is reported, not repaired.
 */
public final class Inspection {

    /** One segment as read from its file. */
    public record SegmentLine(String file, long startSequence, long entries, long bytes, String anchorHex,
            String tailChainHex, long replicationOffset, long endReplicationOffset) {

        @Override
        public String toString() {
            return String.format("%-15s start=%d entries=%d bytes=%d anchor=%s tail=%s offset=%d..%d", file,
                    startSequence, entries, bytes, anchorHex, tailChainHex, replicationOffset,
                    endReplicationOffset);
        }
    }

    private final List<SegmentLine> segments;
    private final String problem;
    private final String note;

    private Inspection(List<SegmentLine> segments, String problem, String note) {
        this.segments = segments;
        this.problem = problem;
        this.note = note;
    }

    /**
     * Reads every segment of {@code directory}: archives in order, then the live one.
     *
     * @param measure how far each entry moves the replication offset
     */
    public static Inspection of(Path directory, OffsetMeasure measure) throws IOException {
        return of(directory, measure, null);
    }

    /** {@link #of(Path, OffsetMeasure)}, telling {@code progress} how far the scan got; null: never. */
    public static Inspection of(Path directory, OffsetMeasure measure,
            tandem.api.journal.JournalReader.Progress progress) throws IOException {
        TreeMap<Integer, Path> archives = SegmentScanner.archives(directory);
        Path live = directory.resolve(Segment.LIVE);
        if (archives.isEmpty() && !Files.exists(live)) {
            return new Inspection(List.of(), directory + ": no journal segment", null);
        }
        SegmentScanner.Result r = SegmentScanner.scanFiles(archives, live, measure, progress);
        List<SegmentLine> lines = new ArrayList<>();
        for (Segment s : r.segments) {
            lines.add(new SegmentLine(s.name(), s.startSequence, s.entries(), s.bytes,
                    ChainHash.hex(s.anchor), ChainHash.hex(s.tailChain), s.headerOffset, s.endOffset));
        }
        String note = null;
        if (r.broken == null && r.tornAt >= 0) {
            note = "live segment: torn tail (" + r.tornReason + "); opening the journal truncates "
                    + (r.liveFileSize - r.tornAt) + " bytes";
        } else if (r.broken == null && !Files.exists(live)) {
            note = "no live segment: opening the journal starts one after the last archive";
        }
        return new Inspection(lines, r.broken == null ? null : r.broken.openMessage(), note);
    }

    /**
     * Reads the durable entries of the journal in {@code directory} in order, without a node, handing each to
     * {@code visitor} as {@code Journal.read} does (a command's fragments joined, under its last sequence; a group
     * never completed skipped) until it stops.
     *
     * @return null when every valid entry was offered, else where the journal breaks (what was before it was read)
     */
    public static String read(Path directory, OffsetMeasure measure, tandem.api.journal.EntryVisitor visitor)
            throws IOException {
        SegmentScanner.Result r = SegmentScanner.scanFiles(SegmentScanner.archives(directory),
                directory.resolve(Segment.LIVE), measure, null);
        java.io.ByteArrayOutputStream group = new java.io.ByteArrayOutputStream();
        for (Segment s : r.segments) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(s.path,
                    java.nio.file.StandardOpenOption.READ)) {
                long first = tandem.protocol.journal.SegmentHeader.SIZE;
                boolean more = EntryCursor.walk(ch, first, s.bytes, s.name(), (e, cursor) -> {
                    byte tag = e.tag();
                    if (tag == tandem.api.journal.EntryTag.APP_CONTINUATION) {
                        group.writeBytes(e.payload());
                        return true;
                    }
                    byte[] payload = e.payload();
                    if (group.size() > 0) {
                        if (tag == tandem.api.journal.EntryTag.APP) {
                            group.writeBytes(payload);
                            payload = group.toByteArray();
                        }
                        group.reset(); // an entry of another kind ends a group never completed
                    }
                    return visitor.entry(e.sequence(), e.timestampNs(), e.keyHash(), tag, payload);
                });
                if (!more) {
                    return null;
                }
            }
        }
        return r.broken == null ? null : r.broken.openMessage();
    }

    public List<SegmentLine> segments() {
        return segments;
    }

    /** @return null when the journal is sound, otherwise where and why it breaks */
    public String problem() {
        return problem;
    }

    /** @return what recovery would repair (a torn tail, a missing live segment), or null */
    public String note() {
        return note;
    }
}
