package tandem.node;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which clients watch which keys, for {@code WATCH}. The sequencer marks every watcher of a key that receives a
 * sequenced write, whether or not the write turns out to change anything (a documented, safe over-abort).
 * Only the logic thread uses it.
 */
final class WatchRegistry {

    /** A key of database {@code db}, with value semantics. */
    record Key(int db, byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.db == db && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes) * 31 + db;
        }
    }

    private final Map<Key, Set<Client>> watchers = new HashMap<>();

    void watch(Client c, int db, byte[] key) {
        Key k = new Key(db, key);
        if (watchers.computeIfAbsent(k, x -> new HashSet<>()).add(c)) {
            c.watched.add(k);
        }
    }

    void unwatchAll(Client c) {
        for (Key k : c.watched) {
            Set<Client> set = watchers.get(k);
            if (set != null) {
                set.remove(c);
                if (set.isEmpty()) {
                    watchers.remove(k);
                }
            }
        }
        c.watched.clear();
        c.watchTouched = false;
    }

    boolean isEmpty() {
        return watchers.isEmpty();
    }

    void touched(int db, byte[] key) {
        Set<Client> set = watchers.get(new Key(db, key));
        if (set != null) {
            for (Client c : set) {
                c.watchTouched = true;
            }
        }
    }

    void touchedAll() {
        for (Set<Client> set : watchers.values()) {
            for (Client c : set) {
                c.watchTouched = true;
            }
        }
    }
}
