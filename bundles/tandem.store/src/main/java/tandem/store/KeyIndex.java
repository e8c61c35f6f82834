package tandem.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * Every stored key's record header in memory — type byte, deadline, element count, a list's head — and a string's
 * value when it is at most {@link #INLINE_VALUE} bytes: a write decides from here whether its key exists, what it
 * holds and until when, without reading RocksDB first, and a read of a short string answers from here.
 *
 * <p>Design note: an open-addressing table (linear probing, backward-shift deletion) of immutable entries, each
 * holding its key, because a {@code HashMap} would need a wrapper object per lookup and three objects per key; this
 * one allocates nothing per lookup and one entry (plus the key's bytes) per key, about 75 bytes of heap per key
 * beyond the key and inline value. Each slot's hash sits in a parallel {@code int[]} (0: empty), so a probe compares
 * hashes in one array, a few to a cache line, and follows an entry, in another line of memory, only when the hash
 * matches: a lookup in a table of millions of keys costs one or two cache misses, not one per probe. The hash is
 * seeded per process, so that no client can choose keys that collide. Not thread-safe: only the logic thread,
 * through {@link Tx}, reads and writes it.
 */
final class KeyIndex {

    /** A string value of at most this many bytes is kept in memory with its key. */
    static final int INLINE_VALUE = 64;

    /**
     * One key's header: {@code typeByte} as stored (type code and encoding flags), the deadline, the element count
     * of any type but a string, a list's head position, and a string's value when it is short (null otherwise, and
     * always for the other types).
     */
    record Entry(byte[] key, int hash, byte typeByte, long expiryMs, long fieldCount, long head, byte[] value) {
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final long M = 0x9E3779B97F4A7C15L;

    private static final int INITIAL = 1024;

    private final long seed = new SecureRandom().nextLong();
    private Entry[] table = new Entry[INITIAL];
    /** The hash of the entry in the same slot of {@link #table}, 0 where the slot is empty. */
    private int[] hashes = new int[INITIAL];
    private int size;

    int size() {
        return size;
    }

    void clear() {
        table = new Entry[INITIAL];
        hashes = new int[INITIAL];
        size = 0;
    }

    int hash(byte[] key) {
        long h = seed ^ key.length;
        int i = 0;
        for (; i + 8 <= key.length; i += 8) {
            h = Long.rotateLeft(h ^ ((long) LONGS.get(key, i) * M), 27) * M;
        }
        long tail = 0;
        for (; i < key.length; i++) {
            tail = (tail << 8) | (key[i] & 0xff);
        }
        h = (h ^ (tail * M)) * M;
        h ^= h >>> 29;
        int folded = (int) (h ^ (h >>> 32));
        return folded == 0 ? 1 : folded; // 0 marks an empty slot
    }

    Entry get(byte[] key) {
        int i = slot(key, hash(key));
        return i < 0 ? null : table[i];
    }

    /** @return the slot of {@code key} (whose hash is {@code h}), or -1 */
    private int slot(byte[] key, int h) {
        int[] hs = hashes;
        int mask = hs.length - 1;
        for (int i = h & mask;; i = (i + 1) & mask) {
            int candidate = hs[i];
            if (candidate == 0) {
                return -1;
            }
            if (candidate == h && Arrays.equals(table[i].key, key)) {
                return i;
            }
        }
    }

    /** Stores {@code e}, replacing the entry of the same key; returns the one replaced, or null. */
    Entry put(Entry e) {
        if ((size + 1) * 10L > table.length * 7L) {
            grow();
        }
        int mask = table.length - 1;
        int h = e.hash;
        for (int i = h & mask;; i = (i + 1) & mask) {
            int candidate = hashes[i];
            if (candidate == 0) {
                table[i] = e;
                hashes[i] = h;
                size++;
                return null;
            }
            if (candidate == h && Arrays.equals(table[i].key, e.key)) {
                Entry old = table[i];
                table[i] = e;
                return old;
            }
        }
    }

    /** Removes the entry of {@code key}; returns it, or null. */
    Entry remove(byte[] key) {
        int i = slot(key, hash(key));
        if (i < 0) {
            return null;
        }
        Entry removed = table[i];
        int mask = table.length - 1;
        // backward shift: move each later entry of the run into the gap when the gap lies on its probe path
        int gap = i;
        for (int j = (gap + 1) & mask;; j = (j + 1) & mask) {
            int h = hashes[j];
            if (h == 0) {
                break;
            }
            int home = h & mask;
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                table[gap] = table[j];
                hashes[gap] = h;
                gap = j;
            }
        }
        table[gap] = null;
        hashes[gap] = 0;
        size--;
        return removed;
    }

    private void grow() {
        Entry[] old = table;
        table = new Entry[old.length * 2];
        hashes = new int[old.length * 2];
        int mask = table.length - 1;
        for (Entry e : old) {
            if (e != null) {
                int i = e.hash & mask;
                while (hashes[i] != 0) {
                    i = (i + 1) & mask;
                }
                table[i] = e;
                hashes[i] = e.hash;
            }
        }
    }
}
