package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What is known in memory of one collection key beyond its key record ({@link Tx#memo}): stretches of some of its
 * record spaces that hold no live record, and a large sorted set's rank index. Never persisted: it goes with the
 * key, on any failed apply, at FLUSHALL and at a restart, and is learnt again when needed.
 *
 * <p>A space is the records under one prefix (a sorted set's order or its members, a set's members). RocksDB keeps
 * a deleted record until compaction, and a seek steps over every deletion between where it starts and the live
 * record it finds: pops that take the first (or last) record of a space, or the record after a random point, leave
 * runs of deletions that every later seek there would step over again. So the pops and draws note what their seeks
 * found empty ({@link #none}), and start later seeks past it ({@link #from}, {@link #backFrom}). A stretch is a
 * half-open range of record keys {@code [start, end)}; a write of a record inside one splits it ({@link #wrote},
 * which {@link Tx} calls for every record it writes), and a deletion next to one extends it ({@link #deleted}), so
 * the runs of deletions pops leave are stepped over once.
 */
final class Memo {

    /** The most stretches a space keeps: past it, what was learnt is dropped (memory stays small, answers same). */
    static final int MAX_STRETCHES = 1024;

    /** A large sorted set's rank index, once a rank was asked of it. */
    RankIndex rank;

    private final List<byte[]> spaces = new ArrayList<>(2);
    /** Per space: the stretches known to hold no live record, start to end (exclusive), none overlapping. */
    private final List<TreeMap<byte[], byte[]>> empty = new ArrayList<>(2);

    /** Where a seek for the first live record at or after {@code target} may start instead. */
    byte[] from(byte[] space, byte[] target) {
        Map.Entry<byte[], byte[]> e = containing(space, target);
        return e == null ? target : e.getValue();
    }

    /** Where a backward seek for the last live record at or before {@code target} may start instead. */
    byte[] backFrom(byte[] space, byte[] target) {
        Map.Entry<byte[], byte[]> e = containing(space, target);
        return e == null ? target : e.getKey(); // not live itself: the seek goes on to the record before it
    }

    /** No live record of {@code space} lies in {@code [start, end)}. */
    void none(byte[] space, byte[] start, byte[] end) {
        if (Arrays.compareUnsigned(start, end) >= 0) {
            return;
        }
        int i = find(space);
        if (i < 0) {
            spaces.add(space);
            empty.add(new TreeMap<>(Arrays::compareUnsigned));
            i = spaces.size() - 1;
        }
        TreeMap<byte[], byte[]> s = empty.get(i);
        if (s.size() >= MAX_STRETCHES) {
            s.clear(); // draws from a large collection, each learning a gap between two members
        }
        Map.Entry<byte[], byte[]> before = s.floorEntry(start);
        if (before != null && Arrays.compareUnsigned(before.getValue(), start) >= 0) {
            start = before.getKey();
            end = max(end, before.getValue());
        }
        // every stretch that starts within the new one joins it
        for (Map.Entry<byte[], byte[]> e = s.ceilingEntry(start);
                e != null && Arrays.compareUnsigned(e.getKey(), end) <= 0; e = s.higherEntry(e.getKey())) {
            end = max(end, e.getValue());
            s.remove(e.getKey());
        }
        s.put(start, end);
    }

    /** A record was written: a stretch that held it is split around it. */
    void wrote(byte[] recordKey) {
        int i = spaceOf(recordKey);
        Map.Entry<byte[], byte[]> e = i < 0 ? null : empty.get(i).floorEntry(recordKey);
        if (e == null || Arrays.compareUnsigned(e.getValue(), recordKey) <= 0) {
            return;
        }
        TreeMap<byte[], byte[]> s = empty.get(i);
        s.remove(e.getKey());
        if (Arrays.compareUnsigned(e.getKey(), recordKey) < 0) {
            s.put(e.getKey(), recordKey);
        }
        byte[] after = successor(recordKey);
        if (Arrays.compareUnsigned(after, e.getValue()) < 0) {
            s.put(after, e.getValue());
        }
    }

    /** A record was deleted: a stretch that ends or starts right at it takes it in. */
    void deleted(byte[] recordKey) {
        int i = spaceOf(recordKey);
        if (i < 0) {
            return;
        }
        TreeMap<byte[], byte[]> s = empty.get(i);
        Map.Entry<byte[], byte[]> before = s.lowerEntry(recordKey);
        byte[] after = successor(recordKey);
        if (before != null && Arrays.equals(before.getValue(), recordKey) || s.containsKey(after)) {
            none(spaces.get(i), recordKey, after);
        }
    }

    private Map.Entry<byte[], byte[]> containing(byte[] space, byte[] key) {
        int i = find(space);
        if (i < 0) {
            return null;
        }
        Map.Entry<byte[], byte[]> e = empty.get(i).floorEntry(key);
        return e != null && Arrays.compareUnsigned(e.getValue(), key) > 0 ? e : null;
    }

    /** The smallest record key after {@code key}. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    private static byte[] max(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b) >= 0 ? a : b;
    }

    /** The space that holds {@code recordKey} (spaces do not overlap), or -1. */
    private int spaceOf(byte[] recordKey) {
        for (int i = 0; i < spaces.size(); i++) {
            if (Tx.startsWith(recordKey, spaces.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private int find(byte[] space) {
        for (int i = 0; i < spaces.size(); i++) {
            if (Arrays.equals(spaces.get(i), space)) {
                return i;
            }
        }
        return -1;
    }
}
