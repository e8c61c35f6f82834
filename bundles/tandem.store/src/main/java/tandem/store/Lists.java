package tandem.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.rocksdb.RocksIterator;

import tandem.store.Tx.Rec;

/**
 * How a list is stored, and the reads and writes its commands ({@link ListCommands}) are made of.
 *
 * <h2>Layout</h2>
 * Each element is a record of its own in the {@code fields} family, named by its position:
 * <pre>
 * [key_len u32 BE][key][position i64 BE, sign bit flipped]  -&gt; element
 * </pre>
 * The key record holds the element count and the position of the first element (the head); the elements occupy
 * the positions {@code head .. head + count - 1} without gaps. Flipping the sign bit makes byte order position order
 * for negative positions too, so LPUSH takes {@code head - 1} and RPUSH {@code head + count}: a push or a pop at
 * either end writes one element record and the key record, whatever the length, and LINDEX, LSET and a page of LRANGE
 * read only what they return. LINSERT and LREM move the elements after the change (Redis' are O(n) too); LTRIM deletes
 * what it trims. Deleting the last element deletes the key. No read steps past an end: beyond the head and the tail
 * lie the deletions of earlier pops, which RocksDB keeps until compaction.
 */
final class Lists {

    private Lists() {
    }

    /** The live list at {@code key}, or null; WRONGTYPE when it holds another type. */
    static Rec list(Tx tx, byte[] key) {
        return tx.typed(key, Tx.LIST);
    }

    /** The record name of position {@code pos}: big-endian, the sign bit flipped, so byte order is position order. */
    static byte[] name(long pos) {
        long u = pos ^ Long.MIN_VALUE;
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) u;
            u >>>= 8;
        }
        return b;
    }

    /** The element at index {@code i} (0 = head) of a list, which must exist. */
    static byte[] get(Tx tx, byte[] key, Rec rec, long i) {
        byte[] v = tx.record(Tx.fieldPrefix(key), name(rec.head() + i));
        if (v == null) {
            throw new IllegalStateException("list " + Args.text(key) + " lacks its element " + i);
        }
        return v;
    }

    /** Replaces the element at index {@code i}, which must exist. */
    static void set(Tx tx, byte[] key, Rec rec, long i, byte[] value) {
        tx.putRecord(Tx.fieldPrefix(key), name(rec.head() + i), value);
    }

    /** The elements at indexes {@code from..to} (inclusive, within the list), head to tail. */
    static List<byte[]> range(Tx tx, byte[] key, Rec rec, long from, long to) {
        if (from == to) {
            List<byte[]> one = new ArrayList<>(1);
            one.add(get(tx, key, rec, from)); // a point read: cheaper than an iterator (every LPOP/RPOP of one)
            return one;
        }
        List<byte[]> out = new ArrayList<>((int) Math.min(to - from + 1, 1024));
        walk(tx, key, rec, from, to - from + 1, false, (i, value) -> out.add(value));
        return out;
    }

    /** Every element, head to tail. */
    static List<byte[]> all(Tx tx, byte[] key, Rec rec) {
        return rec == null ? List.of() : range(tx, key, rec, 0, rec.fieldCount() - 1);
    }

    /** What {@link #walk} shows each element to: its index (from the end walked from) and value; false stops. */
    interface Visit {
        boolean element(long index, byte[] value);
    }

    /**
     * Shows up to {@code max} elements to {@code visit}, from index {@code skip} of the head ({@code fromTail}: of
     * the tail) onwards, one at a time, until it answers false; never past the other end.
     */
    static void walk(Tx tx, byte[] key, Rec rec, long skip, long max, boolean fromTail, Visit visit) {
        long count = Math.min(max, rec.fieldCount() - skip);
        byte[] prefix = Tx.fieldPrefix(key);
        try (RocksIterator it = tx.fieldIterator()) {
            if (fromTail) {
                it.seekForPrev(Tx.concat(prefix, name(rec.head() + rec.fieldCount() - 1 - skip)));
            } else {
                it.seek(Tx.concat(prefix, name(rec.head() + skip)));
            }
            for (long i = 0; i < count; i++) {
                if (i > 0) {
                    // not past the last wanted: beyond an end lie the deletions of earlier pops, each a step to skip
                    if (fromTail) {
                        it.prev();
                    } else {
                        it.next();
                    }
                }
                if (!it.isValid() || !Tx.startsWith(it.key(), prefix)) {
                    throw new IllegalStateException("list " + Args.text(key) + " lacks its element " + (skip + i));
                }
                if (!visit.element(skip + i, it.value())) {
                    return;
                }
            }
        }
    }

    /** Pushes {@code elements} one by one at the head or the tail; returns the list's new record. */
    static Rec push(Tx tx, byte[] key, Rec rec, boolean head, List<byte[]> elements) {
        byte[] prefix = Tx.fieldPrefix(key);
        long first = rec == null ? 0 : rec.head();
        long count = rec == null ? 0 : rec.fieldCount();
        for (byte[] e : elements) {
            if (head) {
                tx.putRecord(prefix, name(--first), e);
            } else {
                tx.putRecord(prefix, name(first + count), e);
            }
            count++;
        }
        tx.putElements(key, rec, Tx.LIST, count, first, 0);
        return tx.meta(key);
    }

    /** Pops up to {@code n} elements from the head or the tail, in pop order; deletes the key when it empties. */
    static List<byte[]> pop(Tx tx, byte[] key, Rec rec, boolean head, long n) {
        long count = rec.fieldCount();
        long k = Math.min(n, count);
        List<byte[]> out = head ? range(tx, key, rec, 0, k - 1) : range(tx, key, rec, count - k, count - 1);
        if (!head) {
            Collections.reverse(out);
        }
        trim(tx, key, rec, head ? k : 0, head ? 0 : k);
        return out;
    }

    /** Deletes {@code left} elements from the head and {@code right} from the tail; the key when none is left. */
    static void trim(Tx tx, byte[] key, Rec rec, long left, long right) {
        byte[] prefix = Tx.fieldPrefix(key);
        long count = rec.fieldCount();
        for (long i = 0; i < left; i++) {
            tx.deleteRecord(prefix, name(rec.head() + i));
        }
        for (long i = 0; i < right; i++) {
            tx.deleteRecord(prefix, name(rec.head() + count - 1 - i));
        }
        tx.putElements(key, rec, Tx.LIST, count - left - right, rec.head() + left, 0);
    }

    /**
     * Replaces the elements from index {@code from} to the end with {@code tail}: what LINSERT and LREM move.
     * Deletes the key when nothing is left.
     */
    static void rewrite(Tx tx, byte[] key, Rec rec, long from, List<byte[]> tail) {
        byte[] prefix = Tx.fieldPrefix(key);
        long count = from + tail.size();
        for (int i = 0; i < tail.size(); i++) {
            tx.putRecord(prefix, name(rec.head() + from + i), tail.get(i));
        }
        for (long i = count; i < rec.fieldCount(); i++) {
            tx.deleteRecord(prefix, name(rec.head() + i));
        }
        tx.putElements(key, rec, Tx.LIST, count, rec.head(), 0);
    }
}
