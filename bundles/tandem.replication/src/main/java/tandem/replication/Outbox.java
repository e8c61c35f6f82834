package tandem.replication;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One replica's replication ring: wire-ready frames the journal thread queues (through {@link Fanout}) for that
 * replica's sender. Bounded in bytes; the journal thread never waits for a replica: an outbox that would exceed its
 * bound overflows instead, and its sender evicts the replica, which reconnects and catches up from the journal
 * files. Chunks are reused, so the steady state allocates nothing.
 */
final class Outbox {

    enum Kind { BATCH, ROTATE, CHAIN_CHECK }

    /** Frames of one kind; {@code first}..{@code last} are the sequences a batch covers, the sequence otherwise. */
    static final class Chunk {
        Kind kind;
        byte[] data = new byte[4096];
        int length;
        long first;
        long last;

        ByteBuffer frames() {
            return ByteBuffer.wrap(data, 0, length);
        }
    }

    private static final int KEEP_CHUNK_BYTES = 1024 * 1024;

    private final long maxBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
    private final ArrayDeque<Chunk> spare = new ArrayDeque<>();
    private long bytes;
    private boolean overflowed;
    private boolean closed;

    Outbox(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Journal thread: queues a copy of {@code frames}; false (and overflowed from now on) when over the bound. */
    boolean offer(Kind kind, ByteBuffer frames, long first, long last) {
        int n = frames.remaining();
        lock.lock();
        try {
            if (overflowed || closed) {
                return false;
            }
            if (bytes + n > maxBytes) {
                overflowed = true;
                ready.signal();
                return false;
            }
            Chunk c = spare.poll();
            if (c == null) {
                c = new Chunk();
            }
            if (c.data.length < n) {
                c.data = new byte[Math.max(n, c.data.length * 2)];
            }
            frames.get(frames.position(), c.data, 0, n);
            c.kind = kind;
            c.length = n;
            c.first = first;
            c.last = last;
            queue.add(c);
            bytes += n;
            ready.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Sender: the next chunk, or null after {@code timeoutNanos}, on overflow or once closed. */
    Chunk poll(long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            return awaitChunk(timeoutNanos) ? queue.poll() : null;
        } finally {
            lock.unlock();
        }
    }

    /** @return the next chunk without waiting, or null */
    Chunk pollNow() {
        lock.lock();
        try {
            return overflowed || closed ? null : queue.poll();
        } finally {
            lock.unlock();
        }
    }

    boolean isEmpty() {
        lock.lock();
        try {
            return queue.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Sender: waits up to {@code timeoutNanos} for a chunk; @return true when one is queued */
    boolean awaitChunk(long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long left = timeoutNanos;
            while (queue.isEmpty() && !overflowed && !closed && left > 0) {
                left = ready.awaitNanos(left);
            }
            return !queue.isEmpty() && !overflowed && !closed;
        } finally {
            lock.unlock();
        }
    }

    /** Sender: gives a chunk back once its bytes were handed to the transport. */
    void release(Chunk c) {
        lock.lock();
        try {
            bytes -= c.length;
            if (c.data.length <= KEEP_CHUNK_BYTES) {
                spare.add(c);
            }
        } finally {
            lock.unlock();
        }
    }

    boolean overflowed() {
        lock.lock();
        try {
            return overflowed;
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            ready.signalAll();
        } finally {
            lock.unlock();
        }
    }

    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /** Waits (bounded) for new chunks; used by tests. */
    boolean awaitNonEmpty(long timeout, TimeUnit unit) throws InterruptedException {
        lock.lock();
        try {
            long left = unit.toNanos(timeout);
            while (queue.isEmpty() && left > 0) {
                left = ready.awaitNanos(left);
            }
            return !queue.isEmpty();
        } finally {
            lock.unlock();
        }
    }
}
