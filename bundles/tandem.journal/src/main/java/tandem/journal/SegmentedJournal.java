package tandem.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongConsumer;

import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.DurabilityListener;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStatus;
import tandem.api.journal.JournalTap;
import tandem.api.journal.SegmentInfo;
import tandem.api.journal.SlotVisitor;
import tandem.journal.Appender.Control;
import tandem.journal.Appender.Kind;
import tandem.journal.ChainHasher.ChainPoint;

/**
 * The segmented journal, wired from its parts, each with one job and its own state: the {@link Appender}
 * (sequencer side: entries into the pending batch), the {@link Writer} (the journal thread: one write and one
 * {@code fdatasync} per batch, rotation, controls), {@link Durability} (the durable sequence published, its waiters
 * and listeners, fail-stop), the {@link ChainHasher} (the chain thread), the {@link SegmentSet} (the files) and the
 * reads ({@link Reads}, {@link Offsets}). Three threads touch it: the sequencer, the journal thread and the chain
 * thread; readers come from anywhere. {@link JournalComponent} registers it as the node's journal.
 */
public class SegmentedJournal implements Journal, AutoCloseable {

    private final Path directory;
    private volatile JournalSettings settings;
    /** fdatasync latency and batch sizes, recorded by the journal thread. */
    final JournalMetrics metrics = new JournalMetrics();
    private final SegmentSet segments;
    private final Durability durability;
    private final ChainHasher chain;
    private final Appender appender;
    private final Writer writer;
    private final Reads reads;
    private final Offsets offsets;
    private final SegmentArchiver archiver;

    /**
     * Opens (recovers) or creates the journal in {@code settings.directory()}.
     *
     * @param measure how far each entry read back from the files moves the replication offset
     * @throws UncheckedIOException  when the files cannot be read or written
     * @throws IllegalStateException when the journal is corrupt, with the file and sequence where it breaks
     */
    SegmentedJournal(JournalSettings settings, OffsetMeasure measure) {
        this(settings, measure, FileIo.STANDARD, Clock.systemUTC());
    }

    SegmentedJournal(JournalSettings settings, OffsetMeasure measure, FileIo io, Clock clock) {
        this(settings, measure, io, clock, sequence -> {
        });
    }

    /** @param beforeHash called on the chain thread before it absorbs the batch ending at the given sequence, so
     *                    that a test can hold the chain back and watch durability run ahead of it */
    SegmentedJournal(JournalSettings settings, OffsetMeasure measure, FileIo io, Clock clock,
            LongConsumer beforeHash) {
        this.settings = settings;
        this.directory = settings.directory();
        this.segments = new SegmentSet(directory, io, clock, this::settings, measure);
        ChainHash liveChain;
        try {
            liveChain = segments.open();
        } catch (IOException e) {
            throw new UncheckedIOException(directory + ": cannot open the journal: " + e.getMessage(), e);
        }
        Segment live = segments.live();
        this.durability = new Durability(directory, live.lastSequence, live.endOffset);
        this.chain = new ChainHasher(directory, liveChain,
                new ChainPoint(0, live.lastSequence, live.bytes, live.endOffset, liveChain.value()), beforeHash);
        this.appender = new Appender(directory, this::settings, durability, measure, live, segments.lastTimestamp());
        this.writer = new Writer(directory, this::settings, appender, segments, chain, durability, metrics);
        this.reads = new Reads(directory, segments, durability, chain, measure);
        this.offsets = new Offsets(directory, segments, durability, measure);
        this.archiver = new SegmentArchiver(directory, segments, clock, durability::sequence, writer::rotatesBySize,
                this::rotate);
        segments.archiveHooks(archiver::keeps, archiver::signal);
        archiver.configure(settings.archiveDirectory(), settings.archiveIntervalSeconds());
        chain.start();
        writer.start();
        archiver.start(); // catches up with the segments sealed before this start
    }

    // ------------------------------------------------------------------------------------------------ append

    @Override
    public long append(long timestampNs, long keyHash, byte tag, ByteBuffer payload, long offsetLength) {
        return appender.append(timestampNs, keyHash, tag, payload, offsetLength);
    }

    @Override
    public void appendReplicated(long sequence, long timestampNs, long keyHash, long requestSeq, byte tag,
            ByteBuffer payload, long offsetLength) {
        appender.appendReplicated(sequence, timestampNs, keyHash, requestSeq, tag, payload, offsetLength);
    }

    @Override
    public long lastSequence() {
        return appender.lastSequence();
    }

    @Override
    public long lastTimestampNs() {
        return appender.lastTimestampNs();
    }

    // ------------------------------------------------------------------------------------------------ control

    @Override
    public void rotate() {
        appender.control(new Control(Kind.ROTATE));
    }

    /**
     * Moves every segment into {@code DIR/lineage.<n>/} (n increasing; the oldest beyond
     * {@code lineage.archives.keep} are deleted) and starts a new genesis: sequence 1, a fresh random anchor,
     * replication offset 0. For a node whose history diverged from its new primary's.
     */
    public void archiveLineage() {
        appender.control(new Control(Kind.ARCHIVE_LINEAGE));
    }

    @Override
    public void adopt(long startSequence, byte[] anchor, long replicationOffset) {
        checkIdentity(startSequence, anchor, replicationOffset);
        appender.control(new Control(Kind.ADOPT, startSequence, anchor.clone(), replicationOffset, null));
    }

    @Override
    public void reset(long startSequence, byte[] anchor, long replicationOffset) {
        checkIdentity(startSequence, anchor, replicationOffset);
        appender.control(new Control(Kind.RESET, startSequence, anchor.clone(), replicationOffset, null));
    }

    private static void checkIdentity(long startSequence, byte[] anchor, long replicationOffset) {
        if (startSequence < 1 || anchor.length != ChainHash.LENGTH || replicationOffset < 0) {
            throw new IllegalArgumentException("invalid segment identity: start " + startSequence + ", anchor of "
                    + anchor.length + " bytes, offset " + replicationOffset);
        }
    }

    @Override
    public void rotateAt(long boundarySequence, byte[] tailHash) {
        if (tailHash.length != ChainHash.LENGTH) {
            throw new IllegalArgumentException("tail hash of " + tailHash.length + " bytes");
        }
        appender.control(new Control(Kind.ROTATE_AT, boundarySequence, tailHash.clone(), 0, null));
    }

    @Override
    public void installSeed(Path seed) {
        appender.control(new Control(Kind.SEED, 0, null, 0, seed));
    }

    @Override
    public void rotateBySize(boolean enabled) {
        writer.rotateBySize(enabled);
    }

    @Override
    public int purge(long appliedAndFlushed) {
        try {
            return segments.purge(appliedAndFlushed);
        } catch (IOException e) {
            throw new UncheckedIOException("purging the journal in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Applies the tunables that can change live; the directory applies when the journal is next opened. */
    void reconfigure(JournalSettings next) {
        settings = next;
        appender.reconfigured();
        archiver.configure(next.archiveDirectory(), next.archiveIntervalSeconds());
    }

    JournalSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        archiver.close(); // first: it may ask the journal thread to seal
        appender.close();
        boolean interrupted = false;
        // the journal thread ends first and then tells the chain thread to finish what it was handed
        for (Thread t : threads()) {
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
        segments.close();
    }

    // ------------------------------------------------------------------------------------------------ durability

    @Override
    public long durableSequence() {
        return durability.sequence();
    }

    @Override
    public void awaitDurable(long sequence) throws InterruptedException {
        durability.await(sequence, settings.waitStrategy());
    }

    @Override
    public void addDurabilityListener(DurabilityListener listener) {
        durability.addListener(listener);
    }

    @Override
    public void removeDurabilityListener(DurabilityListener listener) {
        durability.removeListener(listener);
    }

    @Override
    public void tap(JournalTap tap) {
        writer.tap(tap);
    }

    @Override
    public void untap(JournalTap tap) {
        writer.untap(tap);
    }

    // ------------------------------------------------------------------------------------------------ chain

    @Override
    public CompletionStage<Boolean> checkChain(long sequence, byte[] expected) {
        CompletableFuture<Boolean> marked = chain.mark(sequence, expected, appender.lastSequence());
        if (marked != null) {
            return marked;
        }
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        byte[] at = reads.chainAt(sequence);
        if (at == null) {
            result.completeExceptionally(new IllegalStateException("sequence " + sequence
                    + " cannot be checked: not durable or not retained"));
        } else {
            result.complete(java.util.Arrays.equals(at, expected));
        }
        return result;
    }

    @Override
    public byte[] chainAt(long sequence) {
        return reads.chainAt(sequence);
    }

    @Override
    public long generation() {
        return chain.generation();
    }

    // ------------------------------------------------------------------------------------------------ read

    @Override
    public void read(long afterSequence, EntryVisitor visitor) {
        reads.read(afterSequence, visitor);
    }

    @Override
    public void readSlots(long afterSequence, SlotVisitor visitor) {
        reads.readSlots(afterSequence, visitor);
    }

    @Override
    public List<SegmentInfo> segments() {
        return reads.segments();
    }

    @Override
    public long writeSeed(long snapSequence, WritableByteChannel out) throws IOException {
        return reads.writeSeed(snapSequence, out);
    }

    @Override
    public long offsetAfter(long sequence) {
        return offsets.offsetAfter(sequence);
    }

    @Override
    public long sequenceAtOffset(long offset) {
        return offsets.sequenceAtOffset(offset);
    }

    @Override
    public String verify() {
        return verify(null);
    }

    /** {@link #verify()}, telling {@code progress} how far it got; null: never. */
    @Override
    public String verify(Progress progress) {
        return reads.verify(progress);
    }

    @Override
    public JournalStatus status() {
        List<Segment> snapshot = segments.snapshot();
        long bytes = 0;
        for (Segment s : snapshot) {
            bytes += s.bytes;
        }
        // durable sequence, replication offset and chain from one point, at or after the durable sequence of the
        // call: a status never pairs a chain value with a sequence it does not cover
        ChainPoint p = chain.awaitHashed(durability::sequence);
        long last = appender.lastSequence();
        long first = snapshot.get(0).startSequence;
        return new JournalStatus(directory.toString(), last >= first ? first : 0, last, p.sequence(),
                appender.lastTimestampNs(), p.replicationOffset(), snapshot.size(), bytes, ChainHash.hex(p.value()),
                durability.stoppedReason());
    }

    @Override
    public ArchiveStatus archiveStatus() {
        return archiver.status();
    }

    // ------------------------------------------------------------------------------------------------ for tests

    SegmentArchiver archiver() {
        return archiver;
    }

    /** @return the chain value at the durable sequence of the call (or later), once the chain thread has it */
    byte[] chainValue() {
        return chain.awaitHashed(durability::sequence).value().clone();
    }

    /** @return the chain at the last sequence the chain thread has absorbed, without waiting: it may trail */
    ChainPoint hashedChain() {
        return chain.valued();
    }

    /** @return the journal thread and the chain thread, for tests that check that none outlives the journal */
    List<Thread> threads() {
        return List.of(writer.thread(), chain.thread());
    }

    /** @return the replication offset after the last durable complete command */
    long replicationOffset() {
        return durability.offset();
    }

    List<Segment> segmentList() {
        return segments.snapshot();
    }

    Path directory() {
        return directory;
    }
}
