package tandem.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

import tandem.api.journal.Journal;
import tandem.api.replication.PsyncHistory;
import tandem.api.replication.ReplicationHub;

/**
 * A promotion of this node, the one place that makes it: asked by an operator ({@code repl:promote}) today, and by
 * whatever decides a failover tomorrow. On a fenced primary it lifts the fence (forced only); on a replica it stops
 * following, makes what it received durable, records the next epoch, has the node core lead it (an EpochBump in the
 * journal) and restarts the protocol as a primary that replicas connect to. A promotion that fails before the node
 * leads leaves it a replica of the same primary.
 */
record Promotion(Journal journal, ReplicationHub hub, EpochFile epoch, RestartFence fence, Protocol protocol) {

    private static final Logger LOG = System.getLogger("tandem.replication");

    /** The protocol as a promotion changes it: the component's side. */
    interface Protocol {
        ReplicationSettings settings();

        /** @return the link to this node's primary, or null on a primary */
        ReplicaLink upstream();

        /** Closes the link to the primary: nothing more is received. */
        void stopFollowing();

        /** Starts the protocol again as the settings say: a replica whose promotion failed follows again. */
        void restart() throws IOException;

        /** Records in the configuration that this node is a primary, and starts the protocol as one. */
        void startAsPrimary() throws IOException;

        /** @return {@code bind:port} where replicas connect, or null when nothing listens */
        String listening();

        /** @return the psync protocol's record of this node's history, or null while it is not active */
        default PsyncHistory psyncHistory() {
            return null;
        }
    }

    /**
     * @param force lift a fenced primary's fence; promote a replica whose primary still streams to it
     * @return what was done, for the operator
     * @throws IllegalStateException when there is nothing to promote, or it needs {@code force}
     */
    String promote(boolean force) throws InterruptedException {
        ReplicationSettings s = protocol.settings();
        if (s.primary() == null) {
            return liftFence(force);
        }
        ReplicaLink link = protocol.upstream();
        if (link != null && "streaming".equals(link.status().state()) && !force) {
            throw new IllegalStateException("the primary " + s.primary() + " still streams to this node: stop it "
                    + "first, or run repl:promote --force");
        }
        protocol.stopFollowing();
        long bump;
        long next = epoch.current() + 1;
        PsyncHistory psync = protocol.psyncHistory();
        String formerId = psync == null ? null : psync.historyId();
        try {
            journal.awaitDurable(journal.lastSequence());
            if (psync != null) {
                // before the node leads: from then on PSYNC is served, and the former primary's id must not reach
                // past what this journal holds of its history (the EpochBump moves the offset by nothing)
                psync.leading(Math.max(0, journal.offsetAfter(journal.lastSequence())));
            }
            epoch.advance(next);
            bump = hub.lead(next);
        } catch (IOException e) {
            LOG.log(Level.ERROR, "journal replication: promotion failed, following {0} again: the psync id cannot "
                    + "be recorded: {1}", s.primary(), e.getMessage());
            restart();
            throw new UncheckedIOException("promotion failed: the psync id cannot be recorded: " + e.getMessage(), e);
        } catch (RuntimeException | InterruptedException e) {
            LOG.log(Level.ERROR, "journal replication: promotion failed, following {0} again: {1}", s.primary(),
                    e.getMessage());
            if (psync != null) {
                try {
                    psync.followedByJournal(formerId);
                } catch (IOException again) {
                    LOG.log(Level.ERROR, "journal replication: the former psync id cannot be restored (psync "
                            + "replicas full-sync if this node leads later): {0}", again.getMessage());
                }
            }
            restart();
            throw e;
        }
        try {
            protocol.startAsPrimary();
        } catch (IOException e) {
            throw new UncheckedIOException("promoted, but the replication listener cannot start: "
                    + e.getMessage(), e);
        }
        String listening = protocol.listening();
        listening = listening == null ? "(not listening: see the log)" : listening;
        LOG.log(Level.WARNING, "journal replication: promoted: primary at epoch {0} (EpochBump at sequence {1}), "
                + "listening for replicas on {2}", next, bump, listening);
        return "promoted: primary at epoch " + next + " (EpochBump at sequence " + bump + "); replicas connect to "
                + listening;
    }

    private void restart() {
        try {
            protocol.restart();
        } catch (IOException again) {
            LOG.log(Level.ERROR, "journal replication cannot follow again: {0}", again.getMessage());
        }
    }

    private String liftFence(boolean force) {
        String was = fence.error();
        if (was == null) {
            throw new IllegalStateException("this node is a primary already");
        }
        if (!force) {
            throw new IllegalStateException("this primary is fenced (" + was + "); repl:promote --force lifts the "
                    + "fence");
        }
        fence.clear();
        LOG.log(Level.WARNING, "journal replication: the fence was lifted by repl:promote --force ({0})", was);
        return "the fence is lifted: client writes are accepted";
    }
}
