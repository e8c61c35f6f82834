package tandem.node;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * The requests waiting for their turn, in the order they were sequenced: the sequencer adds, the drain takes. The
 * logic thread's alone.
 */
final class Turns {

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    /** Pending writes that a journal change lost; each is refused when its turn comes. */
    private final Set<Pending> lost = Collections.newSetFromMap(new IdentityHashMap<>());

    void add(Pending p) {
        pending.add(p);
    }

    Pending peek() {
        return pending.peek();
    }

    Pending poll() {
        return pending.poll();
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /**
     * @return the sequence of the first pending request that waits for its journal entry (a write sequenced before
     *         a replay), {@link Long#MAX_VALUE} when none does
     */
    long firstWriteSequence() {
        for (Pending p : pending) {
            if (p.sequence() > 0) {
                return p.sequence();
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * A new journal ends at {@code end}: every pending write beyond it was never made durable, and is refused at its
     * turn.
     *
     * @return how many were lost
     */
    int loseAfter(long end) {
        for (Pending p : new ArrayList<>(pending)) {
            if (p.sequence() > end) {
                lost.add(p);
            }
        }
        return lost.size();
    }

    /** @return true (forgetting it) when {@code p} was lost by a journal change */
    boolean wasLost(Pending p) {
        return lost.remove(p);
    }
}
