package tandem.node;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import tandem.api.store.BlockingWait;
import tandem.api.store.Command;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.Keyspace;

/**
 * The clients of blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP), on the
 * logic thread.
 *
 * <p>A blocking command is journaled and applied as any write: when a key it names holds something, it is served
 * then, as its non-blocking form would be. When it finds nothing it writes nothing and replies nil; the pipeline
 * takes that reply back and parks the client here ({@link #park}). A write sequenced later that names one of its
 * keys wakes it ({@link #touched}): the same command is journaled again right after that write, so that it applies
 * to the state the write left, and either is served or parks again, keeping its place. Clients blocked on one key are
 * woken in the order they first blocked, which is the order their commands are journaled in, so the first to block is
 * the first served. A block's timeout runs on the logic thread's clock from the moment the command arrived and is
 * never journaled: when it passes, the client gets Redis' timeout reply (a nil array).
 *
 * <p>While its command is in flight (journaled, not yet applied) a client is "attempting": a write touching its keys
 * meanwhile marks it, and an attempt that then finds nothing is journaled again at once rather than parked, so that
 * no write between an attempt and its apply goes unseen.
 */
final class Blocked {

    /** One client's blocking command. */
    static final class Block {
        final Client client;
        final Command command;
        final List<WatchRegistry.Key> keys;
        final long deadlineNanos;
        /** The order in which clients first blocked: the order they are woken in. */
        final long ticket;
        /**
         * True for a read that blocked while this node followed a primary (an XREAD BLOCK on a replica): it waits
         * there as Redis's replicas let it, woken by what replication applies, and is no client a demotion must
         * answer.
         */
        final boolean onReplica;
        boolean attempting = true;
        boolean retouched;

        Block(Client client, Command command, List<WatchRegistry.Key> keys, long deadlineNanos, long ticket,
                boolean onReplica) {
            this.client = client;
            this.command = command;
            this.keys = keys;
            this.deadlineNanos = deadlineNanos;
            this.ticket = ticket;
            this.onReplica = onReplica;
        }

        /** A read that blocks (XREAD BLOCK): it is tried again as a read, never journaled. */
        boolean isRead() {
            return !command.isWrite();
        }
    }

    static final String UNBLOCKED = "UNBLOCKED force unblock from blocking operation, instance state changed "
            + "(master -> replica?)";
    /** What {@code CLIENT UNBLOCK id ERROR} answers the client it unblocks. */
    static final String UNBLOCKED_BY_CLIENT = "UNBLOCKED client unblocked via CLIENT UNBLOCK";

    private final Map<Client, Block> byClient = new HashMap<>();
    private final Map<WatchRegistry.Key, TreeSet<Block>> byKey = new HashMap<>();
    private long tickets;
    /** The number of parked clients, for other threads. */
    private volatile int parked;

    static boolean isBlocking(CommandDescriptor d) {
        return d.flags().contains("blocking");
    }

    /** @return true for a blocking command's later try, journaled under its woken name */
    static boolean isWoken(Command c) {
        return c.name() != null && c.name().endsWith(Keyspace.WOKEN_SUFFIX);
    }

    boolean isEmpty() {
        return byClient.isEmpty();
    }

    /**
     * The client's blocking command was journaled for the first time: it is in flight until applied, waiting on the
     * keys and for the time the store read from it.
     */
    void block(Client c, Command command, BlockingWait wait) {
        block(c, command, wait, false);
    }

    /** As above; {@code onReplica} for a read blocking while this node follows a primary. */
    void block(Client c, Command command, BlockingWait wait, boolean onReplica) {
        long timeout = wait.timeoutMillis();
        long deadline = timeout == 0 || timeout > TimeUnit.DAYS.toMillis(365L * 100) ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
        List<WatchRegistry.Key> keys = new ArrayList<>();
        wait.keys().forEach(k -> keys.add(new WatchRegistry.Key(command.db(), k)));
        Block b = new Block(c, command, keys, deadline, tickets++, onReplica);
        byClient.put(c, b);
        for (WatchRegistry.Key k : b.keys) {
            byKey.computeIfAbsent(k, x -> new TreeSet<>(Comparator.comparingLong(y -> y.ticket))).add(b);
        }
    }

    /** The client's blocking command was journaled again (woken): in flight, keeping its ticket and deadline. */
    void attempting(Client c) {
        Block b = byClient.get(c);
        b.attempting = true;
        b.retouched = false;
    }

    /**
     * The client's command found nothing when applied.
     *
     * @return true when parked; false when a write touched its keys meanwhile: journal it again now
     */
    boolean park(Client c) {
        Block b = byClient.get(c);
        if (b.retouched) {
            b.retouched = false;
            return false;
        }
        b.attempting = false;
        parked++;
        return true;
    }

    /** A write was sequenced that names {@code key}: the parked clients blocked on it join {@code woken}. */
    void touched(int db, byte[] key, List<Block> woken) {
        TreeSet<Block> blocks = byKey.get(new WatchRegistry.Key(db, key));
        if (blocks != null) {
            wake(blocks, woken);
        }
    }

    /** A write changed whole databases ({@code SWAPDB}): every parked client joins {@code woken}, to try again. */
    void touchedAll(List<Block> woken) {
        List<Block> all = new ArrayList<>(byClient.values());
        all.sort(Comparator.comparingLong(b -> b.ticket));
        wake(all, woken);
    }

    /**
     * Replication applied entries on this replica: every parked read joins {@code woken}, to read again (a read
     * costs no journal entry, so the keys the entries named need not be told).
     */
    void replicated(List<Block> woken) {
        List<Block> reads = new ArrayList<>();
        for (Block b : byClient.values()) {
            if (b.isRead()) {
                reads.add(b);
            }
        }
        if (!reads.isEmpty()) {
            reads.sort(Comparator.comparingLong(b -> b.ticket));
            wake(reads, woken);
        }
    }

    private void wake(java.util.Collection<Block> blocks, List<Block> woken) {
        for (Block b : blocks) {
            if (b.client.unblock != null) {
                continue; // CLIENT UNBLOCK answers it: no write serves it any more
            }
            if (b.attempting) {
                b.retouched = true;
            } else if (!woken.contains(b)) {
                woken.add(b);
                b.attempting = true;
                parked--;
            }
        }
    }

    /** The client's blocking command was answered (served, or an error): it is blocked no more. */
    void done(Client c) {
        Block b = byClient.remove(c);
        if (b == null) {
            return;
        }
        if (!b.attempting) {
            parked--;
        }
        for (WatchRegistry.Key k : b.keys) {
            TreeSet<Block> blocks = byKey.get(k);
            if (blocks != null) {
                blocks.remove(b);
                if (blocks.isEmpty()) {
                    byKey.remove(k);
                }
            }
        }
    }

    /** {@code c} went away. */
    void remove(Client c) {
        done(c);
    }

    boolean has(Client c) {
        return byClient.containsKey(c);
    }

    /** @return the parked client (not in flight) whose front end's id is {@code id}, or null */
    Client parked(long id) {
        for (Block b : byClient.values()) {
            if (!b.attempting && b.client.front.id() == id) {
                return b.client;
            }
        }
        return null;
    }

    /** The blocking command {@code c} sent, as it sent it. */
    Command command(Client c) {
        return byClient.get(c).command;
    }

    /**
     * @param following true once this node follows a primary: every parked client is answered {@code -UNBLOCKED}
     * @return the parked clients whose time is up or that {@code CLIENT UNBLOCK} released (or all, when following),
     *         removed: the caller answers them
     */
    List<Block> expired(boolean following) {
        if (parked == 0) {
            return List.of();
        }
        long now = System.nanoTime();
        List<Block> out = new ArrayList<>();
        for (Iterator<Block> it = byClient.values().iterator(); it.hasNext(); ) {
            Block b = it.next();
            if (!b.attempting && (following && !b.onReplica || b.client.unblock != null
                    || b.deadlineNanos != Long.MAX_VALUE && now - b.deadlineNanos >= 0)) {
                out.add(b);
            }
        }
        out.sort(Comparator.comparingLong(b -> b.ticket));
        out.forEach(b -> done(b.client));
        return out;
    }

    /** @return how long the logic thread may sleep, at most {@code maxNanos}: until the nearest deadline */
    long pollNanos(long maxNanos) {
        long wait = maxNanos;
        if (parked == 0) {
            return wait;
        }
        long now = System.nanoTime();
        for (Block b : byClient.values()) {
            if (!b.attempting && b.client.unblock != null) {
                return 0;
            }
            if (!b.attempting && b.deadlineNanos != Long.MAX_VALUE) {
                wait = Math.min(wait, Math.max(0, b.deadlineNanos - now));
            }
        }
        return wait;
    }

    /** @return the clients parked now ({@code INFO}'s {@code blocked_clients}); any thread */
    int parked() {
        return parked;
    }

    /** A reply passed through that tells whether the command answered nothing but a nil: it found nothing. */
    static final class NilProbe implements tandem.api.store.Reply {
        private final tandem.api.store.Reply to;
        private int calls;
        private boolean nil;

        NilProbe(tandem.api.store.Reply to) {
            this.to = to;
        }

        boolean nilOnly() {
            return calls == 1 && nil;
        }

        private tandem.api.store.Reply call(boolean isNil) {
            calls++;
            nil = isNil;
            return this;
        }

        @Override
        public tandem.api.store.Reply simple(String text) {
            to.simple(text);
            return call(false);
        }

        @Override
        public tandem.api.store.Reply error(String text) {
            to.error(text);
            return call(false);
        }

        @Override
        public tandem.api.store.Reply integer(long value) {
            to.integer(value);
            return call(false);
        }

        @Override
        public tandem.api.store.Reply bulk(byte[] value) {
            to.bulk(value);
            return call(false);
        }

        @Override
        public tandem.api.store.Reply nullBulk() {
            to.nullBulk();
            return call(true);
        }

        @Override
        public tandem.api.store.Reply nullArray() {
            to.nullArray();
            return call(true);
        }

        @Override
        public tandem.api.store.Reply array(int count) {
            to.array(count);
            return call(false);
        }

        // RESP3's types pass through as such: without these, a served BZPOPMIN answered its score as a bulk string
        // to a RESP3 client (the fuzzer's finding)
        @Override
        public tandem.api.store.Reply map(int pairs) {
            to.map(pairs);
            return call(false);
        }

        @Override
        public tandem.api.store.Reply set(int count) {
            to.set(count);
            return call(false);
        }

        @Override
        public tandem.api.store.Reply doubleValue(byte[] text) {
            to.doubleValue(text);
            return call(false);
        }

        @Override
        public tandem.api.store.Reply verbatim(byte[] text) {
            to.verbatim(text);
            return call(false);
        }

        @Override
        public int protocol() {
            return to.protocol();
        }
    }
}
