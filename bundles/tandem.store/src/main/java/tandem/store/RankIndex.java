package tandem.store;

import java.util.Arrays;

/**
 * An in-memory index of a large sorted set's order, so that a rank (ZRANK, a range by index) costs a few thousand
 * record reads at most however large the set: RocksDB keeps no counts, and counting the order records up to a member
 * would read half a million of them in a set of a million.
 *
 * <p>The order names ({@code [sortable score][member]}, see {@link Zsets}) are cut into intervals at fence
 * names: interval {@code i} holds the names from {@code fences[i]} (inclusive) to {@code fences[i + 1]}; the names
 * before the first fence are counted apart. Each interval's count is kept exact as members are added and removed
 * ({@link Zsets#put}, {@link Zsets#remove}); a rank is the counts of the intervals before a name's
 * plus a walk from its interval's fence to it. An interval that grows past {@code 2 * span} records is split at
 * its middle (a walk of {@code span} records), so walks stay short whatever the order of the inserts.
 *
 * <p>Built on the first rank asked of a set of at least {@link #minSize} members (one walk over the set), kept on
 * the logic thread only and never persisted: it goes with the key, on any failed apply, at FLUSHALL and at a
 * restart, and is built again when needed. A fence need not name a live member (it may have been removed): it is
 * only a boundary.
 */
final class RankIndex {

    /** Sets smaller than this are counted by a walk: an index would not pay. Lowered by tests. */
    static int minSize = 4096;
    /** Records per interval when built or split. Lowered by tests. */
    static int span = 1024;

    private byte[][] fences = new byte[16][];
    private long[] counts = new long[16];
    private int size;
    private long before;

    /** Builds the index of the sorted set at {@code key}: one walk over its order. */
    static RankIndex build(Tx tx, byte[] key) {
        RankIndex index = new RankIndex();
        long n = 0;
        try (Zsets.Walk w = new Zsets.Walk(tx, key, false)) {
            for (byte[] name = w.nextName(); name != null; name = w.nextName()) {
                if (n % span == 0) {
                    index.insert(index.size, name, 0);
                }
                index.counts[index.size - 1]++;
                n++;
            }
        }
        return index;
    }

    /** The interval of {@code name}: the last fence at or before it, or -1 when it sorts before every fence. */
    private int interval(byte[] name) {
        int lo = 0;
        int hi = size - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(fences[mid], name) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    private void insert(int at, byte[] fence, long count) {
        if (size == fences.length) {
            fences = Arrays.copyOf(fences, size * 2);
            counts = Arrays.copyOf(counts, size * 2);
        }
        System.arraycopy(fences, at, fences, at + 1, size - at);
        System.arraycopy(counts, at, counts, at + 1, size - at);
        fences[at] = fence;
        counts[at] = count;
        size++;
    }

    /** A member's order name was written. */
    void added(Tx tx, byte[] key, byte[] name) {
        int i = interval(name);
        if (i < 0) {
            before++;
            if (before > 2L * span) {
                // the names before the first fence become an interval of their own, split at once if need be
                try (Zsets.Walk w = new Zsets.Walk(tx, key, false)) {
                    insert(0, w.nextName(), before);
                }
                before = 0;
                split(tx, key, 0);
            }
            return;
        }
        counts[i]++;
        if (counts[i] > 2L * span) {
            split(tx, key, i);
        }
    }

    /** A member's order name was deleted. */
    void removed(byte[] name) {
        int i = interval(name);
        if (i < 0) {
            before--;
        } else {
            counts[i]--;
        }
    }

    /** Cuts interval {@code i} at its {@code span}-th name. */
    private void split(Tx tx, byte[] key, int i) {
        byte[] middle;
        try (Zsets.Walk w = new Zsets.Walk(tx, key, false).at(fences[i])) {
            for (int k = 0; k < span; k++) {
                w.nextName();
            }
            middle = w.nextName();
        }
        if (middle == null) {
            return; // fewer names than counted: cannot be, but a short walk must not corrupt the fences
        }
        long total = counts[i];
        counts[i] = span;
        insert(i + 1, middle, total - span);
    }

    /** The rank (0 = lowest) of the live order name {@code name}. */
    long rank(Tx tx, byte[] key, byte[] name) {
        int i = interval(name);
        long rank = 0;
        if (i >= 0) {
            rank = before;
            for (int k = 0; k < i; k++) {
                rank += counts[k];
            }
        }
        try (Zsets.Walk w = new Zsets.Walk(tx, key, false)) {
            if (i >= 0) {
                w.at(fences[i]);
            }
            for (byte[] n = w.nextName(); n != null && Arrays.compareUnsigned(n, name) < 0; n = w.nextName()) {
                rank++;
            }
        }
        return rank;
    }

    /**
     * A walk from the lowest positioned so that its next entry has rank {@code rank} (which must exist): the
     * interval that holds it found from the counts, then a walk within it.
     */
    Zsets.Walk walkFrom(Tx tx, byte[] key, long rank) {
        Zsets.Walk w = new Zsets.Walk(tx, key, false);
        long skip = rank;
        if (rank >= before && size > 0) {
            skip -= before;
            int i = 0;
            while (i < size - 1 && skip >= counts[i]) {
                skip -= counts[i];
                i++;
            }
            w.at(fences[i]);
        }
        for (long k = 0; k < skip; k++) {
            w.nextName();
        }
        return w;
    }
}
