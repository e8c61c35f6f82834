package tandem.store;

import java.nio.ByteBuffer;
import java.util.HashMap;

import org.rocksdb.ColumnFamilyHandle;

/**
 * One of the store's sixteen databases (Redis's {@code SELECT} index): its three column families and what is held
 * in memory of them. Which database a {@code SELECT} index names can change ({@code SWAPDB}); the column families a
 * database owns never do ({@link Databases}).
 *
 * <p>The counters are those of the applies committed to it ({@link #keyCount}, {@link #expiringCount},
 * {@link #deadlineSeconds},
 * read by other threads for {@code INFO keyspace}); the deltas are those of the apply running, folded in when it
 * succeeds and dropped when it fails. The logic thread's alone, but for the counters.
 */
final class Database {

    /** Which column families: 0 for {@code keys}, {@code fields}, {@code deadlines}; n for {@code keys.n}... */
    final int slot;
    final ColumnFamilyHandle keys;
    final ColumnFamilyHandle fields;
    final ColumnFamilyHandle deadlines;
    /** Every key's header, and short strings' values: the pending batch included. */
    final KeyIndex index = new KeyIndex();
    /** What is known in memory of some collection keys (see {@link Memo}). */
    final HashMap<ByteBuffer, Memo> memos = new HashMap<>();

    /** Earliest deadline in ms (Long.MAX_VALUE: none), exact while {@link #deadlineKnown}. */
    long nextDeadlineMs;
    boolean deadlineKnown;
    /** A deadline entry at or before the first live one (null: unknown); see {@link Tx#dueDeadlines}. */
    byte[] deadlineFloor;

    volatile long keyCount;
    volatile long expiringCount;
    /** The sum of every key's deadline in whole seconds: what {@code avg_ttl} is computed from. */
    volatile long deadlineSeconds;

    long keyDelta;
    long expiringDelta;
    long deadlineSecondsDelta;
    /** True once the running apply changed this database: its deltas are folded in or dropped. */
    boolean touched;

    Database(int slot, ColumnFamilyHandle keys, ColumnFamilyHandle fields, ColumnFamilyHandle deadlines) {
        this.slot = slot;
        this.keys = keys;
        this.fields = fields;
        this.deadlines = deadlines;
    }

    /** @return keys stored now, the running apply's changes included (expired ones not yet removed too) */
    long storedKeys() {
        return keyCount + keyDelta;
    }

    /** The running apply succeeded: its changes count. */
    void fold() {
        keyCount += keyDelta;
        expiringCount += expiringDelta;
        deadlineSeconds += deadlineSecondsDelta;
        forgetDeltas();
    }

    void forgetDeltas() {
        keyDelta = 0;
        expiringDelta = 0;
        deadlineSecondsDelta = 0;
        touched = false;
    }

    /** Every key was deleted at once (FLUSHALL, FLUSHDB): nothing is left in memory either. */
    void cleared() {
        index.clear();
        memos.clear();
        deadlineFloor = null;
        nextDeadlineMs = Long.MAX_VALUE;
        deadlineKnown = true;
        keyCount = 0;
        expiringCount = 0;
        deadlineSeconds = 0;
        forgetDeltas();
    }

    /** {@code avg_ttl} of {@code INFO keyspace} at {@code nowMs}: the mean time left, 0 without deadlines. */
    long averageTtlMillis(long nowMs) {
        long n = expiringCount;
        return n <= 0 ? 0 : Math.max(0, deadlineSeconds / n * 1000 - nowMs);
    }
}
