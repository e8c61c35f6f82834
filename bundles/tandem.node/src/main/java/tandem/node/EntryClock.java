package tandem.node;

import java.time.Instant;

/**
 * "Now" for a new journal entry, and for a read: the wall clock, never before the last entry's timestamp, so that
 * timestamps never go backwards within a lineage, across a restart or a promotion either. The logic thread's alone.
 */
final class EntryClock {

    private long lastNs;

    long next() {
        Instant now = Instant.now();
        long ns = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        lastNs = Math.max(ns, lastNs);
        return lastNs;
    }

    /** The journal's last entry has {@code timestampNs}: no later entry may be stamped before it. */
    void notBefore(long timestampNs) {
        lastNs = Math.max(lastNs, timestampNs);
    }
}
