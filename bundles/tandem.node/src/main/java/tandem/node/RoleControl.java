package tandem.node;

import java.nio.file.Path;

import tandem.api.journal.Journal;
import tandem.api.store.Keyspace;

/**
 * Where the node's role changes: it follows a primary, leads (a promotion's EpochBump), installs a checkpoint, or is
 * fenced. The replication protocols drive it today, through the node component; automatic failover drives the same
 * calls. Called on other threads: what touches the pipeline runs on the logic thread ({@link Inbox#call}).
 */
record RoleControl(RoleState role, Services services, Replay replay, Applier applier, Sequencer sequencer,
        Replies replies, Inbox inbox) {

    /**
     * Follows a primary ({@code primary != null}): client writes are refused, no Tick is emitted, and what
     * replication appends to the journal is applied once durable. With null, this node is a primary again. A primary
     * that turns replica disconnects the clients whose writes the ack policy still holds: their outcome is unknown.
     */
    void follow(String primary) {
        if (primary != null && !role.following()) {
            inbox.post(replies::disconnectHeld);
        }
        role.upstream(primary);
        if (!role.known()) {
            role.known(true);
            services.signal();
        }
        inbox.wake();
    }

    /**
     * The role is not known yet (no replication protocol ever declared it): keyspace commands wait for
     * {@link #follow}, up to the pause window, after which the node serves as a primary.
     */
    void awaitRole() {
        role.known(false);
    }

    /** Replication's entries are durable up to some sequence: the logic thread applies them. */
    void appended() {
        inbox.wake();
    }

    /**
     * Replaces the keyspace by a checkpoint, on the logic thread; returns once it is installed. See
     * {@link tandem.api.replication.ReplicationHub#install}.
     */
    long install(Path checkpoint, long sequence, byte[] chain) throws InterruptedException {
        return inbox.call(() -> {
            services.await();
            replay.prepare();
            Keyspace keyspace = services.keyspace();
            if (keyspace == null) {
                throw new IllegalStateException("the store (tandem.store) is not active: the snapshot cannot be "
                        + "installed");
            }
            long held = keyspace.install(checkpoint, sequence, chain);
            replay.installed();
            return held;
        });
    }

    /**
     * Promotion: applies what the journal holds, appends the EpochBump and stops following; returns once the
     * EpochBump is durable. See {@link tandem.api.replication.ReplicationHub#lead}.
     */
    long lead(long epoch) throws InterruptedException {
        long sequence = inbox.call(() -> {
            services.await();
            replay.prepare();
            if (!role.following()) {
                throw new IllegalStateException("this node is a primary already");
            }
            Journal journal = services.journal();
            Keyspace keyspace = services.keyspace();
            if (journal == null || keyspace == null) {
                throw new IllegalStateException(services.unavailable());
            }
            replay.complete();
            if (applier.stopped()) {
                throw new IllegalStateException("cannot take over: " + applier.failure());
            }
            if (services.unavailable() != null) {
                throw new IllegalStateException("cannot take over: " + services.unavailable());
            }
            if (journal.lastSequence() != journal.durableSequence() || keyspace.appliedSequence()
                    != journal.durableSequence()) {
                throw new IllegalStateException("cannot take over: the journal holds entries up to "
                        + journal.lastSequence() + ", durable up to " + journal.durableSequence()
                        + ", the store applied " + keyspace.appliedSequence() + "; stop replication first");
            }
            long seq = sequencer.epochBump(epoch);
            role.upstream(null);
            return seq;
        });
        Journal j = services.journal();
        if (j != null) {
            j.awaitDurable(sequence);
        }
        return sequence;
    }

    /** Refuses client writes with {@code error}, or accepts them again with null. */
    void fence(String error) {
        role.fence(error);
    }
}
