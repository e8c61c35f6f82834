package tandem.store;

import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The positions behind SCAN and HSCAN cursors.
 *
 * <p>Keys and fields are iterated in byte order, so a position is simply the last key (or field) returned: the
 * next call resumes strictly after it. A cursor is a number standing for such a position, remembered in a map
 * bounded by {@code scan.cursors} (least recently used first out). This guarantees what Redis guarantees: every
 * key present for the whole iteration is returned (at least once), whatever is added or deleted meanwhile. A
 * cursor that is not (or no longer) remembered, or that belongs to another hash, restarts its iteration from the
 * beginning: still complete, at the price of repeats. The numbers start at a random base per opened store so that
 * a cursor kept by a client across a restart is not mistaken for a new one.
 *
 * <p>Only the logic thread uses this class; the bound may be changed from another thread.
 */
final class ScanCursors {

    /**
     * Where an iteration stands: {@code owner} is null for SCAN, the element prefix ({@link Tx#fieldPrefix}) of the
     * collection for HSCAN, SSCAN and ZSCAN.
     */
    record Position(byte[] owner, byte[] last) {
    }

    private volatile int capacity;
    private long next;
    private final Map<Long, Position> positions = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Position> eldest) {
            return size() > capacity;
        }
    };

    ScanCursors(int capacity) {
        this.capacity = capacity;
        this.next = (new SecureRandom().nextLong() >>> 2) | (1L << 32);
    }

    void capacity(int capacity) {
        this.capacity = capacity;
    }

    /** @return the position of {@code cursor}, or null to start from the beginning */
    Position find(long cursor) {
        return cursor == 0 ? null : positions.get(cursor);
    }

    /** @return a new cursor standing for {@code position} */
    long remember(Position position) {
        long id = next++;
        if (id == 0) {
            id = next++;
        }
        positions.put(id, position);
        while (positions.size() > capacity) { // a shrunk bound takes effect at the next insertion
            positions.remove(positions.keySet().iterator().next());
        }
        return id;
    }

    int size() {
        return positions.size();
    }
}
