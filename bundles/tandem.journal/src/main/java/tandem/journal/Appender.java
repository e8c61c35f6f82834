package tandem.journal;

import static tandem.journal.Locks.locked;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalStoppedException;
import tandem.protocol.journal.JournalEntry;

/**
 * The sequencer's side of the journal: assigns sequences and encodes each entry into the pending {@link Batch}
 * under a lock (no allocation once the batch buffers have grown), splits a payload too long for one entry into a
 * fragment group, and queues the controls (rotation, adopt, reset, seed, lineage archive) that the journal thread
 * runs between batches with appends held off. The journal thread takes the pending batch in exchange for the one it
 * wrote: whatever is appended while it syncs goes into the next write.
 *
 * <p>Design note: a fragment group never spans a rotation while its command is being appended, so a segment never
 * starts inside a group; and after a restart that finds a group cut short by a crash, the next App append is
 * preceded by a Tick at the last timestamp, so that no later entry can be read as the dead group's continuation.
 */
final class Appender {

    private static final Logger LOG = System.getLogger("tandem.journal");

    /** What a control asks of the journal thread. */
    enum Kind { ROTATE, ARCHIVE_LINEAGE, ROTATE_AT, ADOPT, SEED, RESET }

    /** A control on its way to the journal thread, and its outcome. */
    static final class Control {
        final Kind kind;
        final long sequence;
        final byte[] hash;
        final long offset;
        final Path path;
        boolean done;
        RuntimeException failure;

        Control(Kind kind) {
            this(kind, 0, null, 0, null);
        }

        Control(Kind kind, long sequence, byte[] hash, long offset, Path path) {
            this.kind = kind;
            this.sequence = sequence;
            this.hash = hash;
            this.offset = offset;
            this.path = path;
        }
    }

    /** The journal thread's work for a control, run with appends held off. */
    @FunctionalInterface
    interface ControlRunner {
        void run(Control control) throws IOException;
    }

    private final Path directory;
    private final Supplier<JournalSettings> settings;
    private final Durability durability;
    private final OffsetMeasure measure;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition batchReady = lock.newCondition();
    private final Condition spaceFree = lock.newCondition();
    private final Condition controlDone = lock.newCondition();
    private final CRC32C crc = new CRC32C();
    private final ArrayDeque<Control> controls = new ArrayDeque<>();
    private final ByteBuffer tickPayload = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    private Batch fill = new Batch(ByteBuffer.allocate(Batch.INITIAL_BYTES));
    /** The batch the journal thread took last: written (its buffer exchanged) before it is taken again. */
    private Batch taken = new Batch(ByteBuffer.allocate(Batch.INITIAL_BYTES));
    private long nextSequence;
    private long appendOffset;
    private boolean groupInProgress;
    private boolean danglingGroup;
    private boolean closing;
    private volatile long lastSequence;
    private volatile long lastTimestampNs;

    /** @param live the live segment as recovered: appends continue after it */
    Appender(Path directory, Supplier<JournalSettings> settings, Durability durability, OffsetMeasure measure,
            Segment live, long lastTimestampNs) {
        this.directory = directory;
        this.settings = settings;
        this.durability = durability;
        this.measure = measure;
        continueAfter(live);
        this.lastTimestampNs = lastTimestampNs;
    }

    long lastSequence() {
        return lastSequence;
    }

    long lastTimestampNs() {
        return lastTimestampNs;
    }

    /** @see tandem.api.journal.JournalAppender#append(long, long, byte, ByteBuffer, long) */
    long append(long timestampNs, long keyHash, byte tag, ByteBuffer payload, long offsetLength) {
        if (timestampNs < 0) {
            throw new IllegalArgumentException("negative timestamp " + timestampNs);
        }
        if (tag != EntryTag.APP && tag != EntryTag.TICK && tag != EntryTag.EPOCH_BUMP && tag != EntryTag.PUBLISH) {
            throw new IllegalArgumentException(String.format("tag 0x%02X cannot be appended", tag));
        }
        int length = payload.remaining();
        if (tag != EntryTag.APP && length > JournalEntry.MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + length + " bytes for a non-App entry");
        }
        checkOffsetLength(offsetLength);
        int from = payload.position();
        lock.lock();
        try {
            checkRunning();
            if (danglingGroup) {
                danglingGroup = false;
                if (tag == EntryTag.APP) {
                    closeDanglingGroup();
                }
            }
            if (length <= JournalEntry.MAX_PAYLOAD) {
                appendOffset += offsetLength;
                encode(timestampNs, keyHash, 0L, tag, payload, from, length);
            } else {
                groupInProgress = true;
                int at = from;
                while (from + length - at > JournalEntry.MAX_PAYLOAD) {
                    encode(timestampNs, keyHash, 0L, EntryTag.APP_CONTINUATION, payload, at,
                            JournalEntry.MAX_PAYLOAD);
                    at += JournalEntry.MAX_PAYLOAD;
                }
                appendOffset += offsetLength;
                encode(timestampNs, keyHash, 0L, EntryTag.APP, payload, at, from + length - at);
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
        tickPayload.putLong(0, ts);
        LOG.log(Level.WARNING, "{0}: a command cut short by a crash ends at sequence {1}; a Tick closes it",
                directory, nextSequence - 1);
        appendOffset += measure.length(EntryTag.TICK, ts, null);
        encode(ts, 0, 0L, EntryTag.TICK, tickPayload, 0, 8);
    }

    /** @see tandem.api.journal.ReplicaJournal#appendReplicated */
    void appendReplicated(long sequence, long timestampNs, long keyHash, long requestSeq, byte tag,
            ByteBuffer payload, long offsetLength) {
        if (tag != EntryTag.APP && tag != EntryTag.APP_CONTINUATION && tag != EntryTag.TICK
                && tag != EntryTag.EPOCH_BUMP && tag != EntryTag.PUBLISH) {
            throw new IllegalArgumentException(String.format("sequence %d: tag 0x%02X cannot be appended", sequence,
                    tag));
        }
        if (payload.remaining() > JournalEntry.MAX_PAYLOAD) {
            throw new IllegalArgumentException("sequence " + sequence + ": payload of " + payload.remaining()
                    + " bytes; an entry holds at most " + JournalEntry.MAX_PAYLOAD);
        }
        checkOffsetLength(offsetLength);
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
            appendOffset += offsetLength;
            danglingGroup = tag == EntryTag.APP_CONTINUATION;
            encode(timestampNs, keyHash, requestSeq, tag, payload, payload.position(), payload.remaining());
            lastTimestampNs = timestampNs;
        } finally {
            lock.unlock();
        }
    }

    private static void checkOffsetLength(long offsetLength) {
        if (offsetLength < 0) {
            throw new IllegalArgumentException("negative replication offset length " + offsetLength);
        }
    }

    /** Encodes one entry into the pending batch, waiting while the batch is full. Holds {@link #lock}. */
    private void encode(long timestampNs, long keyHash, long requestSeq, byte tag, ByteBuffer payload, int offset,
            int length) {
        int size = JournalEntry.sizeOf(length);
        while (fill.count > 0
                && (fill.count >= settings.get().maxBatchEntries() || fill.bytes + size > Batch.MAX_PENDING_BYTES)) {
            batchReady.signal();
            spaceFree.awaitUninterruptibly();
            checkRunning();
        }
        fill.ensure(size);
        long sequence = nextSequence;
        JournalEntry.encode(fill.view(), fill.bytes, sequence, timestampNs, keyHash, requestSeq, tag, payload, offset,
                length, crc);
        nextSequence = sequence + 1;
        fill.bytes += size;
        fill.count++;
        fill.lastSequence = sequence;
        fill.offsetAfter = appendOffset;
        lastSequence = sequence;
        if (fill.count == 1) {
            batchReady.signal();
        }
    }

    private void checkRunning() {
        durability.checkRunning(closing);
    }

    /** Queues a control for the journal thread and waits until it ran. */
    void control(Control c) {
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

    /** A tunable changed: an append waiting for room looks again. */
    void reconfigured() {
        locked(lock, spaceFree::signalAll);
    }

    /** No append is taken any more; the journal thread writes what is pending, then ends. */
    void close() {
        locked(lock, () -> {
            closing = true;
            batchReady.signal();
        });
    }

    // ------------------------------------------------------------------------------------------------ journal thread

    /**
     * Journal thread: waits for work and runs each control that comes first (with appends held off), then takes the
     * pending batch. The batch it took before must be written by then: it becomes the next pending one.
     *
     * @return the batch to write, or null once closing with everything appended taken
     */
    Batch next(ControlRunner runner) throws IOException {
        lock.lock();
        try {
            while (true) {
                while (fill.count == 0 && !closing && !controlReady()) {
                    batchReady.awaitUninterruptibly();
                }
                if (controlReady()) {
                    runControl(runner);
                } else if (fill.count == 0) {
                    return null; // closing, and everything appended is durable
                } else {
                    return take();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Journal thread, running a control: {@link #next} without waiting; null when nothing is pending. */
    Batch takePending() {
        return fill.count > 0 ? take() : null;
    }

    private Batch take() {
        Batch next = taken;
        next.clear();
        next.offsetAfter = fill.offsetAfter;
        taken = fill;
        fill = next;
        spaceFree.signalAll();
        return taken;
    }

    private boolean controlReady() {
        return !controls.isEmpty() && !groupInProgress;
    }

    private void runControl(ControlRunner runner) throws IOException {
        Control control = controls.poll();
        try {
            runner.run(control);
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

    /**
     * Journal thread, holding the lock through a control: appends continue after {@code last}, the only segment
     * of a history just put in place (its last sequence, timestamp, offset and open group).
     */
    void continueAfter(Segment last) {
        danglingGroup = last.tailOpenGroup;
        nextSequence = last.lastSequence + 1;
        lastSequence = last.lastSequence;
        if (!last.isEmpty()) {
            lastTimestampNs = last.lastTimestampNs;
        }
        appendOffset = last.endOffset;
        fill.offsetAfter = appendOffset;
    }

    /** Journal thread, ending: the controls still queued fail, and appends waiting for room look again. */
    void fail(JournalStoppedException why) {
        locked(lock, () -> {
            for (Control c : controls) {
                c.failure = why;
                c.done = true;
            }
            controls.clear();
            controlDone.signalAll();
            spaceFree.signalAll();
        });
    }
}
