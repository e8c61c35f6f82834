package tandem.journal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalTap;
import tandem.journal.ChainHasher.ChainPoint;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.journal.SegmentHeader;

/**
 * The journal thread: takes each pending batch, offers it to the taps (replicas receive it while this node syncs
 * it), writes it with one positional write and one {@code fdatasync}, publishes the durable sequence right then and
 * hands the batch to the chain thread; rotates the live segment once it reaches the configured size; runs the
 * controls the appender queued (rotation, a rotation a primary announced, adopt, reset, seed, lineage archive). A
 * failed write or sync stops the journal for good (fail-stop).
 */
final class Writer extends Worker {

    /** Batches between two chain values offered to the taps (spec 000's ChainCheck). */
    static final int CHAIN_CHECK_INTERVAL = 64;

    private static final Logger LOG = System.getLogger("tandem.journal");

    private final Path directory;
    private final Supplier<JournalSettings> settings;
    private final Appender appender;
    private final SegmentSet segments;
    private final ChainHasher chain;
    private final Durability durability;
    /** fdatasync latency and batch sizes. */
    private final JournalMetrics metrics;
    private final CopyOnWriteArrayList<JournalTap> taps = new CopyOnWriteArrayList<>();
    private final JournalEntry batchEntry = new JournalEntry();
    /** Whether the durable tail ends inside a fragment group. */
    private boolean tailOpenGroup;
    private int batchesSinceCheck;
    private volatile boolean rotateBySize = true;

    Writer(Path directory, Supplier<JournalSettings> settings, Appender appender, SegmentSet segments,
            ChainHasher chain, Durability durability, JournalMetrics metrics) {
        super("tandem-journal");
        this.directory = directory;
        this.settings = settings;
        this.appender = appender;
        this.segments = segments;
        this.chain = chain;
        this.durability = durability;
        this.metrics = metrics;
        this.tailOpenGroup = segments.live().tailOpenGroup;
    }

    void rotateBySize(boolean enabled) {
        rotateBySize = enabled;
    }

    /** @return whether this journal seals by size (a primary), not where a primary announces it (a replica) */
    boolean rotatesBySize() {
        return rotateBySize;
    }

    void tap(JournalTap tap) {
        taps.addIfAbsent(tap);
    }

    void untap(JournalTap tap) {
        taps.remove(tap);
        // the journal thread calls taps holding their monitor: once we hold it, no call that began before the
        // removal is still running
        synchronized (taps) {
            taps.notifyAll();
        }
    }

    @Override
    void run() {
        try {
            Batch batch;
            while ((batch = appender.next(this::runControl)) != null) {
                write(batch);
                maybeRotateBySize();
            }
        } catch (IOException | RuntimeException e) {
            durability.failStop(e);
            segments.closeAfterFailure();
        } finally {
            // every durable batch has been handed over by now: the chain thread absorbs them, then ends
            chain.stop();
            durability.terminated();
            appender.fail(durability.stopped());
            durability.wake();
        }
    }

    /** Publishes, writes and hands on one batch; the chain value goes to the taps every so often. */
    private void write(Batch batch) throws IOException {
        publish(batch);
        writeAndSync(batch);
        maybeOfferChain();
    }

    /** Runs a control with appends held off: the pending batch first, then the control. */
    private void runControl(Appender.Control control) throws IOException {
        Batch pending = appender.takePending();
        if (pending != null) {
            write(pending);
        }
        switch (control.kind) {
            case ROTATE -> rotate();
            case ROTATE_AT -> rotateAt(control.sequence, control.hash);
            case ADOPT -> adopt(control.sequence, control.hash, control.offset);
            case SEED -> installSeed(control.path);
            case RESET -> {
                archiveLineage();
                adopt(control.sequence, control.hash, control.offset);
            }
            case ARCHIVE_LINEAGE -> archiveLineage();
        }
    }

    /** Offers the batch about to be written to the taps: replicas receive it while this node syncs it. */
    private void publish(Batch batch) {
        if (taps.isEmpty()) {
            return;
        }
        ByteBuffer view = batch.view();
        int count = 0;
        long first = 0;
        for (int p = 0; p < batch.bytes; p += batchEntry.size()) {
            batchEntry.wrap(view, p);
            if (count++ == 0) {
                first = batchEntry.sequence();
            }
        }
        synchronized (taps) {
            for (JournalTap t : taps) {
                try {
                    t.batch(view.duplicate().position(0).limit(batch.bytes), count, first, batch.lastSequence);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, directory + ": a journal tap failed; it is removed", e);
                    taps.remove(t);
                }
            }
        }
    }

    private void writeAndSync(Batch batch) throws IOException {
        Segment liveSegment = segments.live();
        FileIo.SegmentChannel live = segments.channel();
        long start = liveSegment.bytes;
        ByteBuffer v = batch.view().clear().limit(batch.bytes);
        long at = start;
        while (v.hasRemaining()) {
            at += live.write(v, at);
        }
        long syncStarted = System.nanoTime();
        live.force();
        metrics.batch(System.nanoTime() - syncStarted, batch.lastSequence - durability.sequence(), batch.bytes);
        // durable from here on
        long lastTs = 0;
        for (int p = 0; p < batch.bytes; p += batchEntry.size()) {
            batchEntry.wrap(v, p);
            if (p == 0 && liveSegment.isEmpty()) {
                liveSegment.firstTimestampNs = batchEntry.timestampNs();
            }
            if (p == 0 && !tailOpenGroup) {
                // at a batch's start the replication offset before the entry is the segment's end offset
                liveSegment.index.add(batchEntry.sequence(), start, liveSegment.endOffset);
            }
            tailOpenGroup = batchEntry.tag() == EntryTag.APP_CONTINUATION;
            lastTs = batchEntry.timestampNs();
        }
        v.clear(); // this buffer becomes a sequencer's batch again: it must not keep the write's limit
        // the segment first: a reader that sees the durable sequence reads the segment up to it
        liveSegment.bytes = start + batch.bytes;
        liveSegment.lastSequence = batch.lastSequence;
        liveSegment.endOffset = batch.offsetAfter;
        liveSegment.tailOpenGroup = tailOpenGroup;
        liveSegment.lastTimestampNs = lastTs;
        durability.advanced(batch.lastSequence, batch.offsetAfter);
        batch.use(chain.hand(batch, start + batch.bytes)); // the spare the sequencer fills next
    }

    /** Every {@link #CHAIN_CHECK_INTERVAL} batches, the chain value at the batch's end goes to the taps. */
    private void maybeOfferChain() {
        if (taps.isEmpty() || ++batchesSinceCheck < CHAIN_CHECK_INTERVAL) {
            return;
        }
        batchesSinceCheck = 0;
        ChainPoint p = chain.awaitExactly(durability::sequence);
        byte[] value = p.value();
        synchronized (taps) {
            for (JournalTap t : taps) {
                t.chainCheck(p.sequence(), value.clone());
            }
        }
    }

    private void maybeRotateBySize() throws IOException {
        if (!rotateBySize || segments.live().bytes < settings.get().segmentSize()) {
            return;
        }
        if (tailOpenGroup) {
            // the durable tail ends inside a command: its last fragment is on its way (appended and waiting for
            // the next batch, or still being appended); rotate after it, so that no group spans two segments
            return;
        }
        rotate();
    }

    /** Seals the live segment with the chain value at its last entry and starts its successor. */
    private void rotate() throws IOException {
        Segment sealed = segments.live();
        if (sealed.isEmpty()) {
            return;
        }
        // the journal thread hands batches over, so nothing of this segment can still be on its way to the chain
        ChainPoint end = chain.awaitExactly(durability::sequence);
        byte[] tail = end.value().clone();
        segments.rotate(tail, next -> chain.nextSegment(new ChainPoint(end.lineage(), sealed.lastSequence,
                SegmentHeader.SIZE, sealed.endOffset, tail)));
        synchronized (taps) {
            for (JournalTap t : taps) {
                t.rotated(sealed.lastSequence, tail.clone());
            }
        }
    }

    /** Replica: the rotation the primary announced, after checking the tail chain. */
    private void rotateAt(long boundary, byte[] expected) throws IOException {
        Segment liveSegment = segments.live();
        if (liveSegment.startSequence == boundary + 1) {
            return; // announced again on a reconnection
        }
        long last = appender.lastSequence();
        if (last != boundary) {
            throw new IllegalStateException("rotation announced after sequence " + boundary
                    + " but the journal's last sequence is " + last);
        }
        if (liveSegment.isEmpty()) {
            throw new IllegalStateException("rotation announced after sequence " + boundary
                    + " but the live segment starting at " + liveSegment.startSequence + " is empty");
        }
        byte[] tail = chain.awaitExactly(durability::sequence).value();
        boolean announced = !Arrays.equals(expected, new byte[ChainHash.LENGTH]);
        if (announced && !Arrays.equals(expected, tail)) {
            throw new IllegalStateException("chain mismatch at rotation after sequence " + boundary + ": primary "
                    + ChainHash.hex(expected) + ", this journal " + ChainHash.hex(tail));
        }
        rotate();
    }

    /** Fresh replica: a new live segment with the primary's identity. */
    private void adopt(long startSequence, byte[] anchor, long offset) throws IOException {
        Segment liveSegment = segments.live();
        if (segments.snapshot().size() != 1 || !liveSegment.isEmpty()
                || appender.lastSequence() != liveSegment.startSequence - 1) {
            throw new IllegalStateException("the journal in " + directory + " holds entries; it cannot adopt a "
                    + "primary's segment");
        }
        chain.awaitExactly(durability::sequence);
        continueAfter(segments.adopt(startSequence, anchor, offset, only -> restart(only, new ChainHash(anchor),
                "the journal in " + directory + " adopted a primary's segment")));
    }

    /** Moves every segment into a lineage archive and starts a new genesis. */
    private void archiveLineage() throws IOException {
        // the old lineage's batches must all be absorbed before the chain restarts, or they would land in the new one
        chain.awaitExactly(durability::sequence);
        continueAfter(segments.archiveLineage(only -> restart(only, new ChainHash(only.anchor),
                "the lineage of " + directory + " was archived")));
    }

    /**
     * Replica after a snapshot: archives the lineage and makes the seed the live segment. The seed is scanned first;
     * a seed that is not sound changes nothing.
     */
    private void installSeed(Path path) throws IOException {
        SegmentSet.Seed seed = segments.scanSeed(path);
        archiveLineage(); // the old history is kept as a lineage, and every waiter on it is released
        continueAfter(segments.installSeed(seed, only -> restart(only, seed.chain(),
                "the journal in " + directory + " installed a segment seed")));
    }

    /** A new history's chain, with the durable position it starts at. The segment set's write lock is held. */
    private void restart(Segment only, ChainHash digest, String why) {
        chain.restart(only, digest, why, () -> durability.reset(only.lastSequence, only.endOffset));
    }

    /** Appends and writes continue after the only segment of a new history. */
    private void continueAfter(Segment only) {
        tailOpenGroup = only.tailOpenGroup;
        appender.continueAfter(only);
    }
}
