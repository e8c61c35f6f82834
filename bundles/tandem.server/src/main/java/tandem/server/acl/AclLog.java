package tandem.server.acl;

import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

/**
 * {@code ACL LOG}: the newest refusals first, at most {@code acllog-max-len}; a refusal like one of the ten newest
 * (same reason, context, object and user, within a minute) counts on that entry and moves it to the front, as Redis
 * groups them.
 */
public final class AclLog {

    /** Redis groups entries no more than this many milliseconds apart. */
    private static final long GROUPING_MS = 60_000;
    /** How many of the newest entries a refusal is compared with. */
    private static final int SCAN = 10;

    /**
     * One entry.
     *
     * @param id        {@code entry-id}, which Redis 7.2 shows; kept for the order
     * @param created   when the first refusal of the entry happened, epoch milliseconds
     * @param updated   when the last one did
     */
    public record Entry(long count, String reason, String context, String object, String username, String clientInfo,
            long id, long created, long updated) {
    }

    private final LinkedList<Entry> entries = new LinkedList<>();
    private long nextId;
    private volatile int maxLen = 128;

    /** {@code acllog-max-len}; older entries beyond it are dropped at the next refusal. */
    public void maxLen(int value) {
        maxLen = value;
    }

    public int maxLen() {
        return maxLen;
    }

    public synchronized void add(String reason, String context, String object, String username, String clientInfo) {
        long now = System.currentTimeMillis();
        int scanned = 0;
        for (var it = entries.listIterator(); it.hasNext() && scanned < SCAN; scanned++) {
            Entry e = it.next();
            if (e.reason().equals(reason) && e.context().equals(context) && Math.abs(e.updated() - now) <= GROUPING_MS
                    && e.object().equals(object) && e.username().equals(username)) {
                it.remove();
                entries.addFirst(new Entry(e.count() + 1, reason, context, object, username, clientInfo, e.id(),
                        e.created(), now));
                return;
            }
        }
        entries.addFirst(new Entry(1, reason, context, object, username, clientInfo, nextId++, now, now));
        while (entries.size() > maxLen) {
            entries.removeLast();
        }
    }

    /** @return the newest {@code count} entries, newest first */
    public synchronized List<Entry> newest(long count) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (out.size() >= count) {
                break;
            }
            out.add(e);
        }
        return out;
    }

    public synchronized void reset() {
        entries.clear();
    }
}
