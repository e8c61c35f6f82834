package tandem.journal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

import tandem.protocol.files.DurableFiles;
import tandem.protocol.journal.SegmentHeader;

/**
 * The journal's files: {@code DIR/journal} is the live segment, {@code DIR/journal.000001}, {@code .000002} … are
 * sealed archives (numbers monotonic while any archive is retained), {@code DIR/lineage.<n>/} holds histories set
 * aside, every segment file a {@link SegmentHeader} and entries back to back. The segment list changes under a write
 * lock (rotation, a new history, purge) that readers take to see it whole; the live segment's channel is the
 * journal thread's.
 *
 * <p>A new history (a lineage archived, a primary's segment adopted, a seed installed) replaces the whole list by
 * one live segment; a caller's step runs while the write lock is held, so that a reader never sees the new files
 * with the old chain.
 */
final class SegmentSet {

    private static final Logger LOG = System.getLogger("tandem.journal");
    private static final String TMP = Segment.LIVE + ".tmp";
    private static final String LINEAGE = "lineage.";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A segment file open for reading, with how far it may be read. */
    record View(FileChannel channel, long limit) {
    }

    /** A segment seed that scanned sound: the segment it becomes and its digest. */
    record Seed(Path path, Segment segment, ChainHash chain) {
    }

    private final Path directory;
    private final Path livePath;
    private final FileIo io;
    private final Clock clock;
    private final Supplier<JournalSettings> settings;
    private final OffsetMeasure measure;
    private final ReentrantReadWriteLock files = new ReentrantReadWriteLock();
    private final List<Segment> segments = new ArrayList<>();
    private Segment liveSegment;
    private FileIo.SegmentChannel live;
    private int lastArchiveNumber;
    /** The journal archive's purge guard: true for a segment that must stay until it is archived. */
    private volatile Predicate<Segment> keep = s -> false;
    /** Told after a segment is sealed and after a new history replaced the list. */
    private volatile Runnable changed = () -> {
    };

    SegmentSet(Path directory, FileIo io, Clock clock, Supplier<JournalSettings> settings, OffsetMeasure measure) {
        this.directory = directory;
        this.livePath = directory.resolve(Segment.LIVE);
        this.io = io;
        this.clock = clock;
        this.settings = settings;
        this.measure = measure;
    }

    /**
     * Recovers the segments (a torn tail of the live segment truncated, a missing live segment started anew) or
     * creates a new journal.
     *
     * @return the live segment's digest, having absorbed its entries
     * @throws IllegalStateException when the journal is corrupt, with the file and sequence where it breaks
     */
    ChainHash open() throws IOException {
        Files.createDirectories(directory);
        Files.deleteIfExists(directory.resolve(TMP));
        TreeMap<Integer, Path> archives = SegmentScanner.archives(directory);
        boolean hasLive = Files.exists(livePath);
        if (archives.isEmpty() && !hasLive) {
            byte[] anchor = newAnchor();
            createLive(1, anchor, 0);
            LOG.log(Level.INFO, "{0}: new journal (genesis anchor {1})", directory, ChainHash.hex(anchor));
        }
        SegmentScanner.Result result = SegmentScanner.scanFiles(archives, livePath, measure);
        if (result.broken != null) {
            throw new IllegalStateException(result.broken.openMessage());
        }
        segments.addAll(result.segments);
        for (Segment s : segments) {
            if (s.archiveNumber > 0) {
                s.sealedAtMillis = Files.getLastModifiedTime(s.path).toMillis();
            }
        }
        lastArchiveNumber = archives.isEmpty() ? 0 : archives.lastKey();
        ChainHash chain;
        if (!Files.exists(livePath)) {
            // a crash between sealing the live segment and installing its successor
            Segment last = segments.get(segments.size() - 1);
            LOG.log(Level.WARNING, "{0}: no live segment after {1}; starting one at sequence {2}", directory,
                    last.name(), last.lastSequence + 1);
            segments.add(createLive(last.lastSequence + 1, last.tailChain, last.endOffset));
            chain = new ChainHash(last.tailChain);
        } else {
            chain = result.liveChain;
        }
        liveSegment = segments.get(segments.size() - 1);
        live = io.open(livePath, false);
        if (result.tornAt >= 0) {
            LOG.log(Level.WARNING, "{0}: torn write at the tail: {1}; truncating {2} bytes after sequence {3}",
                    livePath, result.tornReason, result.liveFileSize - result.tornAt, liveSegment.lastSequence);
            live.truncate(result.tornAt);
            live.force();
        }
        return chain;
    }

    /** @return the timestamp of the last entry of the last segment that has one (0 when none has) */
    long lastTimestamp() {
        for (int i = segments.size() - 1; i >= 0; i--) {
            if (!segments.get(i).isEmpty()) {
                return segments.get(i).lastTimestampNs;
            }
        }
        return 0;
    }

    private static byte[] newAnchor() {
        byte[] anchor = new byte[ChainHash.LENGTH];
        RANDOM.nextBytes(anchor);
        return anchor;
    }

    /** Writes a header to a temporary file, syncs it, renames it to the live path and syncs the directory. */
    private Segment createLive(long startSequence, byte[] anchor, long replicationOffset) throws IOException {
        Path tmp = directory.resolve(TMP);
        Files.deleteIfExists(tmp);
        ByteBuffer header = ByteBuffer.allocate(SegmentHeader.SIZE);
        SegmentHeader.encode(header, 0, startSequence, anchor, replicationOffset, new CRC32C());
        try (FileIo.SegmentChannel ch = io.open(tmp, true)) {
            long at = 0;
            while (header.hasRemaining()) {
                at += ch.write(header, at);
            }
            ch.force();
        }
        Files.move(tmp, livePath, StandardCopyOption.ATOMIC_MOVE);
        io.syncDirectory(directory);
        return new Segment(livePath, 0, startSequence, anchor.clone(), replicationOffset);
    }

    /** Installs the journal archive's purge guard and its signal. */
    void archiveHooks(Predicate<Segment> keepUntilArchived, Runnable onChange) {
        keep = keepUntilArchived;
        changed = onChange;
    }

    /** @return whether {@code segment} is still one of the journal's (not purged, not set aside in a lineage) */
    boolean contains(Segment segment) {
        files.readLock().lock();
        try {
            return segments.contains(segment);
        } finally {
            files.readLock().unlock();
        }
    }

    /** @return the live segment (journal thread) */
    Segment live() {
        return liveSegment;
    }

    /** @return the live segment's channel for writing (journal thread) */
    FileIo.SegmentChannel channel() {
        return live;
    }

    /** @return the segments, oldest first, the live one last */
    List<Segment> snapshot() {
        files.readLock().lock();
        try {
            return new ArrayList<>(segments);
        } finally {
            files.readLock().unlock();
        }
    }

    /**
     * @return {@code segment}'s shared read channel and its durable end, read together
     * @throws java.nio.file.NoSuchFileException when the segment is gone (purged or archived)
     */
    View view(Segment segment) throws IOException {
        files.readLock().lock();
        try {
            long limit = segment.bytes; // read after the durable sequence: covers at least that much
            return new View(segment.readChannel(), limit);
        } finally {
            files.readLock().unlock();
        }
    }

    /** Reads the segment list while it is held still. */
    @FunctionalInterface
    interface StillRead<T> {
        T read(List<Segment> segments) throws IOException;
    }

    /** Runs {@code read} with the list held still: for a reader that pairs every segment with a chain point. */
    <T> T whileStill(StillRead<T> read) throws IOException {
        files.readLock().lock();
        try {
            return read.read(java.util.Collections.unmodifiableList(segments));
        } finally {
            files.readLock().unlock();
        }
    }

    /**
     * Journal thread: seals the live segment as the next archive with {@code tail} as its tail chain value and
     * starts its successor. {@code sealed} runs with the write lock held, given the successor.
     *
     * @return the new live segment
     */
    Segment rotate(byte[] tail, Consumer<Segment> whileLocked) throws IOException {
        Segment sealed = liveSegment;
        Segment next;
        files.writeLock().lock();
        try {
            live.close();
            int number = lastArchiveNumber + 1;
            Path archive = directory.resolve(Segment.archiveName(number));
            Files.move(livePath, archive, StandardCopyOption.ATOMIC_MOVE);
            lastArchiveNumber = number;
            sealed.path = archive;
            sealed.archiveNumber = number;
            sealed.tailChain = tail;
            sealed.sealedAtMillis = clock.millis();
            next = createLive(sealed.lastSequence + 1, tail, sealed.endOffset);
            segments.add(next);
            // under the write lock: verify() pairs the chain point with the segments it sees
            whileLocked.accept(next);
            liveSegment = next;
        } finally {
            files.writeLock().unlock();
        }
        live = io.open(livePath, false);
        LOG.log(Level.INFO, "{0}: sealed {1} (sequences {2}..{3}), live segment starts at {4}", directory,
                sealed.name(), sealed.startSequence, sealed.lastSequence, next.startSequence);
        changed.run();
        return next;
    }

    /**
     * Journal thread: replaces the live segment, which holds no entry and is the only one, by a new one with a
     * primary's identity.
     *
     * @return the new live segment
     */
    Segment adopt(long startSequence, byte[] anchor, long offset, Consumer<Segment> whileLocked)
            throws IOException {
        Segment adopted;
        files.writeLock().lock();
        try {
            live.close();
            liveSegment.closeReadChannel();
            Files.delete(livePath);
            adopted = createLive(startSequence, anchor, offset);
            becomeOnly(adopted, whileLocked);
        } finally {
            files.writeLock().unlock();
        }
        LOG.log(Level.INFO, "{0}: adopted the primary''s segment identity: start {1}, anchor {2}, offset {3}",
                directory, startSequence, ChainHash.hex(anchor), offset);
        return adopted;
    }

    /**
     * Journal thread: moves every segment into {@code lineage.<n>/} (n increasing; the oldest beyond
     * {@code lineage.archives.keep} are deleted) and starts a new genesis: sequence 1, a fresh random anchor,
     * replication offset 0.
     *
     * @return the genesis segment
     */
    Segment archiveLineage(Consumer<Segment> whileLocked) throws IOException {
        byte[] anchor = newAnchor();
        Segment genesis;
        files.writeLock().lock();
        try {
            live.close();
            int n = 1;
            for (int existing : lineages()) {
                n = Math.max(n, existing + 1);
            }
            Path target = directory.resolve(LINEAGE + n);
            Files.createDirectory(target);
            for (Segment s : segments) {
                s.closeReadChannel();
                Files.move(s.path, target.resolve(s.name()), StandardCopyOption.ATOMIC_MOVE);
            }
            io.syncDirectory(target);
            io.syncDirectory(directory);
            segments.clear();
            List<Integer> all = lineages();
            int keep = settings.get().lineageArchivesKeep();
            for (int i = 0; i < all.size() - keep; i++) {
                DurableFiles.deleteTree(directory.resolve(LINEAGE + all.get(i)));
            }
            genesis = createLive(1, anchor, 0);
            becomeOnly(genesis, whileLocked);
            LOG.log(Level.WARNING, "{0}: lineage archived to {1}; new genesis (anchor {2})", directory,
                    target.getFileName(), ChainHash.hex(anchor));
        } finally {
            files.writeLock().unlock();
        }
        lastArchiveNumber = 0;
        return genesis;
    }

    /**
     * Scans a segment seed (header, entry CRCs, sequences) without changing anything.
     *
     * @throws IllegalStateException when it is not a sound segment prefix
     */
    Seed scanSeed(Path seed) throws IOException {
        SegmentScanner.Result scanned = SegmentScanner.scanFiles(new TreeMap<>(), seed, measure);
        if (scanned.broken != null || scanned.tornAt >= 0 || scanned.segments.size() != 1) {
            throw new IllegalStateException("the segment seed " + seed + " is not a sound segment prefix: "
                    + (scanned.broken != null ? scanned.broken.openMessage() : String.valueOf(scanned.tornReason)));
        }
        return new Seed(seed, scanned.segments.get(0), scanned.liveChain);
    }

    /**
     * Journal thread, the lineage just archived: makes a scanned seed the live segment (moved into the journal).
     *
     * @return the seeded live segment
     */
    Segment installSeed(Seed seed, Consumer<Segment> whileLocked) throws IOException {
        Segment seeded = seed.segment();
        files.writeLock().lock();
        try {
            live.close();
            liveSegment.closeReadChannel();
            Files.delete(livePath);
            Files.move(seed.path(), livePath, StandardCopyOption.ATOMIC_MOVE);
            io.syncDirectory(directory);
            seeded.path = livePath;
            becomeOnly(seeded, whileLocked);
        } finally {
            files.writeLock().unlock();
        }
        LOG.log(Level.INFO, "{0}: installed a segment seed: sequences {1}..{2}, chain {3}", directory,
                seeded.startSequence, seeded.lastSequence, ChainHash.hex(seed.chain().value()));
        return seeded;
    }

    /** Makes {@code next}, already at the live path, the only segment. Holds the write lock. */
    private void becomeOnly(Segment next, Consumer<Segment> whileLocked) throws IOException {
        segments.clear();
        segments.add(next);
        liveSegment = next;
        whileLocked.accept(next);
        live = io.open(livePath, false);
        changed.run();
    }

    private List<Integer> lineages() throws IOException {
        List<Integer> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory, LINEAGE + "*")) {
            for (Path p : ds) {
                String suffix = p.getFileName().toString().substring(LINEAGE.length());
                if (Files.isDirectory(p) && suffix.matches("[0-9]{1,9}")) {
                    out.add(Integer.parseInt(suffix));
                }
            }
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }

    /**
     * Deletes archives, oldest first, whose last sequence is at or below {@code appliedAndFlushed} — the store no
     * longer needs them to restart — unless the retention configuration keeps them for lagging replicas: an
     * eligible archive stays while the journal's total size is within {@code retention.max.bytes} and the archive
     * is younger than {@code retention.max.age.seconds} (0 keeps none). The live segment is never deleted, nor,
     * while the journal archive is configured, a segment not archived yet (nor any newer one).
     *
     * @return the number of segment files deleted
     */
    int purge(long appliedAndFlushed) throws IOException {
        JournalSettings s = settings.get();
        int deleted = 0;
        files.writeLock().lock();
        try {
            long total = 0;
            for (Segment seg : segments) {
                total += seg.bytes;
            }
            long now = clock.millis();
            while (segments.size() > 1) {
                Segment oldest = segments.get(0);
                if (oldest.lastSequence > appliedAndFlushed) {
                    break;
                }
                if (keep.test(oldest)) {
                    break; // not archived yet: the archive's guard overrides the retention caps
                }
                boolean overBytes = total > s.retentionMaxBytes();
                boolean overAge = now - oldest.sealedAtMillis >= s.retentionMaxAgeSeconds() * 1000;
                if (!overBytes && !overAge) {
                    break;
                }
                oldest.closeReadChannel();
                Files.delete(oldest.path);
                segments.remove(0);
                total -= oldest.bytes;
                deleted++;
                LOG.log(Level.INFO, "{0}: deleted {1} (sequences {2}..{3})", directory, oldest.name(),
                        oldest.startSequence, oldest.lastSequence);
            }
            if (deleted > 0) {
                io.syncDirectory(directory);
            }
        } finally {
            files.writeLock().unlock();
        }
        return deleted;
    }

    /** Closes the live segment's channel after a failure, quietly: the failure is what matters. */
    void closeAfterFailure() {
        try {
            live.close();
        } catch (IOException | RuntimeException ignored) {
            // already failing; the reason recorded is what matters
        }
    }

    /** Closes every channel (the journal thread has ended). */
    void close() {
        try {
            live.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: closing the live segment: {1}", livePath, e.getMessage());
        }
        for (Segment seg : snapshot()) {
            seg.closeReadChannel();
        }
    }
}
