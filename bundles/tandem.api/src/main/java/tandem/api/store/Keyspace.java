package tandem.api.store;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The keyspace of the node. Every method is called from one logic thread, in sequence order; apply is a pure
 * function of the stored state, the entry's arguments and its timestamp, so every replica computes the same state
 * and the same replies.
 */
@ProviderType
public interface Keyspace extends CommandCatalogue {

    /**
     * Appended to a blocking command's name ({@code blpop|woken}) when the node applies it again after it blocked,
     * woken by a write to one of its keys: {@link #apply} then passes over a key that now holds another type, as
     * Redis' blocked client waits through it, where a first try answers WRONGTYPE. Such a name is never a client's
     * ({@link #describe} does not know it) and is journaled only by the node.
     */
    String WOKEN_SUFFIX = "|woken";

    /**
     * Redis's {@code databases}: the number of databases ({@code SELECT 0} to {@code SELECT 15}), fixed so that every
     * node of a history has the same.
     *
     * @since 4.1
     */
    int DATABASES = 16;

    /**
     * @param command a blocking command (a {@link CommandDescriptor} flagged {@code blocking}) that {@link #check}
     *        accepted
     * @return the keys it waits on and its timeout, read as the store reads them when it applies the command; null
     *         for any other command (the default: a keyspace without blocking commands)
     */
    default BlockingWait blockingWait(Command command) {
        return null;
    }

    /**
     * Resolves a request's name against this keyspace's table, once: the {@link Command} returned carries the
     * descriptor, the keyspace's implementation and the first key's hash to every later call. Woken forms
     * ({@link #WOKEN_SUFFIX}) resolve too, for the node's journaled entries; a client's request must never name one
     * (the node refuses names with a {@code |}). Thread-safe: the front end resolves on its own threads.
     *
     * @param args the name and arguments, as received (not copied)
     * @return the command, or null when this keyspace has no command of that name
     */
    Command resolve(byte[][] args);

    /**
     * Applies one journaled write at {@code sequence} with "now" = {@code timestampNs}, and records
     * {@code sequence} as applied in the same RocksDB batch as its effects. The effects of every apply (this one,
     * {@link #applyTransaction}, {@link #tick}, {@link #advance}) are visible to the calls that follow at once, and to
     * other threads and on disk from the next {@link #commit}, which only the caller makes, once per round of applies
     * and only when its journal holds them durably: the store never writes on its own what a journal may still lose.
     * Closing the store drops what was not committed (the journal replays it).
     *
     * @param command resolved by {@link #resolve} (of this keyspace or an earlier one), arity already checked
     */
    void apply(long sequence, long timestampNs, Command command, Reply reply);

    /**
     * @return true when {@code command} is a script ({@code EVAL}, {@code EVALSHA} and their {@code _RO} forms): the
     *         node runs it through {@link #capture} once everything sequenced before it is applied, never through
     *         {@link #apply} or {@link #read} (the default: a keyspace without scripts)
     * @since 4.2
     */
    default boolean isScript(Command command) {
        return false;
    }

    /**
     * Runs commands on the node that decides writes and captures what they wrote, as Redis 7 replicates a script:
     * by its effects. {@code body} runs scripts and plain commands through the {@link Capture} it is given, in order;
     * their writes apply at once, in the state every earlier apply left, with "now" = {@code timestampNs}, and are
     * visible to what follows. Nothing is recorded as applied: the caller journals the effects returned (one entry)
     * and records that entry's sequence with {@link #advance} before the next {@link #commit}; when it cannot, it must
     * stop applying (the writes are in memory only, and a restart or a store bound again drops them).
     *
     * <p>A script that fails part-way keeps the writes it made before its error, as in Redis; a script stopped by
     * {@link #killScript} loses all of them.
     *
     * @param writeRefusal null when the commands may write; otherwise the error every write among them is answered
     *                     ({@code READONLY …} on a replica), inside a script too
     * @param publisher    where a script's {@code PUBLISH} and {@code SPUBLISH} go (the node delivers them and
     *                     journals them after the effects); null when nobody subscribes
     * @return the writes, in the order they ran (each with its database), empty when nothing wrote
     * @since 4.2
     */
    default java.util.List<Effect> capture(long timestampNs, String writeRefusal, Publisher publisher,
            java.util.function.Consumer<Capture> body) {
        throw new UnsupportedOperationException("this keyspace runs no scripts");
    }

    /**
     * Asks the script running now, on another thread, to stop ({@code SCRIPT KILL}): it fails with Redis's error at
     * its next check (every 100,000 Lua instructions), and what it wrote is taken back.
     *
     * @return null when a script was asked to stop; otherwise the error Redis answers ({@code NOTBUSY …})
     * @since 4.2
     */
    default String killScript() {
        return killScript(false);
    }

    /**
     * {@code SCRIPT KILL} ({@code function} false) or {@code FUNCTION KILL} ({@code function} true): asks what runs
     * now to stop when it is of that kind; Redis's {@code BUSY} error names the other command when it is not.
     *
     * @return null when it was asked to stop; otherwise the error Redis answers
     * @since 4.3
     */
    default String killScript(boolean function) {
        return "NOTBUSY No scripts in execution right now.";
    }

    /**
     * @return whether what runs now ({@link #scriptRunningMillis} not -1) is a function ({@code FCALL}), whose
     *         {@code BUSY} reply names {@code FUNCTION KILL}, rather than a script
     * @since 4.3
     */
    default boolean functionRunning() {
        return false;
    }

    /**
     * @return how long, in milliseconds, the script running now has been running, or -1 when none runs (read from any
     *         thread: the front end answers {@code BUSY} while a script runs longer than {@code busy-reply-threshold})
     * @since 4.2
     */
    default long scriptRunningMillis() {
        return -1;
    }

    /** Where a script's {@code PUBLISH} goes. */
    interface Publisher {
        /** @return the number of subscribers that received it, as PUBLISH answers */
        long publish(byte[] channel, byte[] message, boolean shard);
    }

    /** What {@link #capture} hands its body: runs one command, a script or a plain keyspace command. */
    interface Capture {
        /** Runs {@code command} (resolved by this keyspace, arity checked) and writes its reply to {@code reply}. */
        void run(Command command, Reply reply);
    }

    /**
     * One write a script or a captured transaction made.
     *
     * @param db   the database it wrote in
     * @param args its name and arguments, as it ran them
     */
    record Effect(int db, byte[][] args) {
    }

    /**
     * Applies a committed transaction atomically: its commands in order, one batch; the reply is an array with
     * one reply per command (errors inside do not abort the others, as in Redis).
     */
    void applyTransaction(long sequence, long timestampNs, java.util.List<Command> commands, Reply reply);

    /**
     * Applies a Tick: deletes, in deadline order, up to a fixed number of keys whose deadline is at or before
     * {@code timestampNs}, and records {@code sequence}.
     */
    void tick(long sequence, long timestampNs);

    /** Records {@code sequence} as applied for an entry with no effect on the keyspace (EpochBump, skipped). */
    void advance(long sequence);

    /**
     * Applies an EpochBump: records {@code sequence} and {@code epoch} (durable with the sequence), so that the
     * store, and any checkpoint of it, names the epoch of its history.
     */
    void epochBump(long sequence, long epoch);

    /** @return the epoch of the last EpochBump this store applied, 0 when none (no promotion in its history) */
    long epoch();

    /** Runs a read-only command with "now" = {@code nowNs}; an expired key reads as absent, nothing is written. */
    void read(long nowNs, Command command, Reply reply);

    /**
     * Looks at a write before it is sequenced: whether it fails whatever the keyspace holds (a malformed option, an
     * integer out of range, an offset past the largest string, an increment that cannot be added). Such a write is
     * never journaled; {@link #refuse} answers it at its turn. Reads nothing, writes nothing; what it parsed it may
     * leave in the command ({@link Command#parsed(Object)}) for the apply of the same command.
     *
     * @param command the command, arity already checked
     * @param nowNs the timestamp the write would be sequenced with
     * @return null when the write may succeed; otherwise one error it certainly gets (Redis may name another
     *         first, such as a type error, which only {@link #refuse} can tell)
     */
    String check(Command command, long nowNs);

    /**
     * Answers, at its turn in the pipeline, a write that {@link #check} refused: the reply Redis gives in the present
     * state (a type error before an argument error where Redis looks at the key first). Writes nothing, records no
     * sequence.
     */
    void refuse(long nowNs, Command command, Reply reply);

    /**
     * Writes every apply since the last commit to the database in one batch with the applied sequence: a round of
     * applies costs one write. Nothing is less durable for it: the journal is the log, and a crash loses a
     * committed write that no flush made durable all the same.
     *
     * @throws IllegalStateException when the database refuses the write: the applies stay pending (the next commit
     *                               tries them again), and the caller must stop applying
     */
    void commit();

    /** @return the last applied sequence (what restart replays after), committed or not */
    long appliedSequence();

    /** @return the earliest deadline of any key in nanoseconds since the epoch, or {@link Long#MAX_VALUE} */
    long nextDeadlineNs();

    /**
     * SHA-256 over the stored user keyspace: keys in byte order, each with its type, value and absolute expiry;
     * no filtering by time, no internal records.
     */
    byte[] digest();

    /** @return the current state */
    StoreStatus status();

    /**
     * Cuts a consistent copy of the store into {@code directory} (which must not exist yet; files are hard-linked
     * where the file system allows), for a replica's full sync. May be called while commands are applied.
     *
     * @return the applied sequence the copy holds: a replica that installs it continues after that sequence
     * @throws IllegalStateException naming the directory when the copy cannot be made
     */
    long checkpoint(java.nio.file.Path directory);

    /**
     * Replaces the whole store by a checkpoint of another node's store (a replica's snapshot or full sync): closes
     * the store, puts {@code checkpoint} in the place of its directory and opens it again. Crash-safe at every step:
     * a restart finds the old store or the new one, never a mix. The store then carries its {@link #origin} until
     * {@link #reconciled()}: the journal position the checkpoint stands for, so that no journal of another history
     * is ever replayed into it. Called on the logic thread, between applies.
     *
     * @param checkpoint a complete, verified checkpoint directory on the store's file system (it is moved, not
     *                   copied)
     * @param sequence   the applied sequence the checkpoint holds, or -1 to take whatever it holds
     * @param chain      the journal's chain value at that sequence in the history the checkpoint belongs to
     *                   (32 bytes)
     * @return the applied sequence the store holds now
     * @throws IllegalArgumentException when the checkpoint does not open as a store at {@code sequence} (the store
     *                                  is then left as it was)
     * @throws IllegalStateException    naming the directories when a rename or sync fails
     */
    long install(java.nio.file.Path checkpoint, long sequence, byte[] chain);

    /**
     * @return where this store came from when it was installed from a checkpoint and has not been reconciled with
     *         its journal yet; null otherwise (the usual case)
     */
    Origin origin();

    /** The journal holds this store's history at its {@link #origin}: forgets the origin, durably. */
    void reconciled();

    /**
     * Sets where this keyspace reports its keyspace notifications from the next apply on (null: nowhere).
     *
     * @since 4.1
     */
    default void events(KeyspaceEvents sink) {
    }

    /**
     * The journal position an installed checkpoint stands for.
     *
     * @param sequence the applied sequence of the checkpoint
     * @param chain    the journal's chain value at that sequence in the checkpoint's history (32 bytes)
     */
    record Origin(long sequence, byte[] chain) {

        public Origin {
            chain = chain.clone();
        }

        @Override
        public byte[] chain() {
            return chain.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Origin other && other.sequence == sequence
                    && java.util.Arrays.equals(other.chain, chain);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(sequence) * 31 + java.util.Arrays.hashCode(chain);
        }

        @Override
        public String toString() {
            return "sequence " + sequence + ", chain " + java.util.HexFormat.of().formatHex(chain);
        }
    }
}
