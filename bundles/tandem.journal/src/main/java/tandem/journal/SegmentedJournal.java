package tandem.journal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

import tandem.api.journal.DurabilityListener;
import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStatus;
import tandem.api.journal.JournalStoppedException;
import tandem.api.journal.JournalTap;
import tandem.api.journal.SegmentInfo;
import tandem.api.journal.SlotVisitor;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/**
 * The segmented journal: {@code DIR/journal} is the live segment, {@code DIR/journal.000001}, {@code .000002} …
 * are sealed archives (numbers monotonic while any archive is retained), every file a {@link SegmentHeader} and
 * {@link JournalEntry entries} back to back.
 *
 * <p>Design note: one sequencer thread appends; it encodes entries into the pending batch buffer under a lock
 * (no allocation once the batch buffers have grown). The journal thread swaps the pending buffer for its drained
 * one, writes it with one positional write and one {@code fdatasync} and advances the durable sequence right then:
 * whatever was appended while it synced goes into the next write (group commit). A failed write or sync stops the
 * journal for good (fail-stop): the durable sequence freezes, and every waiter and every later append gets
 * {@link JournalStoppedException}.
 *
 * <p>Design note: the chain is not on the durability path. BLAKE3 runs at a fraction of a disk's sequential
 * bandwidth, so the journal thread hands each durable batch, buffer and all, to a chain thread and takes a spare
 * buffer in exchange; the chain thread absorbs the batches in the order they were written and publishes, after each,
 * the chain value at that batch's last sequence ({@link ChainPoint}). A buffer is the chain thread's until it has
 * been absorbed, so the sequencer never overwrites bytes still to be hashed; with {@value #CHAIN_BACKLOG} spares, a
 * chain thread that falls further behind holds the next write back rather than letting memory grow. The value
 * depends only on the bytes and the anchor (see {@link ChainHash}), so the chain and the files are what hashing on
 * the journal thread gave. Whoever needs a chain value waits for the chain thread to reach the durable sequence of
 * the moment ({@link #awaitHashed()}): rotation seals a segment with the exact value at its last entry, and
 * {@code status()}, {@code verify()} and {@link #chainValue()} report a durable sequence together with the chain at
 * that same sequence.
 *
 * <p>Design note: a fragment group never spans a rotation while its command is being appended, so a segment never
 * starts inside a group; and after a restart that finds a group cut short by a crash, the next App append is
 * preceded by a Tick at the last timestamp, so that no later entry can be read as the dead group's continuation.
 */
public final class SegmentedJournal implements Journal, AutoCloseable {

    /** The pending batch's byte bound: beyond it, append waits for the journal thread. */
    static final int MAX_PENDING_BYTES = 4 * 1024 * 1024;

    /** Durable batches the chain thread may still have to absorb when the journal thread starts its next write. */
    static final int CHAIN_BACKLOG = 2;

    private static final Logger LOG = System.getLogger("tandem.journal");
    private static final String TMP = Segment.LIVE + ".tmp";
    private static final String LINEAGE = "lineage.";
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Batches between two chain values offered to the taps (spec 000's ChainCheck). */
    static final int CHAIN_CHECK_INTERVAL = 64;

    private final Path directory;
    private final Path livePath;
    private final FileIo io;
    private final Clock clock;
    private volatile JournalSettings settings;

    // --- sequencer side, guarded by lock
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition batchReady = lock.newCondition();
    private final Condition spaceFree = lock.newCondition();
    private final Condition controlDone = lock.newCondition();
    private final CRC32C appendCrc = new CRC32C();
    private final ArrayDeque<Control> controls = new ArrayDeque<>();
    private final byte[] tickPayload = new byte[8];
    private byte[] fill = new byte[64 * 1024];
    private ByteBuffer fillView = ByteBuffer.wrap(fill);
    private int fillBytes;
    private int fillCount;
    private long fillLastSequence;
    private long fillOffsetAfter;
    private long nextSequence;
    private long appendOffset;
    private boolean groupInProgress;
    private boolean danglingGroup;
    private boolean closing;
    /** Replica: the fragments of a command still being received, joined, for its replication offset. */
    private final ByteArrayOutputStream replicatedGroup = new ByteArrayOutputStream();
    private volatile long lastSequence;
    private volatile long lastTimestampNs;

    // --- journal thread side
    private byte[] drain = new byte[64 * 1024];
    private ByteBuffer drainView = ByteBuffer.wrap(drain);
    private int drainBytes;
    private long drainLastSequence;
    private long drainOffsetAfter;
    private FileIo.SegmentChannel live;
    private Segment liveSegment;
    private boolean tailOpenGroup;
    private int lastArchiveNumber;
    private final JournalEntry batchEntry = new JournalEntry();
    /** fdatasync latency and batch sizes, recorded by the journal thread. */
    final JournalMetrics metrics = new JournalMetrics();
    private final Thread journalThread;
    private volatile boolean terminated;
    private final CopyOnWriteArrayList<JournalTap> taps = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<DurabilityListener> durabilityListeners = new CopyOnWriteArrayList<>();
    private int batchesSinceCheck;
    private volatile boolean rotateBySize = true;

    // --- the chain. The journal thread alone replaces the live segment's digest, and only while the chain thread
    // has nothing to absorb; the chain thread reaches it through the batches handed to it.
    private ChainHash chain;
    private final ReentrantLock chainLock = new ReentrantLock();
    private final Condition toHashReady = chainLock.newCondition();
    private final Condition hashedAdvanced = chainLock.newCondition();
    private final ArrayDeque<Hashing> toHash = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> spareBuffers = new ArrayDeque<>();
    /** Chain comparisons asked by {@link #checkChain}, in sequence order; guarded by chainLock. */
    private final ArrayDeque<Mark> marks = new ArrayDeque<>();
    private final JournalEntry markEntry = new JournalEntry();
    private final LongConsumer beforeHash;
    private final Thread chainThread;
    private boolean chainStopping;
    private boolean chainDone;
    private Throwable chainFailure;
    /**
     * Written under chainLock (and, when the live segment changes, under the files write lock too). Its value is
     * null until someone asks for it ({@link #valued()}): finalizing a BLAKE3 value for every batch would cost more
     * than hashing a small batch.
     */
    private volatile ChainPoint hashed;
    /** The digest that absorbed up to {@link #hashed}; read under chainLock while {@link #absorbing} is false. */
    private ChainHash hashedChain;
    /** True while the chain thread absorbs a batch outside chainLock. */
    private boolean absorbing;
    /** True when an absorb failed midway: the digest holds part of a batch and vouches for nothing. */
    private boolean digestBroken;

    // --- published
    private volatile long durableSequence;
    private volatile long durableOffset;
    private volatile String stoppedReason;
    private volatile Throwable stopCause;
    private final ReentrantReadWriteLock files = new ReentrantReadWriteLock();
    private final List<Segment> segments = new ArrayList<>();
    private final ReentrantLock waitLock = new ReentrantLock();
    private final Condition durableAdvanced = waitLock.newCondition();

    private enum Kind { ROTATE, ARCHIVE_LINEAGE, ROTATE_AT, ADOPT, SEED, RESET }

    private record Mark(long sequence, byte[] expected, CompletableFuture<Boolean> result) {
    }

    /**
     * The chain value at {@code sequence}: the live segment's entry bytes end at {@code segmentEnd}, the replication
     * offset after that sequence is {@code replicationOffset}. {@code lineage} counts lineage archives, so that a
     * waiter can tell that the sequence it waits for belongs to a history that is gone. Never modify {@code value}.
     */
    record ChainPoint(int lineage, long sequence, long segmentEnd, long replicationOffset, byte[] value) {
    }

    /** A durable batch for the chain thread: {@code buffer} is the chain thread's until absorbed. */
    private record Hashing(ChainHash chain, ByteBuffer buffer, int bytes, long lastSequence, long segmentEnd,
            long replicationOffset) {
    }

    private static final class Control {
        final Kind kind;
        final long sequence;
        final byte[] hash;
        final long offset;
        Path path;
        boolean done;
        RuntimeException failure;

        Control(Kind kind) {
            this(kind, 0, null, 0);
        }

        Control(Kind kind, long sequence, byte[] hash, long offset) {
            this.kind = kind;
            this.sequence = sequence;
            this.hash = hash;
            this.offset = offset;
        }
    }

    /**
     * Opens (recovers) or creates the journal in {@code settings.directory()}.
     *
     * @throws UncheckedIOException  when the files cannot be read or written
     * @throws IllegalStateException when the journal is corrupt, with the file and sequence where it breaks
     */
    SegmentedJournal(JournalSettings settings) {
        this(settings, FileIo.STANDARD, Clock.systemUTC());
    }

    SegmentedJournal(JournalSettings settings, FileIo io, Clock clock) {
        this(settings, io, clock, sequence -> {
        });
    }

    /** @param beforeHash called on the chain thread before it absorbs the batch ending at the given sequence, so
     *                    that a test can hold the chain back and watch durability run ahead of it */
    SegmentedJournal(JournalSettings settings, FileIo io, Clock clock, LongConsumer beforeHash) {
        this.settings = settings;
        this.directory = settings.directory();
        this.livePath = directory.resolve(Segment.LIVE);
        this.io = io;
        this.clock = clock;
        this.beforeHash = beforeHash;
        try {
            recover();
        } catch (IOException e) {
            throw new UncheckedIOException(directory + ": cannot open the journal: " + e.getMessage(), e);
        }
        for (int i = 0; i < CHAIN_BACKLOG; i++) {
            spareBuffers.add(ByteBuffer.wrap(new byte[64 * 1024]));
        }
        chainThread = new Thread(this::hashLoop, "tandem-journal-chain");
        chainThread.setDaemon(true);
        chainThread.start();
        journalThread = new Thread(this::run, "tandem-journal");
        journalThread.setDaemon(true);
        journalThread.start();
    }

    // ------------------------------------------------------------------------------------------------ recovery

    private void recover() throws IOException {
        Files.createDirectories(directory);
        Files.deleteIfExists(directory.resolve(TMP));
        TreeMap<Integer, Path> archives = SegmentScanner.archives(directory);
        boolean hasLive = Files.exists(livePath);
        if (archives.isEmpty() && !hasLive) {
            byte[] anchor = new byte[ChainHash.LENGTH];
            RANDOM.nextBytes(anchor);
            createLive(1, anchor, 0);
            LOG.log(Level.INFO, "{0}: new journal (genesis anchor {1})", directory, ChainHash.hex(anchor));
        }
        SegmentScanner.Result result = SegmentScanner.scanFiles(archives, livePath);
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
        tailOpenGroup = liveSegment.tailOpenGroup;
        danglingGroup = tailOpenGroup;
        nextSequence = liveSegment.lastSequence + 1;
        lastSequence = liveSegment.lastSequence;
        durableSequence = liveSegment.lastSequence;
        lastTimestampNs = lastTimestamp();
        appendOffset = liveSegment.endOffset;
        durableOffset = appendOffset;
        fillOffsetAfter = appendOffset;
        hashed = new ChainPoint(0, liveSegment.lastSequence, liveSegment.bytes, liveSegment.endOffset, chain.value());
    }

    private long lastTimestamp() {
        for (int i = segments.size() - 1; i >= 0; i--) {
            if (!segments.get(i).isEmpty()) {
                return segments.get(i).lastTimestampNs;
            }
        }
        return 0;
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

    // ------------------------------------------------------------------------------------------------ append

    @Override
    public long append(long timestampNs, long keyHash, byte tag, byte[] payload) {
        if (timestampNs < 0) {
            throw new IllegalArgumentException("negative timestamp " + timestampNs);
        }
        if (tag != EntryTag.APP && tag != EntryTag.TICK && tag != EntryTag.EPOCH_BUMP) {
            throw new IllegalArgumentException(String.format("tag 0x%02X cannot be appended", tag));
        }
        if (tag != EntryTag.APP && payload.length > JournalEntry.MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + payload.length + " bytes for a non-App entry");
        }
        // computed before the lock: it also refuses an App payload that is not a command
        long frpl = FrplPayload.length(tag, timestampNs, payload);
        lock.lock();
        try {
            checkRunning();
            if (danglingGroup) {
                danglingGroup = false;
                if (tag == EntryTag.APP) {
                    closeDanglingGroup();
                }
            }
            if (payload.length <= JournalEntry.MAX_PAYLOAD) {
                appendOffset += frpl;
                encode(timestampNs, keyHash, tag, payload, 0, payload.length);
            } else {
                groupInProgress = true;
                int at = 0;
                while (payload.length - at > JournalEntry.MAX_PAYLOAD) {
                    encode(timestampNs, keyHash, EntryTag.APP_CONTINUATION, payload, at, JournalEntry.MAX_PAYLOAD);
                    at += JournalEntry.MAX_PAYLOAD;
                }
                appendOffset += frpl;
                encode(timestampNs, keyHash, EntryTag.APP, payload, at, payload.length - at);
                groupInProgress = false;
            }
            lastTimestampNs = timestampNs;
            return nextSequence - 1;
        } finally {
            lock.unlock();
        }
    }

    private void closeDanglingGroup() {
        long ts = lastTimestampNs;
        for (int i = 0; i < 8; i++) {
            tickPayload[i] = (byte) (ts >>> (8 * i));
        }
        LOG.log(Level.WARNING, "{0}: a command cut short by a crash ends at sequence {1}; a Tick closes it",
                directory, nextSequence - 1);
        appendOffset += FrplPayload.length(EntryTag.TICK, ts, tickPayload);
        encode(ts, 0, EntryTag.TICK, tickPayload, 0, 8);
    }

    @Override
    public void appendReplicated(long sequence, long timestampNs, long keyHash, long requestSeq, byte tag,
            ByteBuffer payload) {
        if (tag != EntryTag.APP && tag != EntryTag.APP_CONTINUATION && tag != EntryTag.TICK
                && tag != EntryTag.EPOCH_BUMP) {
            throw new IllegalArgumentException(String.format("sequence %d: tag 0x%02X cannot be appended", sequence,
                    tag));
        }
        if (payload.remaining() > JournalEntry.MAX_PAYLOAD) {
            throw new IllegalArgumentException("sequence " + sequence + ": payload of " + payload.remaining()
                    + " bytes; an entry holds at most " + JournalEntry.MAX_PAYLOAD);
        }
        // a copy: the offset needs the command's bytes, and the caller's buffer is a transport's
        byte[] bytes = new byte[payload.remaining()];
        payload.get(payload.position(), bytes);
        lock.lock();
        try {
            checkRunning();
            if (sequence != nextSequence) {
                throw new IllegalArgumentException("sequence " + sequence + " does not follow the journal's last "
                        + (nextSequence - 1));
            }
            if (timestampNs < lastTimestampNs) {
                throw new IllegalArgumentException("sequence " + sequence + ": timestamp " + timestampNs
                        + " is before the last one, " + lastTimestampNs);
            }
            // the offset advances exactly as on the primary: at complete commands, never for a discarded group
            if (tag == EntryTag.APP_CONTINUATION) {
                replicatedGroup.write(bytes, 0, bytes.length);
            } else if (tag == EntryTag.APP) {
                byte[] command = bytes;
                if (replicatedGroup.size() > 0) {
                    replicatedGroup.write(bytes, 0, bytes.length);
                    command = replicatedGroup.toByteArray();
                    replicatedGroup.reset();
                }
                appendOffset += FrplPayload.length(tag, timestampNs, command);
            } else {
                replicatedGroup.reset();
                appendOffset += FrplPayload.length(tag, timestampNs, bytes);
            }
            danglingGroup = tag == EntryTag.APP_CONTINUATION;
            encode(timestampNs, keyHash, requestSeq, tag, bytes, 0, bytes.length);
            lastTimestampNs = timestampNs;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void adopt(long startSequence, byte[] anchor, long replicationOffset) {
        if (startSequence < 1 || anchor.length != ChainHash.LENGTH || replicationOffset < 0) {
            throw new IllegalArgumentException("invalid segment identity: start " + startSequence + ", anchor of "
                    + anchor.length + " bytes, offset " + replicationOffset);
        }
        control(new Control(Kind.ADOPT, startSequence, anchor.clone(), replicationOffset));
    }

    @Override
    public void reset(long startSequence, byte[] anchor, long replicationOffset) {
        if (startSequence < 1 || anchor.length != ChainHash.LENGTH || replicationOffset < 0) {
            throw new IllegalArgumentException("invalid segment identity: start " + startSequence + ", anchor of "
                    + anchor.length + " bytes, offset " + replicationOffset);
        }
        control(new Control(Kind.RESET, startSequence, anchor.clone(), replicationOffset));
    }

    @Override
    public void rotateAt(long boundarySequence, byte[] tailHash) {
        if (tailHash.length != ChainHash.LENGTH) {
            throw new IllegalArgumentException("tail hash of " + tailHash.length + " bytes");
        }
        control(new Control(Kind.ROTATE_AT, boundarySequence, tailHash.clone(), 0));
    }

    @Override
    public void rotateBySize(boolean enabled) {
        rotateBySize = enabled;
    }

    @Override
    public void addDurabilityListener(DurabilityListener listener) {
        durabilityListeners.addIfAbsent(listener);
        String reason = stoppedReason;
        if (reason != null) {
            listener.stopped(reason);
        }
    }

    @Override
    public void removeDurabilityListener(DurabilityListener listener) {
        durabilityListeners.remove(listener);
    }

    @Override
    public void tap(JournalTap tap) {
        taps.addIfAbsent(tap);
    }

    @Override
    public void untap(JournalTap tap) {
        taps.remove(tap);
        // the journal thread calls taps holding their monitor: once we hold it, no call that began before the
        // removal is still running
        synchronized (taps) {
            taps.notifyAll();
        }
    }

    /** Encodes one entry into the pending batch, waiting while the batch is full. Holds {@link #lock}. */
    private void encode(long timestampNs, long keyHash, byte tag, byte[] payload, int offset, int length) {
        encode(timestampNs, keyHash, 0L, tag, payload, offset, length);
    }

    private void encode(long timestampNs, long keyHash, long requestSeq, byte tag, byte[] payload, int offset,
            int length) {
        int size = JournalEntry.sizeOf(length);
        while (fillCount > 0
                && (fillCount >= settings.maxBatchEntries() || fillBytes + size > MAX_PENDING_BYTES)) {
            batchReady.signal();
            spaceFree.awaitUninterruptibly();
            checkRunning();
        }
        if (fillBytes + size > fill.length) {
            byte[] bigger = new byte[Math.max(fillBytes + size, Math.min(fill.length * 2,
                    MAX_PENDING_BYTES + JournalEntry.MAX_SIZE))];
            System.arraycopy(fill, 0, bigger, 0, fillBytes);
            fill = bigger;
            fillView = ByteBuffer.wrap(bigger);
        }
        long sequence = nextSequence;
        JournalEntry.encode(fillView, fillBytes, sequence, timestampNs, keyHash, requestSeq, tag, payload, offset,
                length, appendCrc);
        nextSequence = sequence + 1;
        fillBytes += size;
        fillCount++;
        fillLastSequence = sequence;
        fillOffsetAfter = appendOffset;
        lastSequence = sequence;
        if (fillCount == 1) {
            batchReady.signal();
        }
    }

    private void checkRunning() {
        String reason = stoppedReason;
        if (reason != null) {
            throw new JournalStoppedException(reason, stopCause);
        }
        if (closing) {
            throw new JournalStoppedException("journal " + directory + " is closed", null);
        }
    }

    @Override
    public long lastSequence() {
        return lastSequence;
    }

    @Override
    public long durableSequence() {
        return durableSequence;
    }

    @Override
    public long lastTimestampNs() {
        return lastTimestampNs;
    }

    // ------------------------------------------------------------------------------------------------ journal thread

    private void run() {
        try {
            while (true) {
                lock.lock();
                try {
                    while (fillCount == 0 && !closing && !controlReady()) {
                        batchReady.awaitUninterruptibly();
                    }
                    if (controlReady()) {
                        runControl();
                        continue;
                    }
                    if (fillCount == 0) {
                        break; // closing, and everything appended is durable
                    }
                    takeBatch();
                } finally {
                    lock.unlock();
                }
                publishBatch();
                writeBatch();
                maybeOfferChain();
                maybeRotateBySize();
            }
        } catch (IOException | RuntimeException e) {
            failStop(e);
        } finally {
            // every durable batch has been handed over by now: the chain thread absorbs them, then ends
            chainLock.lock();
            try {
                chainStopping = true;
                toHashReady.signalAll();
            } finally {
                chainLock.unlock();
            }
            terminated = true;
            lock.lock();
            try {
                for (Control c : controls) {
                    c.failure = new JournalStoppedException(stoppedReason != null ? stoppedReason
                            : "journal " + directory + " is closed", stopCause);
                    c.done = true;
                }
                controls.clear();
                controlDone.signalAll();
                spaceFree.signalAll();
            } finally {
                lock.unlock();
            }
            wakeWaiters();
        }
    }

    private boolean controlReady() {
        return !controls.isEmpty() && !groupInProgress;
    }

    /** Runs a rotation or a lineage archive with appends held off: the pending batch first, then the control. */
    private void runControl() throws IOException {
        Control control = controls.poll();
        try {
            if (fillCount > 0) {
                takeBatch();
                publishBatch();
                writeBatch();
                maybeOfferChain();
            }
            switch (control.kind) {
                case ROTATE -> rotateNow();
                case ROTATE_AT -> rotateAtNow(control.sequence, control.hash);
                case ADOPT -> adoptNow(control.sequence, control.hash, control.offset);
                case SEED -> installSeedNow(control.path);
                case RESET -> {
                    archiveLineageNow();
                    adoptNow(control.sequence, control.hash, control.offset);
                }
                default -> archiveLineageNow();
            }
        } catch (RuntimeException e) {
            control.failure = e;
        } catch (IOException e) {
            control.failure = new JournalStoppedException(control.kind + " failed: " + e, e);
            throw e;
        } finally {
            control.done = true;
            controlDone.signalAll();
        }
    }

    /** Offers the batch about to be written to the taps: replicas receive it while this node syncs it. */
    private void publishBatch() {
        if (taps.isEmpty()) {
            return;
        }
        int count = 0;
        long first = 0;
        for (int p = 0; p < drainBytes; p += batchEntry.size()) {
            batchEntry.wrap(drainView, p);
            if (count++ == 0) {
                first = batchEntry.sequence();
            }
        }
        synchronized (taps) {
            for (JournalTap t : taps) {
                try {
                    t.batch(drainView.duplicate().position(0).limit(drainBytes), count, first, drainLastSequence);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, directory + ": a journal tap failed; it is removed", e);
                    taps.remove(t);
                }
            }
        }
    }

    /** Every {@link #CHAIN_CHECK_INTERVAL} batches, the chain value at the batch's end goes to the taps. */
    private void maybeOfferChain() {
        if (taps.isEmpty() || ++batchesSinceCheck < CHAIN_CHECK_INTERVAL) {
            return;
        }
        batchesSinceCheck = 0;
        ChainPoint p = awaitHashedExactly();
        byte[] value = p.value();
        synchronized (taps) {
            for (JournalTap t : taps) {
                t.chainCheck(p.sequence(), value.clone());
            }
        }
    }

    private void offerRotation(long boundary, byte[] tail) {
        synchronized (taps) {
            for (JournalTap t : taps) {
                t.rotated(boundary, tail.clone());
            }
        }
    }

    /** Swaps the pending buffer for the drained one. Holds {@link #lock}. */
    private void takeBatch() {
        byte[] b = drain;
        ByteBuffer v = drainView;
        drain = fill;
        drainView = fillView;
        drainBytes = fillBytes;
        drainLastSequence = fillLastSequence;
        drainOffsetAfter = fillOffsetAfter;
        fill = b;
        fillView = v;
        fillBytes = 0;
        fillCount = 0;
        spaceFree.signalAll();
    }

    private void writeBatch() throws IOException {
        long start = liveSegment.bytes;
        ByteBuffer v = drainView.clear().limit(drainBytes);
        long at = start;
        while (v.hasRemaining()) {
            at += live.write(v, at);
        }
        long syncStarted = System.nanoTime();
        live.force();
        metrics.batch(System.nanoTime() - syncStarted, drainLastSequence - durableSequence, drainBytes);
        // durable from here on
        long lastTs = 0;
        for (int p = 0; p < drainBytes; p += batchEntry.size()) {
            batchEntry.wrap(drainView, p);
            if (p == 0 && !tailOpenGroup) {
                // at a batch's start the replication offset before the entry is the segment's end offset
                liveSegment.index.add(batchEntry.sequence(), start, liveSegment.endOffset);
            }
            tailOpenGroup = batchEntry.tag() == EntryTag.APP_CONTINUATION;
            lastTs = batchEntry.timestampNs();
        }
        v.clear(); // this buffer becomes a sequencer's batch again: it must not keep the write's limit
        // the segment first: a reader that sees the durable sequence reads the segment up to it
        liveSegment.bytes = start + drainBytes;
        liveSegment.lastSequence = drainLastSequence;
        liveSegment.endOffset = drainOffsetAfter;
        liveSegment.tailOpenGroup = tailOpenGroup;
        liveSegment.lastTimestampNs = lastTs;
        durableOffset = drainOffsetAfter;
        durableSequence = drainLastSequence;
        wakeWaiters();
        for (DurabilityListener l : durabilityListeners) {
            l.durable(drainLastSequence);
        }
        handToChain(start + drainBytes);
    }

    /**
     * Gives the drained buffer to the chain thread and takes a spare for the next batch, waiting while the chain
     * thread holds every spare. Durability is published already: only the next write waits.
     */
    private void handToChain(long segmentEnd) {
        chainLock.lock();
        try {
            checkChainRunning();
            toHash.add(new Hashing(chain, drainView, drainBytes, drainLastSequence, segmentEnd, drainOffsetAfter));
            toHashReady.signal();
            while (spareBuffers.isEmpty()) {
                checkChainRunning();
                hashedAdvanced.awaitUninterruptibly();
            }
            drainView = spareBuffers.poll();
            drain = drainView.array();
        } finally {
            chainLock.unlock();
        }
    }

    /** A chain that can no longer advance stops the journal: it could neither rotate nor report a chain. */
    private void checkChainRunning() {
        if (chainDone) {
            throw new IllegalStateException("the chain thread of " + directory + " stopped", chainFailure);
        }
    }

    /** The chain thread: absorbs the durable batches in the order they were written. */
    private void hashLoop() {
        try {
            while (true) {
                Hashing h;
                chainLock.lock();
                try {
                    while (toHash.isEmpty() && !chainStopping) {
                        toHashReady.awaitUninterruptibly();
                    }
                    h = toHash.poll();
                } finally {
                    chainLock.unlock();
                }
                if (h == null) {
                    return; // stopping, and every batch handed over is absorbed
                }
                beforeHash.accept(h.lastSequence); // a test seam; a failure here leaves the digest untouched
                chainLock.lock();
                try {
                    absorbing = true;
                } finally {
                    chainLock.unlock();
                }
                boolean absorbed = false;
                try {
                    absorbWithMarks(h);
                    absorbed = true;
                } finally {
                    // the new point and the end of absorbing in one step: a value is never read from a digest
                    // that is ahead of the point it is paired with
                    chainLock.lock();
                    try {
                        if (absorbed) {
                            hashed = new ChainPoint(hashed.lineage(), h.lastSequence, h.segmentEnd,
                                    h.replicationOffset, null);
                            hashedChain = h.chain;
                            spareBuffers.add(h.buffer);
                        } else {
                            digestBroken = true;
                        }
                        absorbing = false;
                        hashedAdvanced.signalAll();
                    } finally {
                        chainLock.unlock();
                    }
                }
            }
        } catch (Throwable e) {
            LOG.log(Level.ERROR, directory + ": the chain thread failed; the journal stops at its next write", e);
            chainFailure = e;
        } finally {
            chainLock.lock();
            try {
                chainDone = true;
                failMarks("the journal in " + directory + " has stopped");
                hashedAdvanced.signalAll();
            } finally {
                chainLock.unlock();
            }
        }
    }

    /** Absorbs a batch, stopping at each sequence a {@link #checkChain} asked about to compare the value there. */
    private void absorbWithMarks(Hashing h) {
        int done = 0;
        while (true) {
            Mark m;
            chainLock.lock();
            try {
                m = marks.peek();
                if (m != null && m.sequence() > h.lastSequence) {
                    m = null;
                } else if (m != null) {
                    marks.poll();
                }
            } finally {
                chainLock.unlock();
            }
            if (m == null) {
                break;
            }
            int end = -1;
            for (int p = done; p < h.bytes; p += markEntry.size()) {
                markEntry.wrap(h.buffer, p);
                if (markEntry.sequence() == m.sequence()) {
                    end = p + markEntry.size();
                    break;
                }
            }
            if (end < 0) {
                m.result().completeExceptionally(new IllegalStateException("sequence " + m.sequence()
                        + " passed by the chain without being compared"));
                continue;
            }
            h.chain.absorb(h.buffer.array(), done, end - done);
            done = end;
            m.result().complete(java.util.Arrays.equals(h.chain.value(), m.expected()));
        }
        h.chain.absorb(h.buffer.array(), done, h.bytes - done);
    }

    /** Holds chainLock. */
    private void failMarks(String why) {
        for (Mark m : marks) {
            m.result().completeExceptionally(new JournalStoppedException(why, chainFailure));
        }
        marks.clear();
    }

    @Override
    public CompletionStage<Boolean> checkChain(long sequence, byte[] expected) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        chainLock.lock();
        try {
            if (chainDone) {
                result.completeExceptionally(new JournalStoppedException("the journal in " + directory
                        + " has stopped", chainFailure));
            } else if (sequence > hashed.sequence() && sequence <= lastSequence) {
                marks.add(new Mark(sequence, expected.clone(), result));
                return result;
            }
        } finally {
            chainLock.unlock();
        }
        if (!result.isDone()) {
            byte[] at = chainAt(sequence);
            if (at == null) {
                result.completeExceptionally(new IllegalStateException("sequence " + sequence
                        + " cannot be checked: not durable or not retained"));
            } else {
                result.complete(java.util.Arrays.equals(at, expected));
            }
        }
        return result;
    }

    @Override
    public byte[] chainAt(long sequence) {
        if (sequence > durableSequence) {
            return null;
        }
        List<Segment> snapshot = segmentsSnapshot();
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
                ChainPoint p = valued();
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
    private byte[] scanChain(Segment seg, long sequence) throws IOException {
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

    @Override
    public long generation() {
        return hashed.lineage();
    }

    // ------------------------------------------------------------------------------------------------ offsets

    @Override
    public long offsetAfter(long sequence) {
        if (sequence < 0 || sequence > durableSequence) {
            return -1;
        }
        for (Segment seg : segmentsSnapshot()) {
            if (sequence == seg.startSequence - 1) {
                return seg.headerOffset;
            }
            if (sequence < seg.startSequence || sequence > seg.lastSequence) {
                continue;
            }
            if (sequence == seg.lastSequence) {
                return seg.endOffset;
            }
            long[] point = seg.index.floor(sequence);
            long[] result = {-1};
            scanOffsets(seg, point, (seq, after, boundary) -> {
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

    @Override
    public long sequenceAtOffset(long offset) {
        if (offset < 0 || offset > durableOffset) {
            return -1;
        }
        for (Segment seg : segmentsSnapshot()) {
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
            scanOffsets(seg, point, (seq, after, boundary) -> {
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

    /**
     * Reads a segment's durable entries from an index point (its first entry when null), adding each complete
     * command's FRPL length to the offset the point records, as the scan at open computed it.
     */
    private void scanOffsets(Segment seg, long[] point, OffsetVisitor visitor) {
        FileChannel ch;
        long limit;
        files.readLock().lock();
        try {
            limit = seg.bytes;
            try {
                ch = seg.readChannel();
            } catch (IOException e) {
                throw new IllegalArgumentException(seg.name() + " is no longer retained in " + directory, e);
            }
        } finally {
            files.readLock().unlock();
        }
        long start = point == null ? SegmentHeader.SIZE : point[1];
        long offset = point == null ? seg.headerOffset : point[2];
        EntryCursor cursor = new EntryCursor(ch, start, limit);
        ByteArrayOutputStream group = new ByteArrayOutputStream();
        try {
            while (true) {
                int r = cursor.next();
                if (r == JournalEntry.END && cursor.validEnd() == limit) {
                    return;
                }
                if (r < 0) {
                    throw new IllegalStateException(seg.name() + ": " + JournalEntry.reason(r) + " at offset "
                            + cursor.entryOffset() + " inside the durable journal");
                }
                JournalEntry e = cursor.entry();
                byte tag = e.tag();
                boolean boundary = true;
                if (tag == EntryTag.APP_CONTINUATION) {
                    group.write(cursor.array(), e.payloadOffset(), e.payloadLength());
                    boundary = false;
                } else if (tag == EntryTag.APP) {
                    byte[] payload;
                    if (group.size() > 0) {
                        group.write(cursor.array(), e.payloadOffset(), e.payloadLength());
                        payload = group.toByteArray();
                        group.reset();
                    } else {
                        payload = e.payload();
                    }
                    offset += FrplPayload.length(tag, e.timestampNs(), payload);
                } else {
                    group.reset(); // an entry after an open group discards the group
                    offset += FrplPayload.length(tag, e.timestampNs(), null);
                }
                if (!visitor.entry(e.sequence(), offset, boundary)) {
                    return;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + seg.name() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public List<SegmentInfo> segments() {
        List<SegmentInfo> out = new ArrayList<>();
        for (Segment seg : segmentsSnapshot()) {
            out.add(new SegmentInfo(seg.name(), seg.startSequence, seg.lastSequence, seg.anchor.clone(),
                    seg.headerOffset, seg.archiveNumber > 0));
        }
        return out;
    }

    @Override
    public void readSlots(long afterSequence, SlotVisitor visitor) {
        long durable = durableSequence;
        List<Segment> snapshot = segmentsSnapshot();
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
                            + JournalEntry.SLOT_OFFSET, e.size() - 6).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
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
     * Waits until the chain thread has absorbed everything durable at the call, or until it can absorb nothing more
     * (it stopped, or the lineage was archived meanwhile).
     *
     * @return the chain at the last sequence absorbed: at or after the durable sequence of the call, unless the
     *         chain thread stopped (failure) or the lineage changed
     */
    private ChainPoint awaitHashed() {
        chainLock.lock();
        try {
            long target = durableSequence; // read under chainLock: a lineage archive resets it with the point
            ChainPoint p = hashed;
            int lineage = p.lineage();
            while (p.sequence() < target && p.lineage() == lineage && !chainDone) {
                hashedAdvanced.awaitUninterruptibly();
                p = hashed;
            }
            return valued();
        } finally {
            chainLock.unlock();
        }
    }

    /**
     * The current point with its value, computed now if nobody asked for it since the chain thread last moved.
     * Waits while the chain thread is absorbing, so that the digest read is exactly the one at the point.
     */
    private ChainPoint valued() {
        chainLock.lock();
        try {
            while (absorbing) {
                hashedAdvanced.awaitUninterruptibly();
            }
            ChainPoint p = hashed;
            if (p.value() == null) {
                if (digestBroken) {
                    // the digest holds part of a batch: no value can be vouched for
                    throw new IllegalStateException("the chain thread of " + directory + " failed", chainFailure);
                }
                p = new ChainPoint(p.lineage(), p.sequence(), p.segmentEnd(), p.replicationOffset(),
                        hashedChain.value());
                hashed = p;
            }
            return p;
        } finally {
            chainLock.unlock();
        }
    }

    /** Journal thread: the chain at the durable sequence, exactly, once the chain thread has caught up. */
    private ChainPoint awaitHashedExactly() {
        ChainPoint p = awaitHashed();
        if (p.sequence() != durableSequence) {
            throw new IllegalStateException("the chain thread of " + directory + " stopped at sequence "
                    + p.sequence() + " before the durable sequence " + durableSequence, chainFailure);
        }
        return p;
    }

    private void maybeRotateBySize() throws IOException {
        if (!rotateBySize || liveSegment.bytes < settings.segmentSize()) {
            return;
        }
        if (tailOpenGroup) {
            // the durable tail ends inside a command: its last fragment is on its way (appended and waiting for
            // the next batch, or still being appended); rotate after it, so that no group spans two segments
            return;
        }
        rotateNow();
    }

    /** Seals the live segment as the next archive and installs its successor. Journal thread only. */
    private void rotateNow() throws IOException {
        Segment sealed = liveSegment;
        if (sealed.isEmpty()) {
            return;
        }
        // the journal thread hands batches over, so nothing of this segment can still be on its way to the chain
        ChainPoint end = awaitHashedExactly();
        byte[] tail = end.value().clone();
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
            // under the files lock: verify() pairs the point with the segments it sees
            chain = new ChainHash(tail);
            liveSegment = next;
            publishPoint(new ChainPoint(end.lineage(), sealed.lastSequence, SegmentHeader.SIZE, sealed.endOffset,
                    tail));
        } finally {
            files.writeLock().unlock();
        }
        live = io.open(livePath, false);
        LOG.log(Level.INFO, "{0}: sealed {1} (sequences {2}..{3}), live segment starts at {4}", directory,
                sealed.name(), sealed.startSequence, sealed.lastSequence, next.startSequence);
        offerRotation(sealed.lastSequence, tail);
    }

    /** Replica: the rotation the primary announced, after checking the tail chain. Journal thread, holding lock. */
    private void rotateAtNow(long boundary, byte[] expected) throws IOException {
        if (liveSegment.startSequence == boundary + 1) {
            return; // announced again on a reconnection
        }
        if (lastSequence != boundary) {
            throw new IllegalStateException("rotation announced after sequence " + boundary
                    + " but the journal's last sequence is " + lastSequence);
        }
        if (liveSegment.isEmpty()) {
            throw new IllegalStateException("rotation announced after sequence " + boundary
                    + " but the live segment starting at " + liveSegment.startSequence + " is empty");
        }
        byte[] tail = awaitHashedExactly().value();
        boolean announced = !java.util.Arrays.equals(expected, new byte[ChainHash.LENGTH]);
        if (announced && !java.util.Arrays.equals(expected, tail)) {
            throw new IllegalStateException("chain mismatch at rotation after sequence " + boundary + ": primary "
                    + ChainHash.hex(expected) + ", this journal " + ChainHash.hex(tail));
        }
        rotateNow();
    }

    @Override
    public long writeSeed(long snapSequence, java.nio.channels.WritableByteChannel out) throws IOException {
        if (snapSequence > durableSequence) {
            throw new IllegalArgumentException("sequence " + snapSequence + " is not durable");
        }
        Segment holder = null;
        for (Segment seg : segmentsSnapshot()) {
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

    @Override
    public void installSeed(Path seed) {
        Control c = new Control(Kind.SEED);
        c.path = seed;
        control(c);
    }

    /**
     * Replica after a snapshot: archives the lineage and makes the seed the live segment. The seed is scanned first
     * (header, entry CRCs, sequences); a seed that is not sound changes nothing. Journal thread, holding lock.
     */
    private void installSeedNow(Path seed) throws IOException {
        SegmentScanner.Result scanned = SegmentScanner.scanFiles(new TreeMap<>(), seed);
        if (scanned.broken != null || scanned.tornAt >= 0 || scanned.segments.size() != 1) {
            throw new IllegalStateException("the segment seed " + seed + " is not a sound segment prefix: "
                    + (scanned.broken != null ? scanned.broken.openMessage() : String.valueOf(scanned.tornReason)));
        }
        Segment seeded = scanned.segments.get(0);
        archiveLineageNow(); // the old history is kept as a lineage, and every waiter on it is released
        files.writeLock().lock();
        try {
            live.close();
            liveSegment.closeReadChannel();
            Files.delete(livePath);
            Files.move(seed, livePath, StandardCopyOption.ATOMIC_MOVE);
            io.syncDirectory(directory);
            seeded.path = livePath;
            becomeOnly(seeded, scanned.liveChain, "the journal in " + directory + " installed a segment seed");
        } finally {
            files.writeLock().unlock();
        }
        LOG.log(Level.INFO, "{0}: installed a segment seed: sequences {1}..{2}, chain {3}", directory,
                seeded.startSequence, seeded.lastSequence, ChainHash.hex(chain.value()));
    }

    /**
     * Makes {@code next}, already at the live path, the journal's only segment and its end the journal's position
     * (durable: it is on disk). Journal thread, holding {@link #lock} and the files write lock.
     */
    private void becomeOnly(Segment next, ChainHash nextChain, String why) throws IOException {
        segments.clear();
        segments.add(next);
        liveSegment = next;
        chain = nextChain;
        chainLock.lock();
        try {
            failMarks(why);
            durableOffset = next.endOffset;
            durableSequence = next.lastSequence;
            hashed = new ChainPoint(hashed.lineage() + 1, next.lastSequence, next.bytes, next.endOffset,
                    nextChain.value());
            hashedAdvanced.signalAll();
        } finally {
            chainLock.unlock();
        }
        live = io.open(livePath, false);
        tailOpenGroup = next.tailOpenGroup;
        danglingGroup = tailOpenGroup;
        replicatedGroup.reset();
        nextSequence = next.lastSequence + 1;
        lastSequence = next.lastSequence;
        if (!next.isEmpty()) {
            lastTimestampNs = next.lastTimestampNs;
        }
        appendOffset = next.endOffset;
        fillOffsetAfter = appendOffset;
    }

    /** Fresh replica: a new live segment with the primary's identity. Journal thread, holding lock. */
    private void adoptNow(long startSequence, byte[] anchor, long offset) throws IOException {
        if (segments.size() != 1 || !liveSegment.isEmpty() || lastSequence != liveSegment.startSequence - 1) {
            throw new IllegalStateException("the journal in " + directory + " holds entries; it cannot adopt a "
                    + "primary's segment");
        }
        awaitHashedExactly();
        files.writeLock().lock();
        try {
            live.close();
            liveSegment.closeReadChannel();
            Files.delete(livePath);
            Segment adopted = createLive(startSequence, anchor, offset);
            becomeOnly(adopted, new ChainHash(anchor), "the journal in " + directory
                    + " adopted a primary's segment");
        } finally {
            files.writeLock().unlock();
        }
        LOG.log(Level.INFO, "{0}: adopted the primary''s segment identity: start {1}, anchor {2}, offset {3}",
                directory, startSequence, ChainHash.hex(anchor), offset);
    }

    /** Moves every segment into {@code lineage.<n>/} and starts a new genesis. Journal thread, holding lock. */
    private void archiveLineageNow() throws IOException {
        // the old lineage's batches must all be absorbed before the chain restarts, or they would land in the new one
        ChainPoint end = awaitHashedExactly();
        byte[] anchor = new byte[ChainHash.LENGTH];
        RANDOM.nextBytes(anchor);
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
            int keep = settings.lineageArchivesKeep();
            for (int i = 0; i < all.size() - keep; i++) {
                tandem.protocol.files.DurableFiles.deleteTree(directory.resolve(LINEAGE + all.get(i)));
            }
            genesis = createLive(1, anchor, 0);
            segments.add(genesis);
            chain = new ChainHash(anchor);
            liveSegment = genesis;
            chainLock.lock();
            try {
                // with the point, atomically for awaitHashed(): a waiter for the old lineage stops waiting
                failMarks("the lineage of " + directory + " was archived");
                durableOffset = 0;
                durableSequence = 0;
                hashed = new ChainPoint(end.lineage() + 1, 0, SegmentHeader.SIZE, 0, anchor.clone());
                hashedAdvanced.signalAll();
            } finally {
                chainLock.unlock();
            }
            LOG.log(Level.WARNING, "{0}: lineage archived to {1}; new genesis (anchor {2})", directory,
                    target.getFileName(), ChainHash.hex(anchor));
        } finally {
            files.writeLock().unlock();
        }
        live = io.open(livePath, false);
        lastArchiveNumber = 0;
        tailOpenGroup = false;
        danglingGroup = false;
        nextSequence = 1;
        lastSequence = 0;
        appendOffset = 0;
        fillOffsetAfter = 0;
    }

    private void publishPoint(ChainPoint point) {
        chainLock.lock();
        try {
            hashed = point;
            hashedAdvanced.signalAll();
        } finally {
            chainLock.unlock();
        }
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

    private void failStop(Throwable e) {
        stopCause = e;
        stoppedReason = "journal " + directory + " stopped after a failed write or sync at durable sequence "
                + durableSequence + ": " + e;
        LOG.log(Level.ERROR, stoppedReason, e);
        for (DurabilityListener l : durabilityListeners) {
            l.stopped(stoppedReason);
        }
        try {
            live.close();
        } catch (IOException | RuntimeException ignored) {
            // already failing; the reason above is what matters
        }
    }

    private void wakeWaiters() {
        waitLock.lock();
        try {
            durableAdvanced.signalAll();
        } finally {
            waitLock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ waiting

    @Override
    public void awaitDurable(long sequence) throws InterruptedException {
        if (sequence <= durableSequence) {
            return;
        }
        switch (settings.waitStrategy()) {
            case BLOCKING -> {
                waitLock.lockInterruptibly();
                try {
                    while (sequence > durableSequence) {
                        checkWaitable(sequence);
                        durableAdvanced.await();
                    }
                } finally {
                    waitLock.unlock();
                }
            }
            case SPIN_YIELD -> {
                int spins = 0;
                while (sequence > durableSequence) {
                    checkWaitable(sequence);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    if (++spins < 200) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield();
                    }
                }
            }
            case BUSY_SPIN -> {
                while (sequence > durableSequence) {
                    checkWaitable(sequence);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    Thread.onSpinWait();
                }
            }
        }
    }

    private void checkWaitable(long sequence) {
        // terminated first: a failed sync sets the reason before the journal thread ends, so a waiter that sees the
        // end also sees why (read the other way round, it could name a close instead of the failure)
        boolean ended = terminated;
        String reason = stoppedReason;
        if (reason != null) {
            throw new JournalStoppedException(reason, stopCause);
        }
        if (ended && sequence > durableSequence) {
            throw new JournalStoppedException("journal " + directory + " closed before sequence " + sequence
                    + " became durable", null);
        }
    }

    // ------------------------------------------------------------------------------------------------ control

    @Override
    public void rotate() {
        control(Kind.ROTATE);
    }

    /**
     * Moves every segment into {@code DIR/lineage.<n>/} (n increasing; the oldest beyond
     * {@code lineage.archives.keep} are deleted) and starts a new genesis: sequence 1, a fresh random anchor,
     * replication offset 0. For a node whose history diverged from its new primary's.
     */
    public void archiveLineage() {
        control(Kind.ARCHIVE_LINEAGE);
    }

    private void control(Kind kind) {
        control(new Control(kind));
    }

    private void control(Control c) {
        lock.lock();
        try {
            checkRunning();
            controls.add(c);
            batchReady.signal();
            while (!c.done) {
                controlDone.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
        if (c.failure != null) {
            throw c.failure;
        }
    }

    /** Applies the tunables that can change live; the directory applies when the journal is next opened. */
    void reconfigure(JournalSettings next) {
        settings = next;
        lock.lock();
        try {
            spaceFree.signalAll();
        } finally {
            lock.unlock();
        }
    }

    JournalSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closing = true;
            batchReady.signal();
        } finally {
            lock.unlock();
        }
        boolean interrupted = false;
        // the journal thread ends first and then tells the chain thread to finish what it was handed
        for (Thread t : new Thread[] {journalThread, chainThread}) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            live.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "{0}: closing the live segment: {1}", livePath, e.getMessage());
        }
        for (Segment seg : segmentsSnapshot()) {
            seg.closeReadChannel();
        }
    }

    // ------------------------------------------------------------------------------------------------ read

    @Override
    public void read(long afterSequence, EntryVisitor visitor) {
        long durable = durableSequence;
        List<Segment> snapshot = segmentsSnapshot();
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

    private List<Segment> segmentsSnapshot() {
        files.readLock().lock();
        try {
            return new ArrayList<>(segments);
        } finally {
            files.readLock().unlock();
        }
    }

    /** Receives the entries of {@link #forEachEntry}; false stops the read. */
    private interface EntryHandler {
        boolean entry(JournalEntry entry, EntryCursor cursor);
    }

    /**
     * Reads a segment's durable bytes from the index point at or before sequence {@code from} (its first entry when
     * {@code from} is 0) and hands each entry over until the handler stops.
     *
     * @return false when the handler stopped the read
     */
    private boolean forEachEntry(Segment segment, long from, EntryHandler handler) throws IOException {
        FileChannel ch;
        long limit;
        files.readLock().lock();
        try {
            limit = segment.bytes; // read after the durable sequence: covers at least that much
            try {
                ch = segment.readChannel();
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("sequence " + Math.max(from, segment.startSequence)
                        + " is no longer retained in " + directory, e);
            }
        } finally {
            files.readLock().unlock();
        }
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
        EntryCursor cursor = new EntryCursor(ch, start, limit);
        long lastSeq = 0;
        long lastEnd = 0;
        try {
            while (true) {
                int r = cursor.next();
                if (r == JournalEntry.END && cursor.validEnd() == limit) {
                    return true;
                }
                if (r < 0) {
                    throw new IllegalStateException(segment.name() + ": " + JournalEntry.reason(r) + " at offset "
                            + cursor.entryOffset() + " inside the durable journal");
                }
                JournalEntry e = cursor.entry();
                if (!handler.entry(e, cursor)) {
                    return false;
                }
                lastSeq = e.sequence();
                lastEnd = cursor.entryOffset() + e.size();
            }
        } finally {
            if (lastSeq > 0) {
                segment.resume = new long[] {lastSeq, lastEnd};
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

    // ------------------------------------------------------------------------------------------------ retention

    /**
     * Deletes archives, oldest first, whose last sequence is at or below {@code appliedAndFlushed} — the store no
     * longer needs them to restart — unless the retention configuration keeps them for lagging replicas: an
     * eligible archive stays while the journal's total size is within {@code retention.max.bytes} and the archive
     * is younger than {@code retention.max.age.seconds} (0 keeps none). The live segment is never deleted.
     */
    @Override
    public int purge(long appliedAndFlushed) {
        JournalSettings s = settings;
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
        } catch (IOException e) {
            throw new UncheckedIOException("purging the journal in " + directory + ": " + e.getMessage(), e);
        } finally {
            files.writeLock().unlock();
        }
        return deleted;
    }

    // ------------------------------------------------------------------------------------------------ verify, status

    @Override
    public String verify() {
        return verify(null);
    }

    /** {@link #verify()}, telling {@code progress} how far it got; null: never. */
    public String verify(Progress progress) {
        List<FileChannel> channels = new ArrayList<>();
        List<SegmentScanner.Source> sources = new ArrayList<>();
        byte[] expectedChain;
        long liveEnd;
        try {
            awaitHashed(); // so that the value checked covers what was durable at the call
            files.readLock().lock();
            try {
                // the point moves on with the chain thread, but always in step with the live segment's end
                ChainPoint p = valued();
                expectedChain = p.value();
                liveEnd = p.segmentEnd();
                for (Segment seg : segments) {
                    FileChannel ch = FileChannel.open(seg.path, StandardOpenOption.READ);
                    channels.add(ch);
                    boolean isLive = seg.archiveNumber == 0;
                    sources.add(new SegmentScanner.Source(seg.path, seg.archiveNumber, ch, isLive,
                            isLive ? liveEnd : Long.MAX_VALUE));
                }
            } finally {
                files.readLock().unlock();
            }
            SegmentScanner.Result result = new SegmentScanner(progress).scan(sources, false);
            if (result.broken != null) {
                return result.broken.verifyMessage();
            }
            Segment tail = result.segments.get(result.segments.size() - 1);
            if (!java.util.Arrays.equals(tail.tailChain, expectedChain)) {
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

    @Override
    public JournalStatus status() {
        List<Segment> snapshot = segmentsSnapshot();
        long bytes = 0;
        for (Segment s : snapshot) {
            bytes += s.bytes;
        }
        // durable sequence, replication offset and chain from one point, at or after the durable sequence of the
        // call: a status never pairs a chain value with a sequence it does not cover
        ChainPoint p = awaitHashed();
        long last = lastSequence;
        long first = snapshot.get(0).startSequence;
        return new JournalStatus(directory.toString(), last >= first ? first : 0, last, p.sequence(),
                lastTimestampNs, p.replicationOffset(), snapshot.size(), bytes, ChainHash.hex(p.value()),
                stoppedReason);
    }

    /** @return the chain value at the durable sequence of the call (or later), once the chain thread has it */
    byte[] chainValue() {
        return awaitHashed().value().clone();
    }

    /** @return the chain at the last sequence the chain thread has absorbed, without waiting: it may trail */
    ChainPoint hashedChain() {
        return valued();
    }

    /** @return the journal thread and the chain thread, for tests that check that none outlives the journal */
    List<Thread> threads() {
        return List.of(journalThread, chainThread);
    }

    /** @return the replication offset after the last durable complete command */
    long replicationOffset() {
        return durableOffset;
    }

    List<Segment> segmentList() {
        return segmentsSnapshot();
    }

    Path directory() {
        return directory;
    }
}
