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
 * one allocates nothing per lookup and one entry (plus the key's bytes) per key, about 70 bytes of heap per key
 * beyond the key and inline value. The hash is seeded per process, so that no client can choose keys that collide.
 * Not thread-safe: only the logic thread, through {@link Tx}, reads and writes it.
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

    private final long seed = new SecureRandom().nextLong();
    private Entry[] table = new Entry[1024];
    private int size;

    int size() {
        return size;
    }

    void clear() {
        table = new Entry[1024];
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
        return (int) (h ^ (h >>> 32));
    }

    Entry get(byte[] key) {
        int h = hash(key);
        int mask = table.length - 1;
        for (int i = h & mask;; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) {
                return null;
            }
            if (e.hash == h && Arrays.equals(e.key, key)) {
                return e;
            }
        }
    }

    /** Stores {@code e}, replacing the entry of the same key; returns the one replaced, or null. */
    Entry put(Entry e) {
        if ((size + 1) * 10L > table.length * 7L) {
            grow();
        }
        int mask = table.length - 1;
        for (int i = e.hash & mask;; i = (i + 1) & mask) {
            Entry old = table[i];
            if (old == null) {
                table[i] = e;
                size++;
                return null;
            }
            if (old.hash == e.hash && Arrays.equals(old.key, e.key)) {
                table[i] = e;
                return old;
            }
        }
    }

    /** Removes the entry of {@code key}; returns it, or null. */
    Entry remove(byte[] key) {
        int h = hash(key);
        int mask = table.length - 1;
        int i = h & mask;
        for (;; i = (i + 1) & mask) {
            Entry e = table[i];
            if (e == null) {
                return null;
            }
            if (e.hash == h && Arrays.equals(e.key, key)) {
                break;
            }
        }
        Entry removed = table[i];
        // backward shift: move each later entry of the run into the gap when the gap lies on its probe path
        int gap = i;
        for (int j = (gap + 1) & mask;; j = (j + 1) & mask) {
            Entry e = table[j];
            if (e == null) {
                break;
            }
            int home = e.hash & mask;
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                table[gap] = e;
                gap = j;
            }
        }
        table[gap] = null;
        size--;
        return removed;
    }

    private void grow() {
        Entry[] old = table;
        table = new Entry[old.length * 2];
        int mask = table.length - 1;
        for (Entry e : old) {
            if (e != null) {
                int i = e.hash & mask;
                while (table[i] != null) {
                    i = (i + 1) & mask;
                }
                table[i] = e;
            }
        }
    }
}
