package tandem.node;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Clients parked until something else answers them: in {@code WAIT} until enough replicas acknowledged, in a blocking
 * command until a write serves it or its time is up, in a command that finishes on another thread
 * ({@code REPLICAOF}), held by {@code CLIENT PAUSE} until it ends. Each answered client resumes ({@link Dispatcher#resume}). The logic thread's, but the admin
 * thread, which runs the work handed to it one piece at a time and posts its answer back.
 */
final class Parking {

    private final Waits waits;
    private final Blocked blocked;
    private final Pause pause;
    private final Dispatcher dispatcher;
    private final Replies replies;
    private final RoleState role;
    private final Inbox inbox;
    /** Runs what commands finish off the logic thread ({@code REPLICAOF}), one at a time. */
    private final ExecutorService admin = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tandem-admin");
        t.setDaemon(true);
        return t;
    });

    Parking(Waits waits, Blocked blocked, Pause pause, Dispatcher dispatcher, Replies replies, RoleState role,
            Inbox inbox) {
        this.pause = pause;
        this.waits = waits;
        this.blocked = blocked;
        this.dispatcher = dispatcher;
        this.replies = replies;
        this.role = role;
        this.inbox = inbox;
    }

    /** {@code c}'s {@code WAIT} takes its turn: answered at once when enough replicas acknowledged, else parked. */
    void startWait(Client c) {
        if (waits.start(c)) {
            replies.touched(c);
            dispatcher.resume(c);
        }
    }

    /** Answers the parked {@code WAIT}s whose replicas acknowledged or whose time is up, and resumes them. */
    void answerWaits() {
        List<Client> done = waits.answer(role.following());
        for (Client c : done) {
            c.unblock = null;
            replies.touched(c);
            dispatcher.resume(c);
        }
    }

    /**
     * Answers the parked clients of blocking commands whose timeout passed with Redis' timeout reply (a nil array),
     * or all of them with {@code -UNBLOCKED} once this node follows a primary; nothing is journaled for it.
     */
    void answerBlocked() {
        boolean following = role.following();
        for (Blocked.Block b : blocked.expired(following)) {
            if (following) {
                b.client.front.reply().error(Blocked.UNBLOCKED);
            } else if (b.client.unblock == Client.Unblock.ERROR) {
                b.client.front.reply().error(Blocked.UNBLOCKED_BY_CLIENT);
            } else {
                b.client.front.reply().nullArray();
            }
            b.client.unblock = null;
            replies.touched(b.client);
            dispatcher.resume(b.client);
        }
    }

    /** The clients {@code CLIENT PAUSE} held go on once it ended, in the order they were held. */
    void answerPaused() {
        for (Client c : pause.released()) {
            dispatcher.resume(c);
        }
    }

    /**
     * A blocking command was applied: served (or answered with an error), its client is unblocked and resumes; when
     * it found nothing (its reply taken back by the caller), the client parks, or is journaled again at once when a
     * write touched its keys while it was in flight.
     */
    void blockingApplied(Client c, boolean foundNothing) {
        if (foundNothing) {
            if (!blocked.park(c)) {
                dispatcher.retry(c, blocked.command(c));
            }
            return;
        }
        blocked.done(c);
        dispatcher.resume(c);
    }

    /** @return true while {@code c}'s blocking command is in flight or parked */
    boolean blocks(Client c) {
        return blocked.has(c);
    }

    /** A blocking command of {@code c} was answered with an error at its turn: it blocks no more. */
    void blockingRefused(Client c) {
        if (blocked.has(c)) {
            blocked.done(c);
            dispatcher.resume(c);
        }
    }

    /**
     * A command that finishes on another thread ran ({@link tandem.api.node.NodeClient#run} returned its work): the
     * work goes to the admin thread, whose answer comes back to the logic thread as the reply; the client stays
     * parked until then. Without work it was answered at once (an argument error).
     */
    void finishLater(Client c, Supplier<String> work) {
        if (work == null) {
            dispatcher.resume(c);
            return;
        }
        admin.execute(() -> {
            String line;
            try {
                line = work.get();
            } catch (RuntimeException e) {
                line = "-ERR " + e.getMessage();
            }
            String answer = line;
            inbox.post(() -> {
                if (c.parked) {
                    Drain.replyLine(c, answer);
                    replies.touched(c);
                    dispatcher.resume(c);
                }
            });
        });
    }

    /** @return the clients parked in {@code WAIT} or in a blocking command now; any thread */
    /**
     * {@code CLIENT UNBLOCK}: the client {@code id}, if parked in {@code WAIT} or a blocking command (not while its
     * command is in flight), is answered at the logic thread's next pass, as its timeout would answer it or with
     * Redis' {@code -UNBLOCKED} error. On the logic thread.
     *
     * @return whether such a client was parked
     */
    boolean unblock(long id, boolean error) {
        Client c = waits.parked(id);
        if (c == null) {
            c = blocked.parked(id);
        }
        if (c == null || c.unblock != null) {
            return false;
        }
        c.unblock = error ? Client.Unblock.ERROR : Client.Unblock.TIMEOUT;
        return true;
    }

    int parked() {
        return waits.blocked() + blocked.parked() + pause.held();
    }

    /** @return how long the logic thread may sleep, at most {@code maxNanos}: until the nearest deadline */
    long pollNanos(long maxNanos) {
        return pause.pollNanos(blocked.pollNanos(waits.pollNanos(maxNanos)));
    }

    void close() {
        admin.shutdownNow();
    }
}
