package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import tandem.api.journal.EntryTag;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStoppedException;
import tandem.api.server.WriteAdmission;
import tandem.api.store.BlockingWait;
import tandem.api.store.Command;
import tandem.api.store.Keyspace;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.journal.JournalEntry;

/**
 * Admission and sequencing: a write is admitted (applying not stopped, no fence, every write-admission provider
 * agrees) and checked (it may succeed whatever the keyspace holds) before it gets a sequence; then it is appended to
 * the journal at once, so that the journal thread can start its {@code fdatasync} while the logic thread goes on,
 * and waits for its turn ({@link Turns}). Nothing is refused after sequencing.
 *
 * <p>Sequencing a write marks the clients that {@code WATCH} its keys and wakes the clients blocked on them: their
 * commands are journaled again right after it, in the order they first blocked. The logic thread's alone.
 */
final class Sequencer {

    static final String READONLY = "READONLY You can't write against a read only replica.";

    private static final Logger LOG = System.getLogger("tandem.node");

    private final Services services;
    private final Applier applier;
    private final Admissions admissions;
    private final ResponseGate gate;
    private final RoleState role;
    private final EntryClock clock;
    private final Turns turns;
    private final Replies replies;
    private final WatchRegistry watches;
    private final Blocked blocked;
    /** Clients a write just woke, to be journaled again right after it. */
    private final List<Blocked.Block> woken = new ArrayList<>();
    /** Set once a write of this round waited for a required admission provider that is away. */
    private boolean admissionWaited;
    /** PUBLISH messages too large for one journal entry, which no replica received. */
    private long unpropagatedPublishes;
    private final byte[] tickPayload = new byte[8];

    private final WriteAdmission.Replicas replicaView = new WriteAdmission.Replicas() {
        @Override
        public int good(long maxLagNanos) {
            return gate.good(services.journal().durableSequence(), maxLagNanos);
        }

        @Override
        public int streaming() {
            return gate.streaming();
        }

        @Override
        public long sinceLastAckNanos() {
            return gate.sinceLastAckNanos();
        }

        @Override
        public Map<String, Long> ackAgesMillis() {
            return gate.ackAgesMillis();
        }
    };

    Sequencer(Services services, Applier applier, Admissions admissions, ResponseGate gate, RoleState role,
            EntryClock clock, Turns turns, Replies replies, WatchRegistry watches, Blocked blocked) {
        this.services = services;
        this.applier = applier;
        this.admissions = admissions;
        this.gate = gate;
        this.role = role;
        this.clock = clock;
        this.turns = turns;
        this.replies = replies;
        this.watches = watches;
        this.blocked = blocked;
    }

    /** A new round: a write may wait for a missing required admission provider again. */
    void newRound() {
        admissionWaited = false;
    }

    /**
     * @return why a write would be refused before it is sequenced (applying stopped, the restart fence, a required
     *         admission provider away, then every provider by ranking, {@code min-replicas-to-write} first), or null
     */
    String refusal() {
        Applier.ApplyFailure failure = applier.failure();
        if (failure != null) {
            return failure.error();
        }
        String fenced = role.fence();
        if (fenced != null) {
            return fenced;
        }
        String missing = admissions.missingRequired();
        if (missing != null && !admissionWaited) {
            admissionWaited = true; // once per round: the writes behind this one are refused at once meanwhile
            services.awaitWhile(() -> admissions.missingRequired() != null);
            missing = admissions.missingRequired();
        }
        if (missing != null) {
            return "CLUSTERDOWN the " + missing + " is not active: writes are refused until it is back";
        }
        return admissions.refusal(replicaView);
    }

    /**
     * @return why a write of a client is refused before it is sequenced on this node now (a replica's, then
     *         {@link #refusal()}), or null
     */
    String writeRefusal() {
        return role.following() ? READONLY : refusal();
    }

    /**
     * Sequences a client's keyspace write: admitted and checked by the caller; journaled here, or answered at its
     * turn when its check refuses it (never journaled).
     */
    void write(Client c, Command command) {
        long ts = clock.next();
        if (services.keyspace().check(command, ts) != null) {
            // fails whatever the keyspace holds: never journaled; answered at its turn, in the state then
            turns.add(Pending.of(c, Pending.Kind.REFUSED, command));
            return;
        }
        try {
            long seq = append(ts, command.keyHash(), command.db(), command.args());
            role.tookClientWrite();
            turns.add(Pending.write(c, seq, ts, command)); // journaled: it must be applied
            clientWrote(c, seq);
            touch(command);
            BlockingWait wait = Blocked.isBlocking(command.descriptor())
                    ? services.keyspace().blockingWait(command) : null;
            if (wait != null) { // an XREADGROUP without BLOCK is a blocking command that does not block
                c.parked = true; // nothing after it runs before it is answered: it may block
                blocked.block(c, command, wait);
            }
        } catch (JournalStoppedException e) {
            turns.add(Pending.immediate(c, command, "-" + journalStopped(e)));
        }
    }

    /**
     * Sequences a committed transaction as one entry (admitted by the caller).
     *
     * @return the error it is answered with instead, or null
     */
    String transaction(Client c, List<Command> commands) {
        long ts = clock.next();
        try {
            List<Command> journaled = keyspaceCommands(commands);
            int[] dbs = new int[journaled.size()];
            List<byte[][]> args = new ArrayList<>(journaled.size());
            for (int i = 0; i < dbs.length; i++) {
                dbs[i] = journaled.get(i).db();
                args.add(journaled.get(i).args());
            }
            byte[] entry = CommandPayload.encodeTransaction(args, dbs);
            long seq = services.journal().append(ts, 0, EntryTag.APP, entry,
                    FrplPayload.length(EntryTag.APP, ts, entry));
            role.tookClientWrite();
            turns.add(Pending.transaction(c, seq, ts, commands)); // journaled: it must be applied
            clientWrote(c, seq);
            for (Command command : commands) {
                if (command.isWrite()) {
                    touch(command);
                }
            }
            return null;
        } catch (JournalStoppedException e) {
            return journalStopped(e);
        }
    }

    /**
     * Journals what a script (or a transaction holding one) wrote as one entry: the command alone, or the commands
     * between MULTI and EXEC, at the script's timestamp. Admitted before the script ran.
     *
     * @return the entry's sequence
     */
    long effects(long ts, List<Keyspace.Effect> effects) {
        if (effects.size() == 1) {
            Keyspace.Effect e = effects.get(0);
            Command c = services.keyspace().resolve(e.args());
            return append(ts, c == null ? 0 : c.keyHash(), e.db(), e.args());
        }
        int[] dbs = new int[effects.size()];
        List<byte[][]> args = new ArrayList<>(effects.size());
        for (int i = 0; i < dbs.length; i++) {
            dbs[i] = effects.get(i).db();
            args.add(effects.get(i).args());
        }
        byte[] entry = CommandPayload.encodeTransaction(args, dbs);
        return services.journal().append(ts, 0, EntryTag.APP, entry, FrplPayload.length(EntryTag.APP, ts, entry));
    }

    /** @return whether {@code command} is a {@code PUBLISH} or {@code SPUBLISH} of the front end */
    static boolean isPublish(Command command) {
        return command != null && command.isFrontend()
                && (command.name().equals("publish") || command.name().equals("spublish"));
    }

    /**
     * Journals a {@code PUBLISH} (or {@code SPUBLISH}) the front end has just delivered to this node's subscribers,
     * for the replicas' (Redis propagates it to its replicas too). Its client has its answer already and waits for
     * nothing. Only a primary that may write propagates it; otherwise, and for a message too large for one entry,
     * this node's subscribers alone receive it, as a Redis replica's do.
     */
    void publish(Command command) {
        publish(command.args());
    }

    /** {@link #publish(Command)} of a message a script published. */
    void publish(byte[][] args) {
        if (args.length != 3 || role.following() || applier.stopped() || role.fence() != null
                || services.journal() == null || admissions.refusal(replicaView) != null) {
            return;
        }
        byte[] payload = CommandPayload.encode(args);
        if (payload.length > JournalEntry.MAX_PAYLOAD) {
            if (unpropagatedPublishes++ % 1000 == 0) {
                LOG.log(Level.WARNING, "a PUBLISH of {0} bytes reached this node''s subscribers only: a message for "
                        + "the replicas fits one journal entry ({1} bytes); {2} so far", payload.length,
                        JournalEntry.MAX_PAYLOAD, unpropagatedPublishes);
            }
            return;
        }
        long ts = clock.next();
        try {
            long seq = services.journal().append(ts, 0, EntryTag.PUBLISH, payload,
                    FrplPayload.appLength(args.length, payload.length, ts));
            turns.add(Pending.publish(seq, ts));
        } catch (JournalStoppedException e) {
            // the journal says why in its status and log; this node's subscribers have the message
        }
    }

    /** Journals the node's Tick at {@code ts}; false when the journal has stopped (expiry waits like every write). */
    long tick(long ts) {
        for (int i = 0; i < 8; i++) {
            tickPayload[i] = (byte) (ts >>> (8 * i));
        }
        try {
            long seq = services.journal().append(ts, 0, EntryTag.TICK, tickPayload,
                    FrplPayload.length(EntryTag.TICK, ts, tickPayload));
            turns.add(Pending.tick(seq, ts));
            return seq;
        } catch (JournalStoppedException e) {
            return 0; // the journal says why in its status and log
        }
    }

    /** Journals a promotion's EpochBump after everything the journal holds; returns its sequence. */
    long epochBump(long epoch) {
        Journal journal = services.journal();
        clock.notBefore(journal.lastTimestampNs());
        long ts = clock.next();
        byte[] payload = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(epoch).array();
        long seq;
        try {
            seq = journal.append(ts, 0, EntryTag.EPOCH_BUMP, payload, 0); // no FRPL frame
        } catch (JournalStoppedException e) {
            throw new IllegalStateException(journalStopped(e), e);
        }
        turns.add(Pending.epochBump(seq, ts, epoch));
        return seq;
    }

    /** Replication applied entries: every parked read is woken ({@link Blocked#replicated}). */
    void replicated() {
        blocked.replicated(woken);
    }

    /**
     * @return the blocked clients the writes sequenced since the last call woke, in the order they first blocked
     *         (empty when none): each is journaled again right after those writes ({@link #attemptAgain})
     */
    List<Blocked.Block> takeWoken() {
        if (woken.isEmpty()) {
            return List.of();
        }
        List<Blocked.Block> now = new ArrayList<>(woken);
        woken.clear();
        now.sort(Comparator.comparingLong(b -> b.ticket));
        return now;
    }

    /**
     * Journals a blocking command again (woken, or touched while in flight), under its woken name
     * ({@link Keyspace#WOKEN_SUFFIX}).
     *
     * @return null when journaled; otherwise the error that answers it (and it is blocked no more)
     */
    String attemptAgain(Client c, Command command) {
        Keyspace keyspace = services.keyspace();
        String refused = keyspace == null ? services.unavailable() != null ? services.unavailable()
                : "ERR the store (tandem.store) is not active" : writeRefusal();
        if (refused == null) {
            long ts = clock.next();
            byte[][] args = command.args().clone();
            args[0] = (command.descriptor().name() + Keyspace.WOKEN_SUFFIX).getBytes(StandardCharsets.US_ASCII);
            Command retry = keyspace.resolve(args).db(command.db());
            try {
                long seq = append(ts, retry.keyHash(), retry.db(), args);
                turns.add(Pending.write(c, seq, ts, retry));
                clientWrote(c, seq);
                touch(retry);
                blocked.attempting(c);
                return null;
            } catch (JournalStoppedException e) {
                refused = journalStopped(e);
            }
        }
        blocked.done(c);
        return refused;
    }

    /**
     * A blocking read (XREAD BLOCK) is tried again, under its woken name, as a read at its turn: after the writes
     * sequenced before it, which are what woke it. Nothing is journaled: a read writes nothing.
     */
    void readAgain(Client c, Command command) {
        byte[][] args = command.args().clone();
        args[0] = (command.descriptor().name() + Keyspace.WOKEN_SUFFIX).getBytes(StandardCharsets.US_ASCII);
        Command retry = services.keyspace().resolve(args).db(command.db());
        blocked.attempting(c);
        turns.add(Pending.of(c, Pending.Kind.READ, retry));
    }

    /**
     * Journals one command of database {@code db}; its psync offset length is told from its shape, the payload is
     * not read again (but behind a SELECT).
     */
    private long append(long ts, long keyHash, int db, byte[][] args) {
        byte[] payload = CommandPayload.encode(db, args);
        return services.journal().append(ts, keyHash, EntryTag.APP, payload, db == 0
                ? FrplPayload.appLength(args.length, payload.length, ts)
                : FrplPayload.length(EntryTag.APP, ts, payload));
    }

    private void clientWrote(Client c, long sequence) {
        replies.appended(sequence);
        c.lastWriteSequence = sequence;
    }

    /**
     * Marks the watchers of every key the write names, and wakes the clients blocked on them (a blocking command
     * only removes from its keys, so it wakes nobody but through a BLMOVE's or BRPOPLPUSH's destination).
     */
    void touch(Command command) {
        if (watches.isEmpty() && blocked.isEmpty()) {
            return;
        }
        tandem.api.store.CommandDescriptor d = command.descriptor();
        byte[][] args = command.args();
        int db = command.db();
        boolean movable = d.flags().contains("movablekeys");
        if (otherDatabase(command)) {
            return;
        }
        if (Blocked.isBlocking(d)) {
            if (d.name().equals("blmove") || d.name().equals("brpoplpush")) {
                touched(db, args[2], true);
            }
            int last = d.lastKey() < 0 ? args.length + d.lastKey() : d.lastKey();
            for (int i = Math.max(d.firstKey(), 1); d.firstKey() > 0 && i <= last && i < args.length; i++) {
                touched(db, args[i], false);
            }
            if (movable) {
                for (int i = 1; i < args.length; i++) {
                    touched(db, args[i], false);
                }
            }
            return;
        }
        if (movable) {
            // keys anywhere among the arguments (LMPOP, ZUNIONSTORE, SORT ... STORE): every argument is taken for
            // a key, so a watcher is never missed (one watching a key named like an option may abort needlessly)
            for (int i = 1; i < args.length; i++) {
                touched(db, args[i], true);
            }
            return;
        }
        if (d.firstKey() <= 0) {
            if (d.name().equals("flushdb") || d.name().equals("flushall")) {
                watches.touchedAll();
            }
            return;
        }
        int last = d.lastKey() < 0 ? args.length + d.lastKey() : d.lastKey();
        int step = Math.max(1, d.keyStep());
        for (int i = d.firstKey(); i <= last && i < args.length; i += step) {
            touched(db, args[i], true);
        }
    }

    /**
     * The writes that reach another database than their own: MOVE (its key there too), COPY … DB (its destination
     * there), SWAPDB (every watcher and blocked client, as Redis touches every watched key of both databases and
     * serves the blocked clients again). Their own database's keys are touched as any write's.
     *
     * @return true when nothing else is to be touched
     */
    private boolean otherDatabase(Command command) {
        byte[][] args = command.args();
        switch (command.descriptor().name()) {
            case "swapdb" -> {
                watches.touchedAll();
                if (!blocked.isEmpty()) {
                    blocked.touchedAll(woken);
                }
                return true;
            }
            case "move" -> touchedIn(args[2], args[1]);
            case "copy" -> {
                for (int i = 3; i + 1 < args.length; i++) {
                    if (new String(args[i], StandardCharsets.ISO_8859_1).equalsIgnoreCase("db")) {
                        touchedIn(args[i + 1], args[2]);
                    }
                }
            }
            default -> {
                // touched in its own database only
            }
        }
        return false;
    }

    /** Touches {@code key} in the database {@code index} names (nothing when it names none). */
    private void touchedIn(byte[] index, byte[] key) {
        try {
            long db = tandem.protocol.command.String2ll.parse(index);
            if (db >= 0 && db < Keyspace.DATABASES) {
                touched((int) db, key, true);
            }
        } catch (NumberFormatException e) {
            // the command fails: it touches nothing there
        }
    }

    private void touched(int db, byte[] key, boolean wakes) {
        if (!watches.isEmpty()) {
            watches.touched(db, key);
        }
        if (wakes && !blocked.isEmpty()) {
            blocked.touched(db, key, woken);
        }
    }

    /** The keyspace's commands among {@code commands}: the front end's are not journaled. */
    private static List<Command> keyspaceCommands(List<Command> commands) {
        List<Command> out = new ArrayList<>(commands.size());
        for (Command c : commands) {
            if (c.isKeyspace()) {
                out.add(c);
            }
        }
        return out;
    }

    static String journalStopped(JournalStoppedException e) {
        return journalStopped(e.getMessage());
    }

    static String journalStopped(String reason) {
        return "MISCONF the journal has stopped and writes are refused: " + reason;
    }
}
