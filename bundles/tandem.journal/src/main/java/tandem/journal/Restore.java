package tandem.journal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import tandem.api.journal.EntryTag;
import tandem.protocol.files.DurableFiles;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.ArchivedSegmentName;
import tandem.protocol.journal.EntryFinder;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/**
 * Builds a new node home from a backup and the journal entries after it, up to a target: what
 * {@code bin/tandem restore} runs, offline.
 *
 * <p>The entries come from the segments that continue the backup's history, linked as the journal links them: the
 * segment the backup's seed is a prefix of (same first sequence and anchor, the seed's bytes its prefix), then each
 * successor whose first sequence follows and whose anchor is the predecessor's tail chain value. They are searched
 * in a journal archive ({@code segment-…} files) and in a node's journal directory ({@code journal.NNNNNN} and the
 * live {@code journal}), so a restore reaches past the last archived segment, and segments of other histories in the
 * same places (a lineage set aside, a demoted primary's lost writes) are never taken.
 *
 * <p>The new home gets the backup's store and a journal of one segment: the entries after the store's sequence up to
 * the target, byte for byte, under a header with a fresh random anchor. The node replays them at its first start,
 * each with its own timestamp as "now", so the store ends exactly as the primary's was at the target; and the fresh
 * anchor (and the absent psync state) make it a history of its own, which no replica of the old one mistakes for
 * theirs.
 */
public final class Restore {

    /** What to restore to: exactly one of a sequence, a moment, or just before a command. */
    public record Target(long sequence, Instant time, String before) {

        public static Target sequence(long sequence) {
            return new Target(sequence, null, null);
        }

        public static Target time(Instant time) {
            return new Target(-1, time, null);
        }

        public static Target before(String command) {
            return new Target(-1, null, command);
        }

        long timeNs() {
            return time.getEpochSecond() * 1_000_000_000L + time.getNano();
        }

        @Override
        public String toString() {
            return time != null ? "--to-time " + time : before != null ? "--before " + before
                    : "--to-sequence " + sequence;
        }
    }

    /**
     * A restore done.
     *
     * @param backupSequence the backup's store sequence
     * @param sequence       the sequence the new home's store reaches once replayed
     * @param timestampNs    that entry's timestamp (the backup's when no entry was added)
     * @param entries        the entries after the backup the node replays at its first start
     * @param next           the first entry not restored ({@code <sequence>  <time>  <command>}), or null
     * @param segments       the segment files the entries came from, in order
     */
    public record Result(long backupSequence, long sequence, long timestampNs, long entries, String next,
            List<Path> segments) {
    }

    /** The store's directory and the journal's in a home's data, as the node finds them with its defaults. */
    static final String DATA = "data";
    static final String STORE = "store";
    static final String JOURNAL = "journal";
    /** What the restore made the home of, for a person. */
    static final String RESTORED = "RESTORED";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path backup;
    private final List<Path> sources;
    private final Target target;
    private final Path home;
    private final PrintStream log;

    /**
     * @param sources the directories to take entries from: journal archives and nodes' journal directories
     * @param log     where progress goes, a line per step
     */
    public Restore(Path backup, List<Path> sources, Target target, Path home, PrintStream log) {
        this.backup = backup;
        this.sources = sources;
        this.target = target;
        this.home = home;
        this.log = log;
    }

    /** A segment file that may continue the history: its header, where it was found. */
    private record Candidate(Path path, long start, byte[] anchor, boolean live) {
    }

    /**
     * Runs the restore.
     *
     * @throws IOException when the backup does not verify, the entries have a gap or damage before the target, or
     *                     the target cannot be reached: naming which, with nothing left in {@code home}'s data
     * @throws IllegalArgumentException when the target lies before the backup, or the home already holds a node
     */
    public Result run() throws IOException {
        Path data = home.resolve(DATA);
        for (String part : new String[] {STORE, JOURNAL}) {
            if (Files.exists(data.resolve(part))) {
                throw new IllegalArgumentException(home + " already holds a node (" + data.resolve(part)
                        + "): restore into a new home");
            }
        }
        log.println("verifying the backup in " + backup);
        BackupVerifier.Verified v = BackupVerifier.verify(backup);
        BackupManifest m = v.manifest();
        log.println("backup: store at sequence " + m.appliedSequence() + " (" + instant(m.appliedTimestampNs())
                + "), taken " + m.createdAt() + ", " + v.bytes() + " bytes");
        if (target.sequence >= 0 && target.sequence < m.appliedSequence()
                || target.time != null && target.timeNs() < m.appliedTimestampNs()) {
            throw new IllegalArgumentException("the backup holds the store at sequence " + m.appliedSequence()
                    + " (" + instant(m.appliedTimestampNs()) + "), after the target " + target
                    + ": restore from an older backup");
        }
        // everything is built beside the home's data and moved in at the end: a restore cut short leaves no
        // store without its journal, and the next run starts over
        Path staging = home.resolve(DATA + ".restoring");
        DurableFiles.deleteTree(staging);
        try {
            Files.createDirectories(staging.resolve(JOURNAL));
            Result result = replayable(v, staging.resolve(JOURNAL).resolve(Segment.LIVE));
            log.println("unpacking the store");
            BackupVerifier.verify(backup, m, staging.resolve(STORE));
            DurableFiles.writeAtomically(staging.resolve(RESTORED), describe(m, result)
                    .getBytes(StandardCharsets.UTF_8));
            DurableFiles.syncDirectory(staging);
            if (!Files.exists(data)) {
                Files.move(staging, data, StandardCopyOption.ATOMIC_MOVE);
                DurableFiles.syncDirectory(home);
            } else {
                // a home whose data/ holds something else (the log of a start): part by part, the journal last; a
                // crash between leaves a store ahead of its (new, empty) journal, which a node refuses to serve
                for (String part : new String[] {RESTORED, STORE, JOURNAL}) {
                    Files.move(staging.resolve(part), data.resolve(part), StandardCopyOption.ATOMIC_MOVE);
                    DurableFiles.syncDirectory(data);
                }
                DurableFiles.deleteTree(staging);
            }
            return result;
        } catch (IOException | RuntimeException e) {
            DurableFiles.deleteTree(staging);
            throw e;
        }
    }

    private String describe(BackupManifest m, Result r) {
        return "# what bin/tandem restore made of this home\n"
                + "restored_at=" + Instant.now() + "\n"
                + "backup=" + backup.toAbsolutePath().normalize() + "\n"
                + "backup_sequence=" + m.appliedSequence() + "\n"
                + "history_chain=" + m.chainHex() + "\n"
                + "history_replication_id=" + m.replicationId() + "\n"
                + "target=" + target + "\n"
                + "sequence=" + r.sequence() + "\n"
                + "timestamp=" + instant(r.timestampNs()) + "\n"
                + "first_not_restored=" + (r.next() == null ? "" : r.next()) + "\n";
    }

    /**
     * Writes the new journal's one segment into {@code out}: a fresh header, then the entries after the backup up
     * to the target, copied as they are, read along the history's segments: each segment's entries are checked
     * (CRCs, sequences) and absorbed into its chain value as they are copied, which names its successor.
     */
    private Result replayable(BackupVerifier.Verified v, Path out) throws IOException {
        BackupManifest m = v.manifest();
        List<Candidate> candidates = candidates();
        try (Walk walk = new Walk(m, out)) {
            long start = v.seedStart();
            byte[] anchor = v.seedAnchor();
            boolean first = true;
            walk.done = target.sequence == m.appliedSequence();
            while (!walk.done) {
                Walk.Tail tail = null;
                String damage = null;
                for (Candidate c : candidates) {
                    if (c.start != start || !Arrays.equals(c.anchor, anchor)) {
                        continue;
                    }
                    if (first && !prefixOf(backup.resolve(BackupManifest.SEED), c.path)) {
                        damage = c.path + " does not begin with the backup's " + BackupManifest.SEED;
                        continue;
                    }
                    try {
                        tail = walk.segment(c);
                        break;
                    } catch (IllegalStateException e) {
                        damage = e.getMessage(); // another copy of the segment may be sound
                    }
                }
                if (tail == null) {
                    if (damage != null) {
                        throw new IOException("damaged: " + damage + "; no sound copy of the segment that starts "
                                + "at sequence " + start + " is in " + sources);
                    }
                    walk.gap = gap(candidates, start);
                    break;
                }
                start = tail.last() + 1;
                anchor = tail.chain();
                first = false;
            }
            return walk.finish();
        }
    }

    /** Names what is missing when no segment continues the history at {@code start}. */
    private String gap(List<Candidate> candidates, long start) {
        long nextStart = Long.MAX_VALUE;
        for (Candidate c : candidates) {
            if (c.start >= start) {
                nextStart = Math.min(nextStart, c.start);
            }
        }
        if (nextStart == start) {
            return "a segment starts at sequence " + start + " but belongs to another history (its anchor is not "
                    + "the chain value its predecessor ends with)";
        }
        return nextStart == Long.MAX_VALUE ? "nothing in " + sources + " holds sequence " + start + " or later"
                : "sequences " + start + ".." + (nextStart - 1) + " are missing from " + sources;
    }

    /** Copies entries into the new segment, deciding where the target is. */
    private final class Walk implements AutoCloseable {

        /** Where a walked segment ends: its last sequence and chain value. */
        record Tail(long last, byte[] chain) {
        }

        private final BackupManifest manifest;
        private final FileChannel out;
        private final ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
        private final ByteArrayOutputStream group = new ByteArrayOutputStream();
        private final List<Path> segments = new ArrayList<>();
        private long written = SegmentHeader.SIZE;
        /** The last complete command (or other entry) copied: its sequence, timestamp, the file's length after it. */
        private long last;
        private long lastTs;
        private long lastEnd = SegmentHeader.SIZE;
        private long groupFirst = -1;
        private boolean done;
        private boolean live;
        private String next;
        private String gap;

        Walk(BackupManifest manifest, Path path) throws IOException {
            this.manifest = manifest;
            this.last = manifest.appliedSequence();
            this.lastTs = manifest.appliedTimestampNs();
            out = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            byte[] anchor = new byte[ChainHash.LENGTH];
            RANDOM.nextBytes(anchor);
            ByteBuffer header = ByteBuffer.allocate(SegmentHeader.SIZE);
            SegmentHeader.encode(header, 0, manifest.appliedSequence() + 1, anchor, manifest.replicationOffset(),
                    new CRC32C());
            while (header.hasRemaining()) {
                out.write(header);
            }
        }

        /**
         * Walks one segment from its first entry: entries up to the backup's are only absorbed into the chain, later
         * ones copied until the target. On damage it throws, with what it copied from this segment taken back.
         */
        Tail segment(Candidate c) throws IOException {
            long limit = Files.size(c.path);
            if (c.live) {
                // a journal directory's live segment: up to its valid end, a torn tail left out as recovery would
                SegmentScanner.Result r = SegmentScanner.scanFiles(new TreeMap<>(), c.path, FrplPayload::length);
                if (r.broken != null) {
                    throw new IllegalStateException(c.path + ": " + r.broken.openMessage());
                }
                limit = r.segments.get(0).bytes;
            }
            flush();
            long[] undo = {written, last, lastTs, lastEnd, groupFirst};
            byte[] groupBefore = group.toByteArray();
            ChainHash chain = new ChainHash(c.anchor);
            long[] expected = {c.start};
            try (FileChannel in = FileChannel.open(c.path)) {
                EntryCursor.walk(in, SegmentHeader.SIZE, limit, c.path.toString(), (e, cursor) -> {
                    if (e.sequence() != expected[0]) {
                        throw new IllegalStateException(c.path + ": found sequence " + e.sequence() + " where "
                                + expected[0] + " belongs (offset " + cursor.entryOffset() + ")");
                    }
                    expected[0]++;
                    int size = JournalEntry.OVERHEAD + e.payloadLength();
                    chain.absorb(cursor.array(), cursor.entryPosition(), size);
                    return e.sequence() <= manifest.appliedSequence()
                            || entry(e, cursor.array(), cursor.entryPosition(), size);
                });
            } catch (IllegalStateException e) {
                buffer.clear();
                out.truncate(undo[0]);
                written = undo[0];
                last = undo[1];
                lastTs = undo[2];
                lastEnd = undo[3];
                groupFirst = undo[4];
                group.reset();
                group.writeBytes(groupBefore);
                throw e;
            }
            segments.add(c.path);
            live = c.live;
            return new Tail(expected[0] - 1, chain.value());
        }

        /** @return false once the target is decided */
        private boolean entry(JournalEntry e, byte[] bytes, int at, int size) {
            long seq = e.sequence();
            byte tag = e.tag();
            if (tag == EntryTag.APP_CONTINUATION) {
                if (groupFirst < 0) {
                    groupFirst = seq;
                }
                group.writeBytes(e.payload());
                copy(bytes, at, size);
                return true;
            }
            byte[] payload = e.payload();
            long first = seq;
            if (groupFirst >= 0) {
                if (tag == EntryTag.APP) {
                    group.writeBytes(payload);
                    payload = group.toByteArray();
                    first = groupFirst;
                }
                group.reset(); // an entry of another kind ends a group never completed
                groupFirst = -1;
            }
            if (target.sequence >= 0 && seq > target.sequence
                    || target.time != null && e.timestampNs() > target.timeNs()
                    || target.before != null && tag == EntryTag.APP && EntryFinder.holds(payload, target.before)) {
                // the command ending here is not restored, nor its fragments copied before it
                next = EntryFinder.describe(seq, e.timestampNs(), tag, payload);
                done = true;
                return false;
            }
            copy(bytes, at, size);
            last = seq;
            lastTs = e.timestampNs();
            lastEnd = written;
            if (seq == target.sequence) {
                done = true;
                return false;
            }
            return true;
        }

        private void copy(byte[] bytes, int at, int size) {
            if (buffer.remaining() < size) {
                flush();
            }
            buffer.put(bytes, at, size);
            written += size;
        }

        private void flush() {
            buffer.flip();
            try {
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            buffer.clear();
        }

        /** Ends the walk: the target reached, or the reason it cannot be. */
        Result finish() throws IOException {
            if (!done) {
                String end = "the entries available end at sequence " + last + " (" + instant(lastTs) + ")";
                String why = gap == null ? "" : ": " + gap;
                if (target.sequence >= 0) {
                    throw new IOException(end + ", before the target sequence " + target.sequence + why);
                }
                if (target.before != null) {
                    throw new IOException("no entry after the backup's sequence " + manifest.appliedSequence()
                            + " up to " + last + " holds " + target.before + why);
                }
                if (!live) {
                    throw new IOException(end + ", before " + target.time + why + ". With a node's journal "
                            + "directory (--journal HOME/data/journal) the restore also reads what is not archived");
                }
                log.println(end + ", before " + target.time + ": the node's journal ends there, so that is the "
                        + "state at " + target.time);
            }
            flush();
            out.truncate(lastEnd);
            out.force(true);
            return new Result(manifest.appliedSequence(), last, lastTs, last - manifest.appliedSequence(), next,
                    List.copyOf(segments));
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    private static boolean prefixOf(Path seed, Path segment) throws IOException {
        long n = Files.size(seed);
        if (Files.size(segment) < n) {
            return false;
        }
        try (FileChannel a = FileChannel.open(seed); FileChannel b = FileChannel.open(segment)) {
            ByteBuffer x = ByteBuffer.allocate(1 << 16);
            ByteBuffer y = ByteBuffer.allocate(1 << 16);
            for (long at = 0; at < n; ) {
                int len = (int) Math.min(x.capacity(), n - at);
                x.clear().limit(len);
                y.clear().limit(len);
                while (x.hasRemaining() && a.read(x, at + x.position()) > 0) {
                    // positional reads until the chunk is in
                }
                while (y.hasRemaining() && b.read(y, at + y.position()) > 0) {
                    // likewise
                }
                if (x.flip().compareTo(y.flip()) != 0) {
                    return false;
                }
                at += len;
            }
        }
        return true;
    }

    /** Every segment file in the source directories, its header read; unreadable headers skipped with a note. */
    private List<Candidate> candidates() throws IOException {
        List<Candidate> out = new ArrayList<>();
        SegmentHeader header = new SegmentHeader();
        CRC32C crc = new CRC32C();
        for (Path dir : sources) {
            if (!Files.isDirectory(dir)) {
                throw new IOException(dir + ": not a directory");
            }
            List<Path> files = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    String name = p.getFileName().toString();
                    if (Files.isRegularFile(p) && (ArchivedSegmentName.parse(name) != null
                            || Segment.archiveNumber(name) > 0 || name.equals(Segment.LIVE))) {
                        files.add(p);
                    }
                }
            }
            files.sort(Comparator.comparing(Path::toString));
            for (Path p : files) {
                ByteBuffer h = ByteBuffer.allocate(SegmentHeader.MEANINGFUL_LENGTH);
                try (FileChannel ch = FileChannel.open(p)) {
                    while (h.hasRemaining() && ch.read(h) > 0) {
                        // until the header's fields are in
                    }
                }
                String bad = h.hasRemaining() ? "truncated" : header.wrap(h, 0).check(crc);
                if (bad != null) {
                    log.println("skipping " + p + ": segment header " + bad);
                    continue;
                }
                out.add(new Candidate(p, header.startingSequence(), header.anchor(),
                        p.getFileName().toString().equals(Segment.LIVE)));
            }
        }
        return out;
    }

    private static String instant(long timestampNs) {
        return timestampNs == 0 ? "no entry" : Instant.ofEpochSecond(0, timestampNs).toString();
    }
}
