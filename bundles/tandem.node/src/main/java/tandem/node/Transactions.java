package tandem.node;

import java.util.ArrayList;
import java.util.List;

import tandem.api.store.Command;

/**
 * {@code MULTI}, {@code EXEC}, {@code DISCARD}, {@code WATCH} and {@code UNWATCH}, resolved by the sequencer.
 *
 * <p>Commands queued since {@code MULTI} are checked as they arrive (a refused one makes {@code EXEC} abort, as in
 * Redis). A transaction whose watched keys received a sequenced write after its {@code WATCH} — even one that turns
 * out to change nothing, a documented, safe over-abort — is answered nil and never journaled; a committed one is
 * journaled as one unconditional entry, and a transaction of reads only runs at its turn without being journaled.
 * The front end's commands queue too, checked by the front end ({@link tandem.api.node.NodeClient#queueable}); at
 * {@code EXEC} they run in their places among the reads, and after a journaled transaction's writes have applied (the
 * entry holds the keyspace's commands only), their replies in their places. The logic thread's alone.
 */
record Transactions(Services services, Replay replay, Sequencer sequencer, Turns turns, WatchRegistry watches,
        Scripting scripting) {

    static final String EXECABORT = "EXECABORT Transaction discarded because of previous errors.";

    /** @return true while {@code c} is inside MULTI: what it sends is queued */
    static boolean open(Client c) {
        return c.transaction != null;
    }

    void multi(Client c, Command command) {
        if (command.args().length != 1) {
            immediate(c, command, "ERR wrong number of arguments for 'multi' command");
        } else if (c.transaction != null) {
            immediate(c, command, "ERR MULTI calls can not be nested");
        } else {
            c.transaction = new ArrayList<>();
            c.transactionFailed = false;
            c.queuedDb = c.db;
            turns.add(Pending.immediate(c, command, "+OK"));
        }
    }

    /** A command sent inside MULTI: queued, or refused (and then EXEC aborts). */
    void queue(Client c, Command command) {
        if (command.isFrontend()) {
            String refused = c.front.queueable(command);
            if (refused != null) {
                c.transactionFailed = true;
                immediate(c, command, refused);
            } else {
                int selected = Client.selected(command);
                if (selected >= 0) {
                    c.queuedDb = selected; // the commands queued after it work there, as they will at EXEC
                }
                c.transaction.add(command);
                turns.add(Pending.immediate(c, command, "+QUEUED"));
            }
            return;
        }
        services.await();
        replay.prepare();
        if (services.unavailable() == null) {
            command = Services.resolveAgain(services.keyspace(), command);
        }
        boolean known = command.isKeyspace() && services.keyspace() != null && services.unavailable() == null;
        if (!known) {
            c.transactionFailed = true;
            turns.add(Pending.of(c, Pending.Kind.CONNECTION, command)); // unknown command error
            return;
        }
        if (!command.arityHolds()) {
            c.transactionFailed = true;
            immediate(c, command, "ERR wrong number of arguments for '" + command.name() + "' command");
            return;
        }
        String refused = command.isWrite() ? sequencer.writeRefusal() : null;
        if (refused != null) {
            c.transactionFailed = true;
            immediate(c, command, refused);
            return;
        }
        command.db(c.queuedDb);
        c.transaction.add(command);
        turns.add(Pending.immediate(c, command, "+QUEUED"));
    }

    void exec(Client c, Command command) {
        if (command.args().length != 1) {
            immediate(c, command, "ERR wrong number of arguments for 'exec' command");
            return;
        }
        if (c.transaction == null) {
            immediate(c, command, "ERR EXEC without MULTI");
            return;
        }
        List<Command> commands = c.transaction;
        boolean failed = c.transactionFailed;
        boolean touchedSinceWatch = c.watchTouched;
        c.transaction = null;
        watches.unwatchAll(c);
        if (failed) {
            immediate(c, command, EXECABORT);
            return;
        }
        if (touchedSinceWatch) {
            turns.add(Pending.immediate(c, command, "*-1"));
            return;
        }
        services.await();
        replay.prepare();
        if (services.unavailable() != null) {
            immediate(c, command, services.unavailable());
            return;
        }
        if (scripting.holdsScript(commands)) {
            // runs now, after what came before it, and journals what it wrote, as a script alone does
            scripting.transaction(c, commands);
            c.db = c.queuedDb; // its SELECTs ran
            return;
        }
        boolean writes = false;
        for (Command queued : commands) {
            writes |= queued.isWrite();
        }
        if (!writes) {
            turns.add(Pending.transaction(c, 0, 0, commands));
            c.db = c.queuedDb; // its SELECTs ran
            return;
        }
        String refused = sequencer.writeRefusal();
        if (refused == Sequencer.READONLY) {
            refused = EXECABORT; // Redis discards a replica's transaction of writes at EXEC
        }
        if (refused == null) {
            refused = sequencer.transaction(c, commands);
        }
        if (refused != null) {
            immediate(c, command, refused);
        } else {
            c.db = c.queuedDb; // its SELECTs ran
        }
    }

    /** {@code RESET}, inside MULTI or not: the transaction and the watched keys go, as in Redis; then the front end's. */
    void reset(Client c, Command command) {
        c.transaction = null;
        c.db = 0;
        watches.unwatchAll(c);
        turns.add(Pending.of(c, Pending.Kind.CONNECTION, command));
    }

    void discard(Client c, Command command) {
        if (command.args().length != 1) {
            immediate(c, command, "ERR wrong number of arguments for 'discard' command");
        } else if (c.transaction == null) {
            immediate(c, command, "ERR DISCARD without MULTI");
        } else {
            c.transaction = null;
            watches.unwatchAll(c);
            turns.add(Pending.immediate(c, command, "+OK"));
        }
    }

    void watch(Client c, Command command) {
        byte[][] args = command.args();
        if (args.length < 2) {
            immediate(c, command, "ERR wrong number of arguments for 'watch' command");
        } else if (c.transaction != null) {
            // answered, not queued, and the transaction goes on (Redis runs WATCH at once even inside MULTI)
            immediate(c, command, "ERR WATCH inside MULTI is not allowed");
        } else {
            for (int i = 1; i < args.length; i++) {
                watches.watch(c, c.db, args[i]);
            }
            turns.add(Pending.immediate(c, command, "+OK"));
        }
    }

    void unwatch(Client c, Command command) {
        if (command.args().length != 1) {
            immediate(c, command, "ERR wrong number of arguments for 'unwatch' command");
        } else {
            watches.unwatchAll(c);
            turns.add(Pending.immediate(c, command, "+OK"));
        }
    }

    /** {@code c} went away. */
    void closed(Client c) {
        watches.unwatchAll(c);
        c.transaction = null;
    }

    /** A request was refused while {@code c} is inside MULTI: EXEC aborts. */
    static void refusedInside(Client c) {
        if (c.transaction != null) {
            c.transactionFailed = true;
        }
    }

    private void immediate(Client c, Command command, String error) {
        turns.add(Pending.immediate(c, command, "-" + error));
    }
}
