package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;

import tandem.api.journal.Journal;
import tandem.api.journal.JournalStoppedException;
import tandem.api.store.Command;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;

/**
 * Runs scripts as Redis 7 replicates them: by their effects. A script ({@code EVAL} and its kin, or a transaction
 * holding one) runs on the node that decides writes, at its turn: once everything sequenced before it is applied,
 * it runs on the logic thread against that state, with "now" = a new entry timestamp, and what it wrote is journaled
 * as one entry (one command, or {@code MULTI … EXEC} of them). Replicas of both protocols and a replay apply those
 * writes and never run a script, so a script that reads {@code TIME}, draws random numbers or iterates a set leaves
 * the same state everywhere. A script that wrote nothing journals nothing.
 *
 * <p>The price is a barrier: writes sequenced before a script must be durable and applied before it runs (it waits
 * for their {@code fdatasync}); scripts that follow one another run back to back. The logic thread's alone.
 */
final class Scripting {

    private static final Logger LOG = System.getLogger("tandem.node");
    static final String UNSETTLED = "TRYAGAIN the writes before this script could not be applied yet "
            + "(a journal or store is being replaced); try again";

    private final Services services;
    private final Turns turns;
    private final Sequencer sequencer;
    private final Replies replies;
    private final EntryClock clock;
    private final RoleState role;
    private final Applier applier;
    private final ResponseGate gate;
    /** Set once the node core has built it (it is built after the dispatcher, which needs this). */
    private Drain drain;

    Scripting(Services services, Turns turns, Sequencer sequencer, Replies replies, EntryClock clock, RoleState role,
            Applier applier, ResponseGate gate) {
        this.services = services;
        this.turns = turns;
        this.sequencer = sequencer;
        this.replies = replies;
        this.clock = clock;
        this.role = role;
        this.applier = applier;
        this.gate = gate;
    }

    void drain(Drain d) {
        drain = d;
    }

    /** @return whether {@code command} is a script the keyspace runs through its capture */
    boolean isScript(Command command) {
        Keyspace k = services.keyspace();
        return k != null && command.isKeyspace() && k.isScript(command);
    }

    /** @return whether {@code commands} (a transaction's) hold a script */
    boolean holdsScript(List<Command> commands) {
        for (Command c : commands) {
            if (isScript(c)) {
                return true;
            }
        }
        return false;
    }

    /** Runs a client's script (outside MULTI), arity checked. */
    void run(Client c, Command script) {
        run(c, List.of(script), false);
    }

    /** Runs a committed transaction that holds a script: its commands in order, as one entry of effects. */
    void transaction(Client c, List<Command> commands) {
        run(c, commands, true);
    }

    private void run(Client c, List<Command> commands, boolean transaction) {
        if (!settle()) {
            turns.add(Pending.immediate(c, null, "-" + UNSETTLED));
            return;
        }
        Keyspace keyspace = services.keyspace();
        if (keyspace == null || services.journal() == null || services.unavailable() != null) {
            String why = services.unavailable() != null ? services.unavailable()
                    : "ERR the " + (keyspace == null ? "store (tandem.store)" : "journal (tandem.journal)")
                            + " is not active";
            turns.add(Pending.immediate(c, null, "-" + why));
            return;
        }
        String refusal = sequencer.writeRefusal(); // READONLY on a replica: its scripts may read
        long ts = clock.next();
        replies.markHeld(c);
        int mark = c.front.replyMark();
        Reply reply = c.front.reply();
        List<Keyspace.Effect> effects;
        List<byte[][]> published = new java.util.ArrayList<>(0);
        Keyspace.Publisher publisher = (channel, message, shard) -> {
            published.add(new byte[][] {(shard ? "spublish" : "publish").getBytes(
                    java.nio.charset.StandardCharsets.US_ASCII), channel, message});
            tandem.api.server.PubSub to = applier.events().to();
            return to == null ? 0 : to.publish(channel, message, shard);
        };
        try {
            effects = keyspace.capture(ts, refusal, publisher, capture -> {
                if (!transaction) {
                    capture.run(commands.get(0), reply);
                    return;
                }
                reply.array(commands.size());
                for (Command command : commands) {
                    if (command.isFrontend()) {
                        if (!Waits.answerInTransaction(c, command, c.lastWriteSequence, role.following(), gate)) {
                            c.front.run(command); // queueable: it answers at once
                        }
                    } else {
                        capture.run(command, reply);
                    }
                }
            });
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "a script failed unexpectedly; what it wrote is taken back and nothing of it is "
                    + "journaled", e);
            c.front.resetReply(mark);
            reply.error("ERR internal error while running the script: " + e);
            replies.touched(c);
            return;
        }
        // what the script read may hold an earlier script's writes that are not durable yet
        long answerAfter = keyspace.appliedSequence();
        if (!effects.isEmpty()) {
            try {
                long sequence = sequencer.effects(ts, effects);
                keyspace.advance(sequence);
                role.tookClientWrite();
                replies.appended(sequence);
                c.lastWriteSequence = sequence;
                answerAfter = sequence;
                for (Keyspace.Effect e : effects) {
                    Command written = keyspace.resolve(e.args());
                    if (written != null) {
                        sequencer.touch(written.db(e.db()));
                    }
                }
            } catch (JournalStoppedException e) {
                // applied in memory, never journaled: nothing may be applied or committed after it
                applier.logicThreadFailed(e);
                c.front.resetReply(mark);
                reply.error(Sequencer.journalStopped(e));
                replies.touched(c);
                return;
            }
        }
        for (byte[][] message : published) {
            sequencer.publish(message); // delivered here already: now the replicas' subscribers' turn
        }
        if (effects.isEmpty()) {
            replies.gatedRead(c, answerAfter);
        } else {
            replies.gated(c, answerAfter);
        }
        replies.touched(c);
    }

    /**
     * Runs what was sequenced before the script, waiting for its {@code fdatasync}, until nothing is pending.
     *
     * @return false when something pending waits for a service being replaced
     */
    private boolean settle() {
        for (int stalled = 0; stalled < 3; ) {
            drain.run();
            Pending head = turns.peek();
            if (head == null) {
                return true;
            }
            Journal journal = services.journal();
            if (head.sequence() > 0 && journal != null && !applier.stopped()
                    && journal.durableSequence() < head.sequence()) {
                try {
                    journal.awaitDurable(head.sequence());
                } catch (JournalStoppedException e) {
                    stalled++; // the drain refuses what is pending
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                continue;
            }
            stalled++;
        }
        return turns.peek() == null;
    }
}
