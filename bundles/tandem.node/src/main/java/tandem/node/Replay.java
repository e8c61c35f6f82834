package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.HexFormat;

import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.store.Keyspace;
import tandem.api.store.Reply;

/**
 * Brings the keyspace up to the journal: a newly bound keyspace (or the keyspace after a new journal) up to the
 * journal's durable end before it serves, and, on a replica, the keyspace up to what replication made durable.
 *
 * <p>Requests still pending from before the services changed keep their place: the replay stops before the first
 * pending write's entry, which then applies at its turn with its own reply, so its client gets the answer it was
 * waiting for; after a journal changed, a pending write beyond the new journal's end was never made durable and is
 * refused.
 *
 * <p>A store installed from a checkpoint stands for one journal history at its origin: nothing is replayed into it
 * until the journal's chain value there is the checkpoint's. A replica installs the store and then the matching
 * journal; a crash between the two leaves a journal of the old history, which must never be applied on top of the
 * new store. The journal's chain there is looked at once it is durable up to the origin, and again only when its
 * generation changes (a seed install, a lineage archive): within one history a chain value never changes.
 */
final class Replay {

    private static final Logger LOG = System.getLogger("tandem.node");
    /** A replay writes the store every this many entries: a long replay holds no more than that in memory. */
    private static final int COMMIT_ENTRIES = 4096;
    /** Swallows the replies of replayed entries. */
    private static final Reply DISCARD = new DiscardingReply();

    private final Services services;
    private final Applier applier;
    private final Turns turns;
    private final Replies replies;
    private final EntryClock clock;
    private final RoleState role;
    /** Set once the bound keyspace holds every durable entry of the bound journal; cleared by a new replay. */
    private volatile boolean replayed;
    /** While a replay runs: how many entries it has applied, and of how many. */
    private volatile long done;
    private volatile long total;
    /** The journal's generation when the store's origin was last compared with its chain; -1 for none. */
    private long originCheckedAgainst = -1;
    private boolean followedSomething;

    Replay(Services services, Applier applier, Turns turns, Replies replies, EntryClock clock, RoleState role) {
        this.services = services;
        this.applier = applier;
        this.turns = turns;
        this.replies = replies;
        this.clock = clock;
        this.role = role;
    }

    /** Notes which service is missing, and replays the journal into a newly bound keyspace. */
    void prepare() {
        if (services.prepare()) {
            replayed = false;
            replay();
        }
    }

    /**
     * On a replica: applies what replication made durable (replication wakes the logic thread after each sync).
     * Pending reads run after it, so a read sees every entry durable when its turn came.
     *
     * @return true when it applied entries
     */
    boolean follow() {
        Journal journal = services.journal();
        Keyspace keyspace = services.keyspace();
        if (journal == null || keyspace == null || services.unavailable() != null && !services.replayNeeded()
                || applier.stopped()) {
            return false;
        }
        if (keyspace.appliedSequence() < journal.durableSequence() || keyspace.origin() != null) {
            long before = keyspace.appliedSequence();
            replay(true);
            followedSomething = true;
            return keyspace.appliedSequence() != before;
        }
        return false;
    }

    /** Before a promotion: the keyspace holds everything the journal made durable. */
    void complete() {
        Keyspace keyspace = services.keyspace();
        if (keyspace.appliedSequence() < services.journal().durableSequence() || keyspace.origin() != null) {
            replay();
        }
    }

    /** A checkpoint was installed: its origin is compared with the journal before anything applies. */
    void installed() {
        originCheckedAgainst = -1;
        services.replayAgain();
    }

    private void replay() {
        replay(false);
    }

    /** @param live true when the entries replayed just arrived from the primary (a replica following it) */
    private void replay(boolean live) {
        services.replayStarted();
        Journal journal = services.journal();
        Keyspace keyspace = services.keyspace();
        if (!originHeld(journal, keyspace)) {
            return;
        }
        long applied = keyspace.appliedSequence();
        long last = journal.durableSequence();
        clock.notBefore(journal.lastTimestampNs());
        if (applied > last) {
            services.unavailable("ERR the store has applied sequence " + applied + " but the journal ends at " + last);
            LOG.log(Level.ERROR, "refusing keyspace commands: {0}", services.unavailable());
            return;
        }
        // pending writes apply at their own entries, at their turn
        long end = Math.min(last, turns.firstWriteSequence() - 1);
        long started = System.nanoTime();
        total = end - applied;
        done = 0;
        long[] count = {0};
        if (applied < end) {
            try {
                journal.read(applied, new EntryVisitor() {
                    @Override
                    public boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload) {
                        if (sequence > end) {
                            return false;
                        }
                        applier.entry(sequence, timestampNs, tag, payload, DISCARD, live);
                        if (++count[0] % COMMIT_ENTRIES == 0) {
                            applier.commitRound(); // every replayed entry is durable: the store's batch stays bounded
                            done = count[0];
                        }
                        return !applier.stopped(); // a failed entry stops the replay: nothing after it applies
                    }

                    @Override
                    public void skipped(long sequence) {
                        if (sequence <= end) {
                            applier.skipped(sequence, "a discarded fragment");
                        }
                    }
                });
            } catch (IllegalArgumentException e) {
                services.unavailable("ERR the store is behind the retained journal: " + e.getMessage());
                LOG.log(Level.ERROR, "refusing keyspace commands: {0}", services.unavailable());
                return;
            } finally {
                total = 0;
            }
            if (applier.stopped()) {
                LOG.log(Level.ERROR, "the replay stopped after sequence {0}: {1}", keyspace.appliedSequence(),
                        applier.failure());
            } else if (!role.following() || !followedSomething) {
                LOG.log(Level.INFO, "replayed {0} journal entries after sequence {1} in {2} ms", count[0], applied,
                        (System.nanoTime() - started) / 1_000_000);
            }
        }
        replayed = !applier.stopped();
        if (services.takeJournalChanged()) {
            int lost = turns.loseAfter(journal.lastSequence());
            if (lost > 0) {
                replies.forgetAcks();
                LOG.log(Level.WARNING, "{0} writes were not durable when the journal went away; they are refused",
                        lost);
            }
        }
    }

    /** @return true when the store has no origin or it matches (then it is reconciled); false while it waits */
    private boolean originHeld(Journal journal, Keyspace keyspace) {
        Keyspace.Origin origin = keyspace.origin();
        if (origin == null) {
            return true;
        }
        services.unavailable("LOADING Tandem is installing a snapshot (the store is at sequence " + origin.sequence()
                + "; waiting for the journal of its history)");
        services.replayAgain(); // looked at again next round
        if (journal.durableSequence() < origin.sequence()) {
            return false;
        }
        long seen = journal.generation();
        if (seen == originCheckedAgainst) {
            return false;
        }
        originCheckedAgainst = seen;
        byte[] ours = journal.chainAt(origin.sequence());
        if (ours == null || !Arrays.equals(ours, origin.chain())) {
            LOG.log(Level.WARNING, "the store was installed at {0}; the journal holds another history there ({1}): "
                    + "nothing is applied until replication installs the matching journal", origin,
                    ours == null ? "no chain value" : HexFormat.of().formatHex(ours));
            return false;
        }
        keyspace.reconciled();
        originCheckedAgainst = -1;
        services.replayStarted();
        LOG.log(Level.INFO, "the journal holds the installed store''s history at {0}: applying from there", origin);
        return true;
    }

    /** @return true once the bound keyspace holds every durable entry of the bound journal */
    boolean replayed() {
        return replayed && !services.replayNeeded();
    }

    /** @return while a replay runs, its progress for a person; null otherwise */
    String progress() {
        long t = total;
        return t > 0 && !replayed ? "replaying the journal: " + done + " of " + t + " entries" : null;
    }

    /** Swallows the replies of replayed entries. */
    private static final class DiscardingReply implements Reply {
        @Override
        public Reply simple(String text) {
            return this;
        }

        @Override
        public Reply error(String text) {
            return this;
        }

        @Override
        public Reply integer(long value) {
            return this;
        }

        @Override
        public Reply bulk(byte[] value) {
            return this;
        }

        @Override
        public Reply nullBulk() {
            return this;
        }

        @Override
        public Reply nullArray() {
            return this;
        }

        @Override
        public Reply array(int count) {
            return this;
        }
    }
}
