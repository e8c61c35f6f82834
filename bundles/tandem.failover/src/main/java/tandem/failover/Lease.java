package tandem.failover;

import java.util.concurrent.TimeUnit;

/**
 * The primary's write lease: it runs for {@code lease.ms} from the moment a report was <em>sent</em> whose answer
 * named this node the primary (the answer came after a ReadIndex round: a majority still followed that leader after
 * the report left). Written by the report thread, read on the node's logic thread for every write.
 */
final class Lease {

    private volatile long untilNanos;
    private volatile boolean held;

    /** An answer to the report sent at {@code sentNanos}: renews the lease when it names this node the primary. */
    void answered(long sentNanos, boolean primary, long leaseMs) {
        if (primary) {
            untilNanos = sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
            held = true;
        } else {
            held = false;
        }
    }

    void drop() {
        held = false;
    }

    boolean valid(long nowNanos) {
        return held && nowNanos - untilNanos < 0;
    }

    /** @return milliseconds left, 0 once lapsed */
    long leftMillis(long nowNanos) {
        return valid(nowNanos) ? TimeUnit.NANOSECONDS.toMillis(untilNanos - nowNanos) : 0;
    }
}
