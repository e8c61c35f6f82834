package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import tandem.api.journal.EntryTag;
import tandem.api.journal.Journal;
import tandem.api.node.Frontend;
import tandem.api.server.PubSub;
import tandem.api.store.Command;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;
import tandem.protocol.command.CommandPayload;

/**
 * Applies journal entries to the keyspace, and fail-stops when one cannot be applied.
 *
 * <p>Apply is total: a command is checked before it gets a sequence, so an exception while applying a journaled entry
 * is a bug, or the store refusing a write. A journaled entry must apply on every node, so this node then stops
 * applying rather than skip it or answer as if it had succeeded: nothing after the entry is applied, no write is
 * sequenced, reads go on, and every client write waiting is answered with the stop's error. A keyspace bound again
 * (the store updated or restarted), or the restarted node, retries the entry.
 */
final class Applier {

    private static final Logger LOG = System.getLogger("tandem.node");

    /** Why applying stopped: the entry, its command, and what went wrong. */
    record ApplyFailure(long sequence, String command, String cause) {

        /** What a write is answered that is refused, before it is sequenced, while applying is stopped. */
        String error() {
            return "MISCONF writes are stopped: applying journal entry " + sequence + " (" + command + ") failed: "
                    + cause + "; reads go on, see INFO persistence";
        }

        /**
         * What a write is answered that was journaled (as {@code journaled}) before applying stopped, the failed
         * one included: it is not applied now, but it is in the journal, which replicas hold too, so it applies
         * once applying resumes.
         */
        String error(long journaled) {
            return "MISCONF writes are stopped: applying journal entry " + sequence + " (" + command + ") failed: "
                    + cause + "; this write is journaled as entry " + journaled + " and applies when applying "
                    + "resumes; reads go on, see INFO persistence";
        }

        @Override
        public String toString() {
            return "applying journal entry " + sequence + " (" + command + ") failed: " + cause;
        }
    }

    private final Services services;
    private final Accounting accounting;
    /**
     * Why this node stopped applying journal entries, or null. Cleared when a keyspace is bound again, whose replay
     * then retries the entry.
     */
    private volatile ApplyFailure failure;
    /**
     * The front end's subscribers (null while it is away): where a replica delivers what its primary's clients
     * published, and where every node's keyspace notifications go.
     */
    private final EventRelay relay = new EventRelay();

    /** Answers a WAIT inside a transaction that writes; set once by the node core. */
    private ResponseGate gate;

    void gate(ResponseGate responseGate) {
        gate = responseGate;
    }

    Applier(Services services, Accounting accounting) {
        this.services = services;
        this.accounting = accounting;
    }

    /** @return why applying stopped, or null */
    ApplyFailure failure() {
        return failure;
    }

    boolean stopped() {
        return failure != null;
    }

    /** A store is bound again: its replay retries the entry that failed. Called with the logic thread held off. */
    void retry() {
        if (failure != null) {
            LOG.log(Level.INFO, "a store is bound again: its replay retries the entry that failed ({0})", failure);
            failure = null;
        }
    }

    /**
     * The logic thread failed unexpectedly outside any apply: whatever was pending may be half done, so applying
     * stops (nothing later is applied before a store is bound again, whose replay resumes at the store's applied
     * sequence).
     */
    void logicThreadFailed(Throwable e) {
        if (failure == null) {
            Keyspace k = services.keyspace();
            failure = new ApplyFailure(k == null ? 0 : k.appliedSequence() + 1, "logic thread", String.valueOf(e));
        }
    }

    synchronized void subscribers(PubSub next) {
        relay.to(next);
    }

    synchronized void subscribersGone(PubSub gone) {
        if (relay.to() == gone) {
            relay.to(null);
        }
    }

    /** Where a keyspace reports its notifications. */
    EventRelay events() {
        return relay;
    }

    /**
     * Applies a journal entry that no client waits for (a replay, a replica); its replies go to {@code reply}.
     *
     * @param live true when the entry just arrived from the primary: a Publish is delivered to this node's
     *             subscribers; never when the journal is replayed (after a restart, into a new store)
     */
    void entry(long sequence, long timestampNs, byte tag, byte[] payload, Reply reply, boolean live) {
        if (failure != null) {
            return;
        }
        Frontend f = accounting.busy(payload);
        boolean muted = relay.mute(!live); // a replayed entry raised its events when it was new
        try {
            Keyspace k = services.keyspace();
            switch (tag) {
                case EntryTag.APP -> guarded(sequence, () -> commandName(payload), () -> {
                    List<CommandPayload.Decoded> decoded = CommandPayload.decodeInDatabases(payload);
                    if (CommandPayload.isTransaction(payload)) {
                        k.applyTransaction(sequence, timestampNs, resolve(k, decoded), reply);
                    } else {
                        k.apply(sequence, timestampNs, resolve(k, decoded.get(0)), reply);
                    }
                });
                case EntryTag.TICK -> tick(sequence, timestampNs);
                case EntryTag.EPOCH_BUMP -> guarded(sequence, () -> "EPOCH_BUMP",
                        () -> k.epochBump(sequence, epoch(payload)));
                case EntryTag.PUBLISH -> {
                    if (guarded(sequence, () -> "PUBLISH", () -> k.advance(sequence)) && live) {
                        deliver(sequence, payload);
                    }
                }
                default -> skipped(sequence, "entry tag " + tag);
            }
        } finally {
            relay.mute(muted);
            Accounting.idle(f);
        }
    }

    /** An entry with no effect on the keyspace (a discarded fragment group) still advances its applied sequence. */
    void skipped(long sequence, String what) {
        if (failure == null) {
            guarded(sequence, () -> what, () -> services.keyspace().advance(sequence));
        }
    }

    /**
     * Delivers a Publish entry's message. Best effort, as Redis' is: no subscriber, a front end away or an entry
     * that is no PUBLISH (the journal checked its shape) costs the message, never the apply.
     */
    private void deliver(long sequence, byte[] payload) {
        PubSub to = relay.to();
        if (to == null) {
            return;
        }
        try {
            byte[][] args = CommandPayload.decode(payload).get(0);
            boolean shard = new String(args[0], StandardCharsets.US_ASCII).equalsIgnoreCase("spublish");
            to.publish(args[1], args[2], shard);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "journal entry " + sequence + ": its PUBLISH was not delivered", e);
        }
    }

    void tick(long sequence, long timestampNs) {
        if (failure == null) {
            guarded(sequence, () -> "TICK", () -> services.keyspace().tick(sequence, timestampNs));
        }
    }

    void epochBump(long sequence, long epoch) {
        if (failure == null) {
            guarded(sequence, () -> "EPOCH_BUMP", () -> services.keyspace().epochBump(sequence, epoch));
        }
    }

    /**
     * Applies a client's journaled write (a command, or a transaction's commands). When applying is stopped, or stops
     * now, the client gets the stop error and whatever the failed apply had begun to reply is taken back: nothing is
     * answered as if it had succeeded.
     *
     * @param reply where the command replies (a transaction replies to its client)
     * @return true when applied
     */
    boolean write(Pending p, Reply reply) {
        Client c = p.client();
        int mark = c.front.replyMark();
        if (failure == null) {
            // not through guarded(...): the hottest apply allocates no lambda
            long writer = relay.writer(c.front.id()); // NOLOOP: a tracking client is not told of its own writes
            try {
                Keyspace k = services.keyspace();
                if (p.command() != null) {
                    k.apply(p.sequence(), p.timestampNs(), p.command(), reply);
                } else if (TransactionReplies.allKeyspace(p.commands())) {
                    k.applyTransaction(p.sequence(), p.timestampNs(), p.commands(), c.front.reply());
                } else {
                    TransactionReplies replies = new TransactionReplies(c.front.reply().protocol());
                    k.applyTransaction(p.sequence(), p.timestampNs(), TransactionReplies.keyspace(p.commands()),
                            replies);
                    // a WAIT among them counts the replicas that hold what came before this transaction
                    replies.writeTo(c.front, p.commands(), command -> gate != null && Waits.answerInTransaction(c,
                            command, p.sequence() - 1, services.role().following(), gate));
                }
                return true;
            } catch (RuntimeException | Error e) {
                failed(p.sequence(), p.command() != null ? p.command().toString().toUpperCase(Locale.ROOT)
                        : "MULTI … EXEC", e);
            } finally {
                relay.writer(writer);
            }
        }
        c.front.resetReply(mark);
        c.front.reply().error(failure.error(p.sequence()));
        return false;
    }

    /**
     * Writes the round's applies to the store at once, before any of their replies leaves. When the store cannot
     * write them, applying stops at the entry after them: they stay applied in memory (their replies stand, and
     * they are journaled), and the store bound again, or the restarted node, replays them from the journal.
     */
    void commitRound() {
        Keyspace k = services.keyspace();
        Journal j = services.journal();
        if (k == null || j == null || failure != null) {
            return;
        }
        if (j.durableSequence() < k.appliedSequence()) {
            // under ram, entries a replica holds are applied before this journal's fsync: the store writes nothing
            // that this journal may still lose (a crash would leave the store ahead of its journal); a later round
            // writes them once they are durable
            return;
        }
        guarded(k.appliedSequence() + 1, () -> "not begun: the store could not write the entries applied before it",
                k::commit);
    }

    /**
     * Applies one journal entry. An exception here is a bug (or the store refusing a write): a journaled entry must
     * apply on every node, so this node fail-stops rather than skip it or answer as if it had succeeded.
     *
     * @return false when it failed (applying is stopped now)
     */
    private boolean guarded(long sequence, Supplier<String> command, Runnable apply) {
        try {
            apply.run();
            return true;
        } catch (RuntimeException | Error e) {
            failed(sequence, command.get(), e);
            return false;
        }
    }

    private void failed(long sequence, String command, Throwable e) {
        ApplyFailure f = new ApplyFailure(sequence, command, String.valueOf(e));
        failure = f;
        LOG.log(Level.ERROR, "fail-stop: " + f + ". Nothing after it is applied and writes are refused until "
                + "the store is bound again (update or restart tandem.store) or the node restarts, which "
                + "retry the entry; reads go on. See docs/operator-guide.md, 'When applying stops'.", e);
    }

    private static Command resolve(Keyspace k, CommandPayload.Decoded command) {
        byte[][] args = command.args();
        Command c = k.resolve(args);
        if (c == null) {
            throw new IllegalArgumentException("unknown keyspace command '"
                    + new String(args[0], StandardCharsets.ISO_8859_1) + "'");
        }
        return c.db(command.db());
    }

    private static List<Command> resolve(Keyspace k, List<CommandPayload.Decoded> commands) {
        List<Command> resolved = new ArrayList<>(commands.size());
        for (CommandPayload.Decoded c : commands) {
            resolved.add(resolve(k, c)); // all known before anything runs
        }
        return resolved;
    }

    /** The epoch an EpochBump's payload holds (u64 little-endian). */
    static long epoch(byte[] payload) {
        if (payload.length != 8) {
            throw new IllegalArgumentException("an EpochBump payload has 8 bytes, this one " + payload.length);
        }
        return ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** The command an App entry holds, as the log and the stop error name it. */
    private static String commandName(byte[] payload) {
        try {
            if (CommandPayload.isTransaction(payload)) {
                return "MULTI … EXEC";
            }
            return new String(CommandPayload.decodeInDatabases(payload).get(0).args()[0],
                    StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
        } catch (RuntimeException undecodable) {
            return "an undecodable command";
        }
    }
}
