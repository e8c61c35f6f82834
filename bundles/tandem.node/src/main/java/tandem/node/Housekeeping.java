package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import tandem.api.journal.Journal;
import tandem.api.store.Keyspace;

/**
 * The primary's periodic entries and chores: a Tick (active expiry, applied deterministically on every replica)
 * whenever a key's deadline has passed, at most one in flight and one per {@value #TICK_INTERVAL_NS} ns; and the
 * purge of journal segments below the store's flushed sequence every {@value #PURGE_INTERVAL_NS} ns. The logic
 * thread's alone.
 */
final class Housekeeping {

    private static final Logger LOG = System.getLogger("tandem.node");
    static final long TICK_INTERVAL_NS = 100_000_000L;
    private static final long PURGE_INTERVAL_NS = 10_000_000_000L;

    private final Services services;
    private final Applier applier;
    private final Sequencer sequencer;
    private final RoleState role;
    private final EntryClock clock;
    private final Pause pause;
    private long lastTickNs;
    private boolean tickPending;
    private long lastPurgeNs = System.nanoTime();

    Housekeeping(Services services, Applier applier, Sequencer sequencer, RoleState role, EntryClock clock,
            Pause pause) {
        this.pause = pause;
        this.services = services;
        this.applier = applier;
        this.sequencer = sequencer;
        this.role = role;
        this.clock = clock;
    }

    /** Journals a Tick when a deadline has passed (on a primary, not more often than the interval). */
    void tick() {
        Keyspace keyspace = services.keyspace();
        if (services.unavailable() != null || services.journal() == null || keyspace == null || tickPending
                || role.following() || applier.stopped() || pause.active()) { // CLIENT PAUSE: no key expires
            return;
        }
        long mono = System.nanoTime();
        if (mono - lastTickNs < TICK_INTERVAL_NS) {
            return;
        }
        long ts = clock.next();
        if (keyspace.nextDeadlineNs() > ts) {
            return;
        }
        lastTickNs = mono;
        tickPending = sequencer.tick(ts) != 0;
    }

    /** The Tick in flight took its turn (applied, or refused). */
    void tickApplied() {
        tickPending = false;
    }

    /** Deletes the journal segments the store no longer needs (every {@value #PURGE_INTERVAL_NS} ns). */
    void purge() {
        Journal journal = services.journal();
        Keyspace keyspace = services.keyspace();
        long mono = System.nanoTime();
        if (mono - lastPurgeNs < PURGE_INTERVAL_NS || services.unavailable() != null || journal == null
                || keyspace == null) {
            return;
        }
        lastPurgeNs = mono;
        int removed = journal.purge(keyspace.status().flushedSequence());
        if (removed > 0) {
            LOG.log(Level.INFO, "purged {0} journal segments below the store''s flushed sequence", removed);
        }
    }
}
