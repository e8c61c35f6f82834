package tandem.protocol.command;

import java.util.Map;

/**
 * Command names to values, looked up by a request's name bytes as Redis looks names up: ASCII case-insensitive.
 * Immutable once built, so any thread may look up.
 *
 * <p>Design note: a {@code HashMap<String, V>} would need the name turned into a lower-case {@code String} for every
 * request; this open-addressing table hashes and compares the bytes as they came, folding case on the fly, and
 * allocates nothing per lookup.
 */
public final class NameTable<V> {

    private final byte[][] names;
    private final Object[] values;
    private final int mask;

    /** @param entries by lower-case ASCII name */
    public NameTable(Map<String, ? extends V> entries) {
        int capacity = Integer.highestOneBit(Math.max(4, entries.size() * 3)) << 1;
        names = new byte[capacity][];
        values = new Object[capacity];
        mask = capacity - 1;
        for (Map.Entry<String, ? extends V> e : entries.entrySet()) {
            byte[] name = e.getKey().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            for (byte b : name) {
                if (b >= 'A' && b <= 'Z') {
                    throw new IllegalArgumentException("a name in the table is lower case: " + e.getKey());
                }
            }
            int i = hash(name) & mask;
            while (names[i] != null) {
                i = (i + 1) & mask;
            }
            names[i] = name;
            values[i] = e.getValue();
        }
    }

    /** @return the value of {@code name} (any case), or null */
    @SuppressWarnings("unchecked")
    public V get(byte[] name) {
        for (int i = hash(name) & mask;; i = (i + 1) & mask) {
            byte[] candidate = names[i];
            if (candidate == null) {
                return null;
            }
            if (equalsIgnoringCase(candidate, name)) {
                return (V) values[i];
            }
        }
    }

    private static int hash(byte[] name) {
        int h = 0;
        for (byte b : name) {
            h = 31 * h + lower(b);
        }
        return h ^ (h >>> 16);
    }

    private static boolean equalsIgnoringCase(byte[] lowerName, byte[] name) {
        if (lowerName.length != name.length) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (lowerName[i] != lower(name[i])) {
                return false;
            }
        }
        return true;
    }

    private static int lower(byte b) {
        return b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
    }
}
