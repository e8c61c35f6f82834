package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * The logic thread: every request of every connection passes, in arrival order, through it. A round takes every
 * request queued so far and sequences it (a write is appended to the journal at once, so the journal thread can start
 * its {@code fdatasync} while this thread goes on); then runs the pending requests in order, as durability allows;
 * then sends each touched connection its replies in one write. It holds the services for the round, so that an
 * unbinding never pulls one out from under a running apply.
 */
final class LogicThread {

    private static final Logger LOG = System.getLogger("tandem.node");
    /** Events taken per round at the most: a round's replies leave at its end. */
    private static final int MAX_ROUND = 4096;

    private final Inbox inbox;
    private final Services services;
    private final Replay replay;
    private final Sequencer sequencer;
    private final Dispatcher dispatcher;
    private final Drain drain;
    private final Applier applier;
    private final Parking parking;
    private final Housekeeping housekeeping;
    private final Replies replies;
    private final Accounting accounting;
    private final RoleState role;
    private final Thread thread;
    private volatile boolean running = true;

    LogicThread(Inbox inbox, Services services, Replay replay, Sequencer sequencer, Dispatcher dispatcher,
            Drain drain, Applier applier, Parking parking, Housekeeping housekeeping, Replies replies,
            Accounting accounting, RoleState role) {
        this.inbox = inbox;
        this.services = services;
        this.replay = replay;
        this.sequencer = sequencer;
        this.dispatcher = dispatcher;
        this.drain = drain;
        this.applier = applier;
        this.parking = parking;
        this.housekeeping = housekeeping;
        this.replies = replies;
        this.accounting = accounting;
        this.role = role;
        this.thread = new Thread(this::run, "tandem-logic");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        while (running) {
            try {
                Inbox.Event first = inbox.poll(parking.pollNanos(Housekeeping.TICK_INTERVAL_NS));
                services.lockInterruptibly();
                try {
                    round(first);
                } finally {
                    services.unlock();
                }
                replies.endRound(accounting.frontend());
            } catch (InterruptedException e) {
                if (!running) {
                    drain.failAll("ERR the server is shutting down");
                    return;
                }
            } catch (RuntimeException | Error e) {
                // Every request and every apply has its own guard; this is the last one. Whatever was pending may
                // be half done, so writes stop and every pending request is answered.
                LOG.log(Level.ERROR, "logic thread: unexpected failure; writes stop, pending requests are answered "
                        + "with an error", e);
                applier.logicThreadFailed(e);
                drain.failAll(applier.failure().error());
            }
        }
    }

    private void round(Inbox.Event first) throws InterruptedException {
        services.newRound();
        sequencer.newRound();
        replay.prepare();
        int n = 0;
        for (Inbox.Event e = first; e != null; e = n < MAX_ROUND ? inbox.poll() : null) {
            accept(e);
            n++;
        }
        housekeeping.tick();
        if (role.following() && replay.follow()) {
            dispatcher.replicated(); // an XREAD BLOCK parked on this replica reads again after what arrived
        }
        drain.run();
        applier.commitRound();
        parking.answerWaits();
        parking.answerBlocked();
        parking.answerPaused();
        housekeeping.purge();
        // a script's reply may wait for its effects' fdatasync (they applied before it): woken when it is durable
        services.awaitingReplies(replies.gate(services.journal(), role::following));
        replies.measureAcks(services.journal(), role.following());
        services.idleWhileMissing();
    }

    private void accept(Inbox.Event e) {
        if (Inbox.isWake(e)) {
            return; // the drain looks at what changed
        }
        if (e.message() instanceof Inbox.Control control) {
            control.run();
            return;
        }
        if (e.message() instanceof java.util.List<?> batch) {
            for (Object message : batch) {
                dispatcher.accept(e.client(), message);
            }
        } else {
            dispatcher.accept(e.client(), e.message());
        }
    }

    void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
