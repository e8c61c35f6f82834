package tandem.journal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import tandem.api.journal.ArchiveStatus;
import tandem.protocol.files.DurableFiles;
import tandem.protocol.journal.ArchivedSegmentName;

/**
 * The journal archive ({@code archive.directory}): its own thread copies every sealed segment into the archive
 * directory under its {@link ArchivedSegmentName}, oldest first — to a temporary name, synced, read back and compared
 * by SHA-256 with what was read from the segment, renamed, the directory synced. A segment counts as archived in a
 * directory once that is done, or once a file of its name with the same content is found there (a primary and its
 * journal replicas seal byte-identical segments and may share one archive); a file of its name with other content
 * is an error and is never replaced. While archiving is configured, {@link #keeps} holds back the purge of every
 * segment not archived yet.
 *
 * <p>A failure is logged at ERROR with the segment and the reason, counted, shown in the status, and retried after a
 * backoff (doubling from {@link #MIN_BACKOFF_MILLIS} to {@link #MAX_BACKOFF_MILLIS}) so that a full or missing
 * archive does not flood the log. Nothing here ever blocks an append: the journal thread only signals.
 */
final class SegmentArchiver {

    static final long MIN_BACKOFF_MILLIS = 1_000;
    static final long MAX_BACKOFF_MILLIS = 60_000;

    private static final Logger LOG = System.getLogger("tandem.journal");
    private static final int CHUNK = 1 << 20;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Where to archive, and how old the live segment's first entry may get before a primary seals it. */
    private record Target(Path directory, long intervalSeconds) {
    }

    /** Thrown out of a copy when the journal closes: not a failure. */
    private static final class Closing extends RuntimeException {
        Closing() {
            super(null, null, false, false);
        }
    }

    private final Path journalDirectory;
    private final SegmentSet segments;
    private final Clock clock;
    private final LongSupplier durableSequence;
    private final BooleanSupplier rotatesBySize;
    private final Runnable seal;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    /** A segment was sealed or the history replaced. Guarded by {@link #lock}. */
    private boolean signalled;
    /** The configuration changed: cuts a backoff short. Guarded by {@link #lock}. */
    private boolean reconfigured;
    private volatile boolean closing;
    private volatile Target target;

    private volatile long minBackoffMillis = MIN_BACKOFF_MILLIS;
    private volatile long maxBackoffMillis = MAX_BACKOFF_MILLIS;
    private volatile long sealPollMillis = 1_000;
    /** Archiver thread only. */
    private long backoffMillis;
    /** The live segment (by start) a seal was asked for, so that it is asked once. Archiver thread only. */
    private long sealRequestedFor = -1;

    private volatile long archivedSegments;
    private volatile String lastArchived;
    private volatile long lastArchivedAtMillis;
    private volatile long failures;
    private volatile String lastFailed;
    private volatile String lastError;
    private volatile long lastErrorAtMillis;
    private volatile boolean failing;
    /** How often the seal interval was checked: a test waits for checks, not for time. */
    private volatile long sealChecks;

    /**
     * @param seal          asks the journal thread to seal the live segment (a primary's archive interval)
     * @param rotatesBySize whether this journal seals by itself (a primary) rather than where its primary does
     */
    SegmentArchiver(Path journalDirectory, SegmentSet segments, Clock clock, LongSupplier durableSequence,
            BooleanSupplier rotatesBySize, Runnable seal) {
        this.journalDirectory = journalDirectory;
        this.segments = segments;
        this.clock = clock;
        this.durableSequence = durableSequence;
        this.rotatesBySize = rotatesBySize;
        this.seal = seal;
        this.thread = new Thread(this::run, "tandem-journal-archive");
        thread.setDaemon(true);
    }

    /** Starts archiving into {@code directory} (null: stops), with a primary's seal interval (0: none). */
    void configure(Path directory, long intervalSeconds) {
        Target next = directory == null ? null : new Target(directory, intervalSeconds);
        Target previous = target;
        if (java.util.Objects.equals(previous, next)) {
            return;
        }
        target = next;
        if (previous == null || next == null || !previous.directory().equals(next.directory())) {
            failing = false; // the failure was the old directory's
            LOG.log(Level.INFO, "{0}: {1}", journalDirectory, next == null ? "journal archiving off"
                    : "archiving sealed segments to " + next.directory());
        }
        Locks.locked(lock, () -> {
            reconfigured = true;
            wake.signal();
        });
    }

    /** Test hook: shorter backoffs and seal checks, so that a test sees a retry or a check without waiting. */
    void timing(long minBackoff, long maxBackoff, long sealPoll) {
        minBackoffMillis = minBackoff;
        maxBackoffMillis = maxBackoff;
        sealPollMillis = sealPoll;
    }

    long sealChecks() {
        return sealChecks;
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** A segment was sealed or the history replaced: look again, unless a failure's backoff runs. */
    void signal() {
        Locks.locked(lock, () -> {
            signalled = true;
            wake.signal();
        });
    }

    /** Stops the thread (a copy under way is abandoned, its temporary file removed) and waits for it. */
    void close() {
        closing = true;
        signal();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The purge guard: while archiving is configured, a segment not yet archived there is kept. */
    boolean keeps(Segment segment) {
        Target t = target;
        return t != null && !t.directory().equals(segment.archivedTo);
    }

    /** @return the archive's state, or null while archiving is off */
    ArchiveStatus status() {
        Target t = target;
        if (t == null) {
            return null;
        }
        long durable = durableSequence.getAsLong();
        List<Segment> list = segments.snapshot();
        long archivedUpTo = -1;
        int pendingSegments = 0;
        long pendingBytes = 0;
        for (Segment s : list) {
            boolean sealed = s.archiveNumber > 0;
            if (sealed && t.directory().equals(s.archivedTo)) {
                continue;
            }
            if (archivedUpTo < 0) {
                archivedUpTo = s.startSequence - 1;
            }
            if (sealed) {
                pendingSegments++;
                pendingBytes += s.bytes;
            }
        }
        archivedUpTo = Math.max(archivedUpTo, 0);
        return new ArchiveStatus(t.directory().toString(), archivedUpTo, Math.max(0, durable - archivedUpTo),
                pendingSegments, pendingBytes, archivedSegments, lastArchived, lastArchivedAtMillis, failures,
                lastFailed, lastError, lastErrorAtMillis, failing);
    }

    private void run() {
        long waitNanos = 0;
        while (true) {
            Target t;
            lock.lock();
            try {
                long remaining = waitNanos;
                // while backing off, a new segment waits with the others: a primary sealing every few hundred
                // milliseconds must not turn the backoff into an ERROR line per seal
                while (!closing && !reconfigured && (backoffMillis > 0 || !signalled) && remaining > 0) {
                    remaining = wake.awaitNanos(remaining);
                }
                if (closing) {
                    return;
                }
                if (reconfigured) {
                    backoffMillis = 0; // a new directory (or the old one, fixed) is tried at once
                }
                signalled = false;
                reconfigured = false;
                t = target;
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            if (t == null) {
                backoffMillis = 0;
                waitNanos = Long.MAX_VALUE;
                continue;
            }
            boolean wasFailing = failing;
            try {
                if (pass(t)) {
                    if (wasFailing && target == t && !closing) {
                        // nothing left that failed: archived since, or set aside with a lineage
                        failing = false;
                        LOG.log(Level.INFO, "{0}: the journal archive {1} is up to date again", journalDirectory,
                                t.directory());
                    }
                    backoffMillis = 0;
                    waitNanos = maybeSeal(t);
                } else {
                    backoffMillis = nextBackoff();
                    waitNanos = TimeUnit.MILLISECONDS.toNanos(backoffMillis);
                }
            } catch (Closing e) {
                return;
            } catch (RuntimeException e) {
                // a bug, not an archive failure: still loud, still retried, never a reason to delete anything
                failed(t, "(the archiver)", e);
                waitNanos = TimeUnit.MILLISECONDS.toNanos(maxBackoffMillis);
            }
        }
    }

    /** Archives every sealed segment not yet archived, oldest first; stops at the first failure. */
    private boolean pass(Target t) {
        for (Segment s : segments.snapshot()) {
            if (s.archiveNumber == 0) {
                break; // the live segment, last in the list
            }
            if (closing || target != t) {
                return true; // the next pass works for the new configuration
            }
            if (t.directory().equals(s.archivedTo)) {
                continue;
            }
            ArchivedSegmentName name = ArchivedSegmentName.of(s.startSequence, s.lastSequence, s.tailChain);
            try {
                boolean copied = archive(t.directory(), s, name);
                failing = false; // before the segment counts as archived: a status never shows both
                s.archivedTo = t.directory();
                archivedSegments++;
                lastArchived = name.toString();
                lastArchivedAtMillis = clock.millis();
                LOG.log(Level.DEBUG, "{0}: {1} {2} as {3}", journalDirectory, copied ? "archived" : "found archived",
                        s.name(), name);
            } catch (IOException | RuntimeException e) {
                if (e instanceof Closing c) {
                    throw c;
                }
                if (!segments.contains(s)) {
                    continue; // purged while archiving was switched off, or set aside in a lineage: not ours now
                }
                failed(t, s.name() + " (" + name + ")", e);
                return false;
            }
        }
        return true;
    }

    private void failed(Target t, String segment, Exception e) {
        lastFailed = segment;
        lastError = e instanceof IOException && e.getMessage() != null ? e.getMessage() : e.toString();
        lastErrorAtMillis = clock.millis();
        failing = true;
        failures++; // last: a reader that sees the count sees the failure's details
        long retryIn = nextBackoff();
        LOG.log(Level.ERROR, "{0}: cannot archive {1} to {2}: {3}; it stays in the journal, retry in {4} ms "
                + "({5} failures)", journalDirectory, segment, t.directory(), lastError, retryIn, failures);
    }

    private long nextBackoff() {
        return backoffMillis == 0 ? minBackoffMillis : Math.min(maxBackoffMillis, backoffMillis * 2);
    }

    /**
     * Copies one sealed segment into the archive, or finds it there.
     *
     * @return true when copied, false when an identical file of its name was there already
     * @throws IOException when the archive cannot take it, or holds another file under its name
     */
    private boolean archive(Path directory, Segment s, ArchivedSegmentName name) throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new IOException("the archive directory " + directory + " does not exist or is not a directory");
        }
        Path file = directory.resolve(name.toString());
        try (FileChannel source = FileChannel.open(s.path, StandardOpenOption.READ)) {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                return !sameContent(file, source);
            }
            Path tmp = directory.resolve(name + ArchiveCleanup.TEMPORARY
                    + HexFormat.of().toHexDigits(RANDOM.nextInt()));
            try {
                byte[] read;
                try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    read = copy(source, out);
                    out.force(true);
                }
                byte[] written = digest(tmp);
                if (!MessageDigest.isEqual(read, written)) {
                    throw new IOException("verification failed: the copy's SHA-256 " + hex(written)
                            + " differs from the segment's " + hex(read));
                }
                if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                    // another node of this history archived it meanwhile
                    return !sameContent(file, source);
                }
                DurableFiles.rename(tmp, file);
            } finally {
                Files.deleteIfExists(tmp);
            }
            DurableFiles.syncDirectory(directory);
            return true;
        }
    }

    /**
     * @return true when {@code file} holds exactly the segment
     * @throws IOException when it holds something else: never replaced, an operator decides
     */
    private boolean sameContent(Path file, FileChannel source) throws IOException {
        byte[] theirs = digest(file);
        byte[] ours = copy(source, null);
        if (!MessageDigest.isEqual(theirs, ours)) {
            throw new IOException(file + " exists with other content (SHA-256 " + hex(theirs) + ", the segment's "
                    + hex(ours) + "); it is not replaced");
        }
        return true;
    }

    /** @return the SHA-256 of {@code source}, whole, written to {@code out} as read (null: only hashed) */
    private byte[] copy(FileChannel source, FileChannel out) throws IOException {
        MessageDigest sha = sha256();
        ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
        long at = 0;
        long outAt = 0;
        while (true) {
            if (closing) {
                throw new Closing();
            }
            buffer.clear();
            int n = source.read(buffer, at);
            if (n < 0) {
                return sha.digest();
            }
            at += n;
            buffer.flip();
            sha.update(buffer.duplicate());
            while (out != null && buffer.hasRemaining()) {
                outAt += out.write(buffer, outAt);
            }
        }
    }

    private byte[] digest(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return copy(ch, null);
        }
    }

    /** While archiving, on a primary: asks for the live segment to be sealed once its first entry is too old. */
    private long maybeSeal(Target t) {
        if (t.intervalSeconds() == 0) {
            return Long.MAX_VALUE;
        }
        // polled, not timed from the first entry: the journal thread tells nobody when a segment gets its first one
        long pollNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(sealPollMillis),
                TimeUnit.SECONDS.toNanos(t.intervalSeconds()));
        sealChecks++;
        if (!rotatesBySize.getAsBoolean()) {
            return pollNanos;
        }
        List<Segment> list = segments.snapshot();
        Segment live = list.get(list.size() - 1);
        if (live.isEmpty() || live.startSequence == sealRequestedFor) {
            return pollNanos;
        }
        long first = live.firstTimestampNs != 0 ? live.firstTimestampNs : live.lastTimestampNs;
        long nowNs = TimeUnit.MILLISECONDS.toNanos(clock.millis());
        if (nowNs - first >= TimeUnit.SECONDS.toNanos(t.intervalSeconds())) {
            sealRequestedFor = live.startSequence;
            try {
                seal.run();
            } catch (RuntimeException e) {
                // the journal stopped or closes: its own status says so
                LOG.log(Level.DEBUG, "{0}: sealing for the archive interval: {1}", journalDirectory, e.toString());
            }
        }
        return pollNanos;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static String hex(byte[] digest) {
        return HexFormat.of().formatHex(digest);
    }
}
