package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import tandem.api.store.Command;

/**
 * Takes each client message at its arrival and gives it its turn: the node's own commands (transactions,
 * {@code WAIT}, {@code QUIT}, {@code REPLICAOF}), the front end's commands, keyspace reads, and keyspace writes, which
 * the sequencer admits and journals. A client parked in {@code WAIT}, in a blocking command or in a command that
 * finishes on another thread sends nothing else until it is answered: what it sends meanwhile waits, in order, and
 * is dispatched when it resumes. The logic thread's alone.
 */
record Dispatcher(Services services, Replay replay, Sequencer sequencer, Transactions transactions, Turns turns,
        Replies replies, Waits waits, Blocked blocked, RoleState role, Pause pause, Scripting scripting) {

    private static final Logger LOG = System.getLogger("tandem.node");

    /**
     * Dispatches one client message with a guard: one that fails unexpectedly here is answered with an error; then
     * journals again the blocked clients its write woke.
     */
    void accept(Client c, Object message) {
        try {
            dispatch(c, message);
            wakeBlocked();
        } catch (RuntimeException | Error t) {
            LOG.log(Level.ERROR, "a request failed unexpectedly before it was sequenced; it is answered with an error",
                    t);
            if (message != Inbox.CLOSED) {
                turns.add(Pending.immediate(c, null, "-ERR internal error: " + t));
            }
        }
    }

    /** {@code c} was answered while parked (its {@code WAIT}, blocking command, or work elsewhere), or its pause
     * ended: what it sent meanwhile is dispatched now, in order. */
    void resume(Client c) {
        c.waiting = null;
        c.parked = false;
        while (!c.deferred.isEmpty() && c.waiting == null && !c.parked && !c.paused) {
            dispatch(c, c.deferred.poll());
            wakeBlocked();
        }
    }

    private void dispatch(Client c, Object message) {
        if (message == Inbox.CLOSED) {
            closed(c);
            return;
        }
        if (c.waiting != null || c.parked || c.paused) {
            c.deferred.add(message); // a client in WAIT sends nothing else until it is answered
            return;
        }
        if (c.ending) {
            return; // after QUIT or a protocol error nothing is executed, and nothing is journaled
        }
        if (message instanceof Client.Failure failure) {
            c.ending = true;
            turns.add(Pending.error(c, failure.error()));
            return;
        }
        if (message instanceof Client.Refusal refusal) {
            Transactions.refusedInside(c);
            immediate(c, refusal.command(), refusal.error());
            return;
        }
        Command command = (Command) message;
        if (!c.ending && pause.holds(c, command)) {
            c.deferred.add(command); // CLIENT PAUSE: it runs when the pause ends, and what follows it after it
            return;
        }
        String node = command.isFrontend() ? command.name() : "";
        switch (node) {
            case "multi" -> transactions.multi(c, command);
            case "exec" -> transactions.exec(c, command);
            case "discard" -> transactions.discard(c, command);
            case "watch" -> transactions.watch(c, command);
            case "unwatch" -> transactions.unwatch(c, command);
            case "reset" -> transactions.reset(c, command);
            case "quit" -> {
                c.ending = true;
                turns.add(Pending.of(c, Pending.Kind.CONNECTION, command));
            }
            case "wait" -> {
                if (Transactions.open(c)) {
                    transactions.queue(c, command);
                } else {
                    waitCommand(c, command);
                }
            }
            case "select" -> {
                if (Transactions.open(c)) {
                    transactions.queue(c, command);
                } else {
                    int selected = Client.selected(command);
                    if (selected >= 0) {
                        c.db = selected; // the commands after it are dispatched there; the front end answers it
                    }
                    turns.add(Pending.of(c, Pending.Kind.CONNECTION, command));
                }
            }
            case "replicaof", "slaveof", "migrate" -> {
                if (Transactions.open(c)) {
                    transactions.queue(c, command);
                } else {
                    // nothing after it runs before its answer: the role may change; the keys may move away.
                    // MIGRATE's work runs off this thread and calls back into the node for its reads and deletes
                    c.parked = true;
                    turns.add(Pending.of(c, Pending.Kind.CONNECTION, command));
                }
            }
            default -> {
                if (Transactions.open(c)) {
                    transactions.queue(c, command);
                } else {
                    single(c, command);
                }
            }
        }
    }

    private void single(Client c, Command command) {
        if (command.isFrontend()) {
            turns.add(Pending.of(c, Pending.Kind.CONNECTION, command));
            return;
        }
        services.await();
        replay.prepare();
        if (services.unavailable() != null) {
            immediate(c, command, services.unavailable());
            return;
        }
        command = Services.resolveAgain(services.keyspace(), command);
        if (!command.isKeyspace()) {
            turns.add(Pending.of(c, Pending.Kind.CONNECTION, command)); // unknown command error
            return;
        }
        command.db(c.db);
        if (!command.arityHolds()) {
            immediate(c, command, "ERR wrong number of arguments for '" + command.name() + "' command");
            return;
        }
        if (scripting.isScript(command)) {
            scripting.run(c, command); // runs now, after what came before it; journals what it wrote
            return;
        }
        if (!command.isWrite()) {
            tandem.api.store.BlockingWait wait = Blocked.isBlocking(command.descriptor())
                    ? services.keyspace().blockingWait(command) : null;
            if (wait != null) {
                // XREAD BLOCK: a read that may park, woken by the writes that name its keys, tried again as a read
                c.parked = true;
                blocked.block(c, command, wait, role.following());
            }
            turns.add(Pending.of(c, Pending.Kind.READ, command));
            return;
        }
        String refused = sequencer.writeRefusal();
        if (refused != null) {
            immediate(c, command, refused);
            return;
        }
        sequencer.write(c, command);
    }

    /**
     * {@code WAIT numreplicas timeout}: the number of replicas, of every protocol, that acknowledged this
     * connection's last write; answered at once when enough did, else once enough do or the timeout (ms; 0 =
     * forever) passes. Nothing else of the connection runs meanwhile.
     */
    private void waitCommand(Client c, Command command) {
        byte[][] args = command.args();
        if (role.following() && args.length == 3) {
            immediate(c, command, Waits.ON_REPLICA);
            return;
        }
        Object parsed = Waits.parse(args, c.lastWriteSequence);
        if (parsed instanceof String error) {
            immediate(c, command, error);
            return;
        }
        c.waiting = (Waits.Wait) parsed;
        turns.add(Pending.of(c, Pending.Kind.WAIT, command));
    }

    /** Replication applied entries on this replica: the parked reads (XREAD BLOCK) read again. */
    void replicated() {
        if (!blocked.isEmpty()) {
            sequencer.replicated();
            wakeBlocked();
        }
    }

    /** Journals again the blocked clients a write just woke; one that cannot be is answered and resumes. */
    private void wakeBlocked() {
        for (var woken = sequencer.takeWoken(); !woken.isEmpty(); woken = sequencer.takeWoken()) {
            for (Blocked.Block b : woken) {
                retry(b.client, b.command);
            }
        }
    }

    /**
     * Journals a blocking command again (woken, or touched while in flight); an error answers and unblocks it.
     */
    void retry(Client c, Command command) {
        if (!command.isWrite()) {
            if (services.keyspace() != null) {
                sequencer.readAgain(c, command);
                return;
            }
            blocked.done(c);
            c.front.reply().error(services.unavailable() != null ? services.unavailable()
                    : "ERR the store (tandem.store) is not active");
            replies.touched(c);
            resume(c);
            return;
        }
        String refused = sequencer.attemptAgain(c, command);
        if (refused != null) {
            c.front.reply().error(refused);
            replies.touched(c);
            resume(c);
        }
    }

    private void closed(Client c) {
        replies.closed(c);
        transactions.closed(c);
        waits.remove(c);
        blocked.remove(c);
        pause.remove(c);
        c.deferred.clear();
    }

    private void immediate(Client c, Command command, String error) {
        turns.add(Pending.immediate(c, command, "-" + error));
    }
}
