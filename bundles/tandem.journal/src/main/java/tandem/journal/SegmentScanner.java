package tandem.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalReader;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/**
 * Reads segments in order and checks everything a journal promises: headers, entry CRCs, dense sequences (the
 * first entry at the header's starting sequence, across segments too), each anchor equal to the predecessor's tail
 * chain value, each header's replication offset equal to the predecessor's end offset. Used by recovery,
 * {@code verify()} and the offline tool.
 *
 * <p>Design note: a bad entry at the tail of the live segment is a torn write, not corruption, only when it lies
 * within the last {@value #TORN_WINDOW} bytes of the file: the journal thread syncs each write before the next, so
 * only the last write (at most one pending batch) can be torn. Anywhere else it is corruption and the scan breaks.
 */
final class SegmentScanner {

    static final int TORN_WINDOW = Batch.MAX_PENDING_BYTES + JournalEntry.MAX_SIZE;
    /** How often, in bytes scanned, {@link #progress} is told. */
    static final long PROGRESS_STEP = 8L << 20;

    private final OffsetMeasure measure;
    private final JournalReader.Progress progress;
    private long scannedBefore;
    private long total;
    private long nextReport;

    /**
     * @param measure  how far each entry moves the replication offset
     * @param progress told how far a scan got every {@link #PROGRESS_STEP} bytes and at its end; null: never
     */
    SegmentScanner(OffsetMeasure measure, JournalReader.Progress progress) {
        this.measure = measure;
        this.progress = progress;
    }

    /** A segment file to scan: its channel, whether it is the live one, and how far to read. */
    record Source(Path path, int archiveNumber, FileChannel channel, boolean live, long limit) {
    }

    /** Where and why a journal breaks. */
    record Break(String file, long sequence, String reason) {

        /** For an exception from open: {@code journal.000003: entry at sequence 1234: CRC mismatch}. */
        String openMessage() {
            return sequence > 0 ? file + ": entry at sequence " + sequence + ": " + reason : file + ": " + reason;
        }

        /** For {@code verify()}: {@code sequence 1234 in journal.000003: CRC mismatch}. */
        String verifyMessage() {
            return sequence > 0 ? "sequence " + sequence + " in " + file + ": " + reason : file + ": " + reason;
        }
    }

    /** The segments read, the break if any, and the torn tail of the live segment if any. */
    static final class Result {
        final List<Segment> segments = new ArrayList<>();
        Break broken;
        /** The live segment's chain, ready to absorb further entries. */
        ChainHash liveChain;
        /** Where the live segment's valid data ends when bytes follow it (a torn write), else -1. */
        long tornAt = -1;
        long liveFileSize;
        String tornReason;
    }

    private final CRC32C crc = new CRC32C();
    private final SegmentHeader header = new SegmentHeader();

    /** @return the archives of a journal directory by number, in order */
    static TreeMap<Integer, Path> archives(Path directory) throws IOException {
        TreeMap<Integer, Path> archives = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory)) {
            for (Path p : ds) {
                int n = Segment.archiveNumber(p.getFileName().toString());
                if (n > 0 && Files.isRegularFile(p)) {
                    archives.put(n, p);
                }
            }
        }
        return archives;
    }

    /**
     * Opens the archives in order, then the live segment when it exists, scans them as recovery does (a torn tail of
     * the live segment tolerated) and closes them again.
     */
    static Result scanFiles(SortedMap<Integer, Path> archives, Path live, OffsetMeasure measure) throws IOException {
        return scanFiles(archives, live, measure, null);
    }

    /** {@link #scanFiles(SortedMap, Path, OffsetMeasure)}, telling {@code progress} how far it got; null: never. */
    static Result scanFiles(SortedMap<Integer, Path> archives, Path live, OffsetMeasure measure,
            JournalReader.Progress progress) throws IOException {
        List<FileChannel> channels = new ArrayList<>();
        try {
            List<Source> sources = new ArrayList<>();
            for (var a : archives.entrySet()) {
                FileChannel ch = FileChannel.open(a.getValue(), StandardOpenOption.READ);
                channels.add(ch);
                sources.add(new Source(a.getValue(), a.getKey(), ch, false, Long.MAX_VALUE));
            }
            if (Files.exists(live)) {
                FileChannel ch = FileChannel.open(live, StandardOpenOption.READ);
                channels.add(ch);
                sources.add(new Source(live, 0, ch, true, Long.MAX_VALUE));
            }
            return new SegmentScanner(measure, progress).scan(sources, true);
        } finally {
            for (FileChannel ch : channels) {
                ch.close();
            }
        }
    }

    Result scan(List<Source> sources, boolean tolerateTornTail) throws IOException {
        Result result = new Result();
        Segment previous = null;
        total = 0;
        for (Source source : sources) {
            total += Math.min(source.channel().size(), source.limit());
        }
        scannedBefore = 0;
        nextReport = PROGRESS_STEP;
        for (Source source : sources) {
            Segment segment = scanOne(source, previous, tolerateTornTail, result);
            if (result.broken != null) {
                return result;
            }
            result.segments.add(segment);
            previous = segment;
            scannedBefore += Math.min(source.channel().size(), source.limit());
        }
        if (progress != null) {
            progress.checked(total, total);
        }
        return result;
    }

    private void reportAt(long offsetInSegment) {
        long done = scannedBefore + offsetInSegment;
        if (progress != null && done >= nextReport) {
            nextReport = done + PROGRESS_STEP;
            progress.checked(done, total);
        }
    }

    private Segment scanOne(Source source, Segment previous, boolean tolerateTornTail, Result result)
            throws IOException {
        String name = source.path().getFileName().toString();
        long expected = previous == null ? 0 : previous.lastSequence + 1;
        long size = source.channel().size();
        if (size < SegmentHeader.SIZE) {
            result.broken = new Break(name, expected, "segment header truncated (" + size + " bytes)");
            return null;
        }
        ByteBuffer h = ByteBuffer.allocate(SegmentHeader.MEANINGFUL_LENGTH);
        while (h.hasRemaining() && source.channel().read(h, h.position()) >= 0) {
            // positional reads until the meaningful bytes are in
        }
        String bad = header.wrap(h, 0).check(crc);
        if (bad != null) {
            result.broken = new Break(name, expected, "segment header: " + bad);
            return null;
        }
        Segment segment = new Segment(source.path(), source.archiveNumber(), header.startingSequence(),
                header.anchor(), header.replicationOffset());
        if (previous != null) {
            if (segment.startSequence != expected) {
                result.broken = new Break(name, expected, "segment starts at sequence " + segment.startSequence
                        + " after " + previous.name() + " ended at " + previous.lastSequence);
                return null;
            }
            if (!Arrays.equals(segment.anchor, previous.tailChain)) {
                result.broken = new Break(name, expected, "chain break: the anchor "
                        + ChainHash.hex(segment.anchor) + " is not the tail chain value "
                        + ChainHash.hex(previous.tailChain) + " of " + previous.name());
                return null;
            }
            if (segment.headerOffset != previous.endOffset) {
                result.broken = new Break(name, expected, "replication offset " + segment.headerOffset
                        + " does not continue " + previous.name() + " (which ends at " + previous.endOffset + ")");
                return null;
            }
        }
        ChainHash chain = new ChainHash(segment.anchor);
        long limit = Math.min(size, source.limit());
        EntryCursor cursor = new EntryCursor(source.channel(), SegmentHeader.SIZE, limit);
        long sequence = segment.startSequence;
        OffsetCounter offsets = new OffsetCounter(measure, segment.headerOffset);
        while (true) {
            int r = cursor.next();
            if (r == JournalEntry.END && (source.live() || cursor.validEnd() == limit)) {
                break;
            }
            if (r < 0) {
                String reason = r == JournalEntry.END ? "zero bytes where an entry should start"
                        : JournalEntry.reason(r);
                if (source.live() && tolerateTornTail && limit - cursor.entryOffset() <= TORN_WINDOW) {
                    result.tornReason = reason + " at offset " + cursor.entryOffset();
                    break;
                }
                result.broken = new Break(name, sequence, reason + " (offset " + cursor.entryOffset() + ")");
                return null;
            }
            JournalEntry e = cursor.entry();
            reportAt(cursor.entryOffset());
            if (e.sequence() != sequence) {
                result.broken = new Break(name, sequence, "found sequence " + e.sequence() + " (offset "
                        + cursor.entryOffset() + ")");
                return null;
            }
            byte tag = e.tag();
            if (!offsets.inGroup()) {
                segment.index.add(sequence, cursor.entryOffset(), offsets.offset());
            }
            if (tag != EntryTag.APP && tag != EntryTag.APP_CONTINUATION && tag != EntryTag.TICK
                    && tag != EntryTag.EPOCH_BUMP && tag != EntryTag.PUBLISH) {
                result.broken = new Break(name, sequence, String.format("unknown entry tag 0x%02X", tag));
                return null;
            }
            try {
                offsets.add(e);
            } catch (IllegalArgumentException ex) {
                result.broken = new Break(name, sequence, "payload is not a command: " + ex.getMessage());
                return null;
            }
            chain.absorb(cursor.array(), cursor.entryPosition(), r);
            segment.lastTimestampNs = e.timestampNs();
            sequence++;
        }
        segment.lastSequence = sequence - 1;
        segment.bytes = cursor.validEnd();
        segment.endOffset = offsets.offset();
        segment.tailOpenGroup = offsets.inGroup();
        segment.tailChain = chain.value();
        if (source.live()) {
            result.liveChain = chain;
            result.liveFileSize = size;
            if (size > cursor.validEnd()) {
                result.tornAt = cursor.validEnd();
                if (result.tornReason == null) {
                    result.tornReason = "zero bytes from offset " + cursor.validEnd();
                }
            }
        }
        return segment;
    }
}
