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

    /** A key with value semantics. */
    record Key(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    private final Map<Key, Set<Client>> watchers = new HashMap<>();

    void watch(Client c, byte[] key) {
        Key k = new Key(key);
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

    void touched(byte[] key) {
        Set<Client> set = watchers.get(new Key(key));
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
