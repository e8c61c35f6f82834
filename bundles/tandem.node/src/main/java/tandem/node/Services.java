package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import tandem.api.journal.DurabilityListener;
import tandem.api.journal.Journal;
import tandem.api.store.Keyspace;

/**
 * The journal and the keyspace the node core is bound to, and the pause window while either is away.
 *
 * <p>Both are dynamic: when either goes away (its bundle is stopped or updated), requests wait until it is back, up
 * to {@code pauseMillis}. The logic thread holds {@link #lock()} for a whole round while it uses them, so that an
 * unbinding never pulls a service out from under a running apply; the binder threads take it to change them, and
 * return once the logic thread no longer uses the previous one.
 *
 * <p>The journal tells the logic thread, through a {@link DurabilityListener}, when the batch the head of the
 * pipeline waits for is durable: the logic thread never waits for an {@code fdatasync} itself, so that requests
 * arriving meanwhile are sequenced into the next batch. That overlap is what groups commits.
 */
final class Services {

    private static final Logger LOG = System.getLogger("tandem.node");

    private final long pauseMillis;
    private final RoleState role;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Set by the binder threads under {@link #lock}; read without it by other threads, hence volatile. */
    private volatile Journal journal;
    private volatile Keyspace keyspace;
    /** Set when the keyspace must be brought up to the journal's end before it serves (a rebinding). */
    private volatile boolean replayNeeded = true;
    /** Set when the journal was replaced: pending writes beyond its end were never durable. */
    private boolean journalChanged;
    /** Set once this round waited for a missing service: the requests behind it are refused at once meanwhile. */
    private boolean waited;
    private long missingSinceNs;
    /** The error keyspace commands get while the journal or store cannot serve them, or null. */
    private volatile String unavailable;
    /** The sequence the head of the pipeline waits for; a durability advance below it wakes nobody. */
    private volatile long awaitedSequence = Long.MAX_VALUE;
    private final Inbox inbox;
    /** Why the bound journal stopped, or null. */
    private volatile String stoppedReason;
    private final DurabilityListener durability;

    /** @return the node's role, as the logic thread sees it */
    RoleState role() {
        return role;
    }

    Services(long pauseMillis, RoleState role, Inbox inbox) {
        this.inbox = inbox;
        this.pauseMillis = pauseMillis;
        this.role = role;
        this.durability = new DurabilityListener() {
            @Override
            public void durable(long sequence) {
                if (sequence >= awaitedSequence) {
                    inbox.wake();
                }
            }

            @Override
            public void stopped(String reason) {
                stoppedReason = reason;
                inbox.wake();
            }
        };
    }

    long pauseMillis() {
        return pauseMillis;
    }

    // ---- binder threads

    /** Binds or replaces the journal; returns once the logic thread no longer uses the previous one. */
    void journal(Journal next) {
        lock.lock();
        try {
            if (journal != null) {
                journal.removeDurabilityListener(durability);
            }
            stoppedReason = null;
            journal = next;
            if (next != null) {
                next.addDurabilityListener(durability);
            }
            replayNeeded = true;
            journalChanged = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Binds or replaces the keyspace; returns once the logic thread no longer uses the previous one.
     *
     * @param meanwhile run with the logic thread held off, once the keyspace is bound
     */
    void keyspace(Keyspace next, Runnable meanwhile) {
        lock.lock();
        try {
            keyspace = next;
            replayNeeded = true;
            meanwhile.run();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Something a waiting request may be waiting for changed (a role declared, an admission provider back). */
    void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The node stops: no journal is listened to any more. */
    void close() {
        Journal j = journal;
        if (j != null) {
            j.removeDurabilityListener(durability);
        }
    }

    // ---- any thread

    Journal journal() {
        return journal;
    }

    Keyspace keyspace() {
        return keyspace;
    }

    /** @return why keyspace commands are refused now, or null */
    String unavailable() {
        return unavailable;
    }

    /**
     * @return true while an installed snapshot waits for the journal of its history: keyspace commands are answered
     *         {@code -LOADING} meanwhile
     */
    boolean loading() {
        String u = unavailable;
        return u != null && u.startsWith("LOADING");
    }

    /** @return why the bound journal stopped, or null */
    String stoppedReason() {
        return stoppedReason;
    }

    /**
     * A name no table knew when the front end resolved it may be a keyspace command that arrived while no store was
     * bound (being restarted, or not yet at a node's start): it is looked up again, once, when the store is back.
     *
     * @return the command resolved by {@code keyspace}, or {@code command} as it was
     */
    static tandem.api.store.Command resolveAgain(Keyspace keyspace, tandem.api.store.Command command) {
        if (command.name() != null) {
            return command;
        }
        tandem.api.store.Command resolved = NodeCore.resolve(keyspace, command.args());
        return resolved != null ? resolved : command;
    }

    // ---- the logic thread

    void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    void unlock() {
        lock.unlock();
    }

    /** A new round: it may wait for a missing service again. */
    void newRound() {
        waited = false;
    }

    /**
     * Notes which service is missing.
     *
     * @return true when both are bound and the keyspace must be brought up to the journal's end first
     */
    boolean prepare() {
        if (journal == null || keyspace == null) {
            unavailable = journal == null ? "ERR the journal (tandem.journal) is not active"
                    : "ERR the store (tandem.store) is not active";
            return false;
        }
        return replayNeeded;
    }

    /**
     * Called where a request needs the journal and the keyspace: waits (once per round, bounded by
     * {@code pauseMillis}) while either is missing or the node's role is not declared yet, so that a store or journal
     * being restarted pauses writes instead of failing them.
     */
    void await() {
        if ((journal == null || keyspace == null || !role.known()) && !waited) {
            waited = true;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMillis);
            try {
                while ((journal == null || keyspace == null || !role.known()) && System.nanoTime() < deadline) {
                    changed.awaitNanos(deadline - System.nanoTime());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!role.known()) {
                role.known(true);
                LOG.log(Level.WARNING, "no replication protocol declared this node''s role within {0} ms: it serves "
                        + "as a primary", pauseMillis);
            }
        }
    }

    /**
     * Waits until {@code missing} is false, or the pause window passes (once per round, for writes waiting for a
     * required write-admission provider).
     */
    void awaitWhile(java.util.function.BooleanSupplier missing) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMillis);
        try {
            while (missing.getAsBoolean() && System.nanoTime() < deadline) {
                changed.awaitNanos(deadline - System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The head of the pipeline needs a service that is away: it waits, bounded by the pause window.
     *
     * @return false once it has waited longer than the window (it is refused then)
     */
    boolean stillWaiting() {
        long now = System.nanoTime();
        if (missingSinceNs == 0) {
            missingSinceNs = now;
            return true;
        }
        return now - missingSinceNs <= TimeUnit.MILLISECONDS.toNanos(pauseMillis);
    }

    /** The head of the pipeline has what it needs. */
    void present() {
        missingSinceNs = 0;
    }

    /** At a round's end: while a service is missing, lets its binder in without spinning. */
    void idleWhileMissing() throws InterruptedException {
        if (missingSinceNs != 0) {
            changed.await(20, TimeUnit.MILLISECONDS);
        }
    }

    boolean replayNeeded() {
        return replayNeeded;
    }

    /** Looked at again at the next round (a snapshot's origin waits for its journal). */
    void replayAgain() {
        replayNeeded = true;
    }

    /** The keyspace is about to be brought up to the journal's end: until it says otherwise, it may serve. */
    void replayStarted() {
        replayNeeded = false;
        unavailable = null;
    }

    /** @return true once (then false) after the journal was replaced */
    boolean takeJournalChanged() {
        boolean was = journalChanged;
        journalChanged = false;
        return was;
    }

    /** Keyspace commands are refused with {@code error} (null: served again). */
    void unavailable(String error) {
        unavailable = error;
    }

    /**
     * Replies are held until {@code sequence} is durable (a script's, whose effects applied before their
     * {@code fdatasync}): the logic thread is woken when it is, as for the head of the pipeline.
     */
    void awaitingReplies(long sequence) {
        if (sequence == Long.MAX_VALUE) {
            return;
        }
        awaitedSequence = Math.min(awaitedSequence, sequence);
        Journal j = journal();
        if (j != null && j.durableSequence() >= sequence) {
            inbox.wake(); // durable meanwhile: its event may have gone by before the wait was set
        }
    }

    /** The head of the pipeline waits for {@code sequence} to be durable ({@link Long#MAX_VALUE}: for nothing). */
    void awaiting(long sequence) {
        awaitedSequence = sequence;
    }
}
