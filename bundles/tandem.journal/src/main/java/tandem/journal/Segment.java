package tandem.journal;

import java.nio.file.Path;

/**
 * What the journal knows of one segment file without reading it. The journal thread updates the live segment after
 * each durable batch; readers see the fields through volatile reads.
 */
final class Segment {

    static final String LIVE = "journal";

    final long startSequence;
    final byte[] anchor;
    final long headerOffset;
    final SparseIndex index = new SparseIndex();

    volatile Path path;
    /** 0 for the live segment, the archive number once sealed. */
    volatile int archiveNumber;
    /** startSequence - 1 while empty. */
    volatile long lastSequence;
    /** The end of the valid (durable) data: the file size of a sealed segment. */
    volatile long bytes;
    /** The replication offset after the last complete command. */
    volatile long endOffset;
    volatile boolean tailOpenGroup;
    volatile long lastTimestampNs;
    /** The chain value after the last entry, known once sealed (or after a scan). */
    volatile byte[] tailChain;
    volatile long sealedAtMillis;
    /** The timestamp of the first entry, once written in this process (0 before, and for a recovered segment). */
    volatile long firstTimestampNs;
    /** The journal archive directory this sealed segment is known to be archived in, or null. */
    volatile Path archivedTo;
    /** A channel for readers, opened on first use and shared (positional reads); closed with the segment. */
    private java.nio.channels.FileChannel readChannel;
    /** Where the last read of this segment stopped: {sequence, offset of the entry after it}; null before one. */
    volatile long[] resume;

    Segment(Path path, int archiveNumber, long startSequence, byte[] anchor, long headerOffset) {
        this.path = path;
        this.archiveNumber = archiveNumber;
        this.startSequence = startSequence;
        this.anchor = anchor;
        this.headerOffset = headerOffset;
        this.lastSequence = startSequence - 1;
        this.bytes = tandem.protocol.journal.SegmentHeader.SIZE;
        this.endOffset = headerOffset;
        this.tailChain = anchor;
        index.add(startSequence, tandem.protocol.journal.SegmentHeader.SIZE, headerOffset);
    }

    /** @return the shared read channel, opened on first use */
    synchronized java.nio.channels.FileChannel readChannel() throws java.io.IOException {
        if (readChannel == null || !readChannel.isOpen()) {
            readChannel = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.READ);
        }
        return readChannel;
    }

    /** Closes the shared read channel (the segment is deleted, archived or the journal closes). */
    synchronized void closeReadChannel() {
        if (readChannel != null) {
            try {
                readChannel.close();
            } catch (java.io.IOException e) {
                // read-only
            }
            readChannel = null;
        }
    }

    String name() {
        return path.getFileName().toString();
    }

    boolean isEmpty() {
        return lastSequence < startSequence;
    }

    long entries() {
        return lastSequence - startSequence + 1;
    }

    static String archiveName(int number) {
        return String.format("%s.%06d", LIVE, number);
    }

    /** @return the archive number of {@code journal.NNNNNN}, or -1 for any other name */
    static int archiveNumber(String fileName) {
        if (fileName.length() != LIVE.length() + 7 || !fileName.startsWith(LIVE + ".")) {
            return -1;
        }
        int n = 0;
        for (int i = LIVE.length() + 1; i < fileName.length(); i++) {
            char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
