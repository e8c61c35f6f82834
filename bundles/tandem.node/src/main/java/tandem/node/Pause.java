package tandem.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import tandem.api.store.Command;

/**
 * {@code CLIENT PAUSE timeout [WRITE|ALL]} and {@code CLIENT UNPAUSE}, as Redis 7.0 has them: until the pause ends,
 * a client's next command that it holds ({@code ALL}: any; {@code WRITE}: one that writes or propagates — a keyspace
 * write, {@code PUBLISH}, an {@code EXEC} of writes) waits, and what the client sends after it waits behind it; when
 * the pause ends every held client goes on, in the order it was held. No Tick is journaled meanwhile, so no key
 * expires: the data set stays as it was (a read still finds an expired key absent). A new pause replaces the one in
 * force, as in Redis. The logic thread's alone.
 */
final class Pause {

    private long untilNanos;
    private boolean active;
    private boolean writesOnly;
    private final List<Client> held = new ArrayList<>();
    /** The size of {@link #held}, for other threads ({@code INFO}'s {@code blocked_clients} counts them, as Redis). */
    private volatile int heldCount;

    /** Pauses for {@code millis} from now, {@code writesOnly} or every command. */
    void pause(long millis, boolean writesOnly) {
        this.active = true;
        this.writesOnly = writesOnly;
        this.untilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(millis,
                TimeUnit.DAYS.toMillis(365L * 100)));
    }

    /** Ends the pause now: the held clients go on at the logic thread's next pass. */
    void unpause() {
        untilNanos = System.nanoTime();
    }

    /** @return whether a pause is in force now (writes, then, are not to be journaled by the node itself either) */
    boolean active() {
        if (active && System.nanoTime() - untilNanos >= 0) {
            active = false;
        }
        return active;
    }

    /**
     * @return whether {@code command} of {@code c} waits for the end of the pause; when it does, {@code c} is held
     *         (the caller defers the command and what follows it)
     */
    boolean holds(Client c, Command command) {
        if (!active() || "quit".equals(command.name()) || writesOnly && !writes(c, command)) {
            return false; // Redis answers QUIT before it looks at a pause
        }
        c.paused = true;
        held.add(c);
        heldCount = held.size();
        return true;
    }

    /** Redis' "may replicate": a keyspace write, a publish, or an {@code EXEC} that would journal a write. */
    private static boolean writes(Client c, Command command) {
        if (command.isKeyspace()) {
            return command.isWrite();
        }
        String name = command.name();
        if ("publish".equals(name) || "spublish".equals(name)) {
            return true;
        }
        if ("exec".equals(name) && c.transaction != null) {
            for (Command queued : c.transaction) {
                if (queued.isWrite()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return the held clients once the pause has ended, in the order they were held, released; else none */
    List<Client> released() {
        if (held.isEmpty() || active()) {
            return List.of();
        }
        List<Client> out = new ArrayList<>(held);
        held.clear();
        heldCount = 0;
        out.forEach(c -> c.paused = false);
        return out;
    }

    /** {@code c} went away: it is held no more. */
    void remove(Client c) {
        held.remove(c);
        heldCount = held.size();
    }

    /** @return how many clients the pause holds now; any thread */
    int held() {
        return heldCount;
    }

    /** @return how long the logic thread may sleep, at most {@code maxNanos}: until the pause ends */
    long pollNanos(long maxNanos) {
        if (held.isEmpty() || !active()) {
            return maxNanos;
        }
        return Math.min(maxNanos, Math.max(0, untilNanos - System.nanoTime()));
    }
}
