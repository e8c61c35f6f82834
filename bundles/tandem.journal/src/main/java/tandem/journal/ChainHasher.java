package tandem.journal;

import static tandem.journal.Locks.locked;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import tandem.api.journal.JournalStoppedException;
import tandem.protocol.journal.JournalEntry;

/**
 * The chain thread: absorbs each durable batch into the live segment's {@link ChainHash}, in the order the batches
 * were written, and publishes after each the chain point at its last sequence; it compares the chain with what a
 * primary announced at the sequences {@link #mark marked}.
 *
 * <p>Design note: the chain is not on the durability path. BLAKE3 runs at a fraction of a disk's sequential
 * bandwidth, so the journal thread hands each durable batch, buffer and all, to the chain thread and takes a spare
 * buffer in exchange. A buffer is the chain thread's until it has been absorbed, so the sequencer never overwrites
 * bytes still to be hashed; with {@value #BACKLOG} spares, a chain thread that falls further behind holds the next
 * write back rather than letting memory grow. The value depends only on the bytes and the anchor (see
 * {@link ChainHash}), so the chain and the files are what hashing on the journal thread gave. Whoever needs a chain
 * value waits for the chain thread to reach the durable sequence of the moment ({@link #awaitHashed}): rotation seals
 * a segment with the exact value at its last entry, and status and verify report a durable sequence together with
 * the chain at that same sequence.
 */
final class ChainHasher extends Worker {

    /** Durable batches the chain thread may still have to absorb when the journal thread starts its next write. */
    static final int BACKLOG = 2;

    private static final Logger LOG = System.getLogger("tandem.journal");

    /**
     * The chain value at {@code sequence}: the live segment's entry bytes end at {@code segmentEnd}, the replication
     * offset after that sequence is {@code replicationOffset}. {@code lineage} counts histories replaced, so that a
     * waiter can tell that the sequence it waits for belongs to a history that is gone. Never modify {@code value}.
     */
    record ChainPoint(int lineage, long sequence, long segmentEnd, long replicationOffset, byte[] value) {
    }

    /** A durable batch for the chain thread: {@code buffer} is the chain thread's until absorbed. */
    private record Hashing(ChainHash chain, ByteBuffer buffer, int bytes, long lastSequence, long segmentEnd,
            long replicationOffset) {
    }

    private record Mark(long sequence, byte[] expected, CompletableFuture<Boolean> result) {
    }

    private final Path directory;
    private final LongConsumer beforeHash;
    /** The live segment's digest: the journal thread alone replaces it, and only while nothing is left to absorb. */
    private ChainHash live;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition toHashReady = lock.newCondition();
    private final Condition hashedAdvanced = lock.newCondition();
    private final ArrayDeque<Hashing> toHash = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> spareBuffers = new ArrayDeque<>();
    /** Chain comparisons asked by {@link #mark}, in sequence order; guarded by lock. */
    private final ArrayDeque<Mark> marks = new ArrayDeque<>();
    private final JournalEntry markEntry = new JournalEntry();
    private boolean stopping;
    private boolean done;
    private Throwable failure;
    /**
     * Written under lock (and, when the live segment changes, under the segment set's write lock too). Its value is
     * null until someone asks for it ({@link #valued()}): finalizing a BLAKE3 value for every batch would cost more
     * than hashing a small batch.
     */
    private volatile ChainPoint hashed;
    /** The digest that absorbed up to {@link #hashed}; read under lock while {@link #absorbing} is false. */
    private ChainHash hashedChain;
    /** True while the chain thread absorbs a batch outside the lock. */
    private boolean absorbing;
    /** True when an absorb failed midway: the digest holds part of a batch and vouches for nothing. */
    private boolean digestBroken;

    /**
     * @param live       the live segment's digest, having absorbed its durable entries
     * @param at         the point it stands at
     * @param beforeHash called on the chain thread before it absorbs the batch ending at the given sequence, so that
     *                   a test can hold the chain back and watch durability run ahead of it
     */
    ChainHasher(Path directory, ChainHash live, ChainPoint at, LongConsumer beforeHash) {
        super("tandem-journal-chain");
        this.directory = directory;
        this.live = live;
        this.hashed = at;
        this.beforeHash = beforeHash;
        for (int i = 0; i < BACKLOG; i++) {
            spareBuffers.add(ByteBuffer.wrap(new byte[Batch.INITIAL_BYTES]));
        }
    }

    /** @return the live segment's digest (journal thread) */
    ChainHash live() {
        return live;
    }

    /**
     * Journal thread: gives a durable batch's buffer to the chain thread and returns a spare for the next batch,
     * waiting while the chain thread holds every spare. Durability is published already: only the next write waits.
     *
     * @param segmentEnd where the live segment's entries end after the batch
     */
    ByteBuffer hand(Batch batch, long segmentEnd) {
        lock.lock();
        try {
            checkRunning();
            toHash.add(new Hashing(live, batch.view(), batch.bytes, batch.lastSequence, segmentEnd,
                    batch.offsetAfter));
            toHashReady.signal();
            while (spareBuffers.isEmpty()) {
                checkRunning();
                hashedAdvanced.awaitUninterruptibly();
            }
            return spareBuffers.poll();
        } finally {
            lock.unlock();
        }
    }

    /** A chain that can no longer advance stops the journal: it could neither rotate nor report a chain. */
    private void checkRunning() {
        if (done) {
            throw new IllegalStateException("the chain thread of " + directory + " stopped", failure);
        }
    }

    /** Journal thread, ending: every durable batch has been handed over; the chain thread absorbs them, then ends. */
    void stop() {
        locked(lock, () -> {
            stopping = true;
            toHashReady.signalAll();
        });
    }

    @Override
    void run() {
        try {
            while (true) {
                Hashing h;
                lock.lock();
                try {
                    while (toHash.isEmpty() && !stopping) {
                        toHashReady.awaitUninterruptibly();
                    }
                    h = toHash.poll();
                } finally {
                    lock.unlock();
                }
                if (h == null) {
                    return; // stopping, and every batch handed over is absorbed
                }
                beforeHash.accept(h.lastSequence); // a test seam; a failure here leaves the digest untouched
                locked(lock, () -> absorbing = true);
                boolean absorbed = false;
                try {
                    absorbWithMarks(h);
                    absorbed = true;
                } finally {
                    // the new point and the end of absorbing in one step: a value is never read from a digest that
                    // is ahead of the point it is paired with
                    boolean whole = absorbed;
                    locked(lock, () -> {
                        if (whole) {
                            hashed = new ChainPoint(hashed.lineage(), h.lastSequence, h.segmentEnd,
                                    h.replicationOffset, null);
                            hashedChain = h.chain;
                            spareBuffers.add(h.buffer);
                        } else {
                            digestBroken = true;
                        }
                        absorbing = false;
                        hashedAdvanced.signalAll();
                    });
                }
            }
        } catch (Throwable e) {
            LOG.log(Level.ERROR, directory + ": the chain thread failed; the journal stops at its next write", e);
            failure = e;
        } finally {
            locked(lock, () -> {
                done = true;
                failMarks("the journal in " + directory + " has stopped");
                hashedAdvanced.signalAll();
            });
        }
    }

    /** Absorbs a batch, stopping at each sequence {@link #mark marked} to compare the value there. */
    private void absorbWithMarks(Hashing h) {
        int from = 0;
        while (true) {
            Mark m;
            lock.lock();
            try {
                m = marks.peek();
                if (m != null && m.sequence() > h.lastSequence) {
                    m = null;
                } else if (m != null) {
                    marks.poll();
                }
            } finally {
                lock.unlock();
            }
            if (m == null) {
                break;
            }
            int end = -1;
            for (int p = from; p < h.bytes; p += markEntry.size()) {
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
            h.chain.absorb(h.buffer.array(), from, end - from);
            from = end;
            m.result().complete(Arrays.equals(h.chain.value(), m.expected()));
        }
        h.chain.absorb(h.buffer.array(), from, h.bytes - from);
    }

    /** Holds lock. */
    private void failMarks(String why) {
        for (Mark m : marks) {
            m.result().completeExceptionally(new JournalStoppedException(why, failure));
        }
        marks.clear();
    }

    /**
     * Asks the chain thread to compare the chain at {@code sequence}, appended but not absorbed yet, with
     * {@code expected} when it gets there.
     *
     * @return the comparison to come (failed at once when the chain thread stopped), or null when the chain is
     *         already past {@code sequence} or {@code sequence} is beyond {@code lastSequence}: the caller compares
     *         with the value the files give
     */
    CompletableFuture<Boolean> mark(long sequence, byte[] expected, long lastSequence) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        lock.lock();
        try {
            if (done) {
                result.completeExceptionally(new JournalStoppedException("the journal in " + directory
                        + " has stopped", failure));
                return result;
            }
            if (sequence > hashed.sequence() && sequence <= lastSequence) {
                marks.add(new Mark(sequence, expected.clone(), result));
                return result;
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** @return how many histories were replaced since the journal opened */
    long generation() {
        return hashed.lineage();
    }

    /**
     * Waits until the chain thread has absorbed everything durable at the call, or until it can absorb nothing more
     * (it stopped, or the history was replaced meanwhile).
     *
     * @param durable the durable sequence, read under the lock: a replaced history resets it with the point
     * @return the chain at the last sequence absorbed: at or after the durable sequence of the call, unless the
     *         chain thread stopped (failure) or the history changed
     */
    ChainPoint awaitHashed(LongSupplier durable) {
        lock.lock();
        try {
            long target = durable.getAsLong();
            ChainPoint p = hashed;
            int lineage = p.lineage();
            while (p.sequence() < target && p.lineage() == lineage && !done) {
                hashedAdvanced.awaitUninterruptibly();
                p = hashed;
            }
            return valued();
        } finally {
            lock.unlock();
        }
    }

    /** Journal thread: the chain at the durable sequence, exactly, once the chain thread has caught up. */
    ChainPoint awaitExactly(LongSupplier durable) {
        ChainPoint p = awaitHashed(durable);
        long target = durable.getAsLong();
        if (p.sequence() != target) {
            throw new IllegalStateException("the chain thread of " + directory + " stopped at sequence "
                    + p.sequence() + " before the durable sequence " + target, failure);
        }
        return p;
    }

    /**
     * The current point with its value, computed now if nobody asked for it since the chain thread last moved.
     * Waits while the chain thread is absorbing, so that the digest read is exactly the one at the point.
     */
    ChainPoint valued() {
        lock.lock();
        try {
            while (absorbing) {
                hashedAdvanced.awaitUninterruptibly();
            }
            ChainPoint p = hashed;
            if (p.value() == null) {
                if (digestBroken) {
                    // the digest holds part of a batch: no value can be vouched for
                    throw new IllegalStateException("the chain thread of " + directory + " failed", failure);
                }
                p = new ChainPoint(p.lineage(), p.sequence(), p.segmentEnd(), p.replicationOffset(),
                        hashedChain.value());
                hashed = p;
            }
            return p;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Journal thread, the segment set's write lock held, nothing left to absorb: the live segment was sealed with
     * the point's value as its tail, and the next one starts from it.
     */
    void nextSegment(ChainPoint sealedAt) {
        live = new ChainHash(sealedAt.value());
        locked(lock, () -> {
            hashed = sealedAt;
            hashedAdvanced.signalAll();
        });
    }

    /**
     * Journal thread, the segment set's write lock held, nothing left to absorb: a new history whose live segment
     * is {@code only}, its digest {@code digest}. Comparisons still waiting fail with {@code why}; {@code durable}
     * resets the durable position together with the point, for {@link #awaitHashed}.
     */
    void restart(Segment only, ChainHash digest, String why, Runnable durable) {
        live = digest;
        locked(lock, () -> {
            failMarks(why);
            durable.run();
            hashed = new ChainPoint(hashed.lineage() + 1, only.lastSequence, only.bytes, only.endOffset,
                    digest.value());
            hashedAdvanced.signalAll();
        });
    }
}
