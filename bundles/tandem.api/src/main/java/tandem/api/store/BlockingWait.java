package tandem.api.store;

import java.util.List;

/**
 * What a blocking command (BLPOP, BZPOPMIN…) waits for when it blocks, as the store reads it from the command: the
 * keys whose writes may serve it, and how long it may wait.
 *
 * @param keys the keys a write to which may serve it (a BLMOVE's source, not its destination)
 * @param timeoutMillis how long it may block, in milliseconds, as Redis computes it from the seconds given; 0 for good
 */
public record BlockingWait(List<byte[]> keys, long timeoutMillis) {

    public BlockingWait {
        keys = List.copyOf(keys);
    }
}
