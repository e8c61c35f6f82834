package tandem.failover;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Makes the node's role what the group says: the group's primary promotes itself, every other data node follows it.
 * Runs on its own thread (a promotion waits for the journal), again on every change of the group's state and on a
 * timer, so a change that failed (the primary not listening yet, a bundle being swapped) is retried. A node learns
 * its role from the group, not from its role file: a primary restarted after the group moved on follows the new one,
 * and its divergent tail goes to the split-brain audit as a {@code repl:replicaof} sends it.
 */
final class Actuator {

    private static final Logger LOG = System.getLogger("tandem.failover");

    private final Supplier<FailoverSettings> settings;
    private final Supplier<GroupState> group;
    private final LongSupplier leaderEpoch;
    private final LocalNode node;
    private String lastProblem;

    /**
     * @param leaderEpoch the epoch in the leader's last answer to this node, -1 before the first: a node acts on the
     *                    group's state only once its own is at least that recent. Restarted, it replays the whole log,
     *                    and an early entry may name it the primary although a later one has named another since
     *                    (it once promoted itself there, into a journal epoch no primary would accept again)
     */
    Actuator(Supplier<FailoverSettings> settings, Supplier<GroupState> group, LongSupplier leaderEpoch,
            LocalNode node) {
        this.settings = settings;
        this.group = group;
        this.leaderEpoch = leaderEpoch;
        this.node = node;
    }

    /** One reconciliation; never throws (a failure is logged once and retried on the next call). */
    synchronized void reconcile() {
        GroupState g = group.get();
        FailoverSettings s = settings.get();
        if (s.witness() || g.primary() == null) {
            return;
        }
        long known = leaderEpoch.getAsLong();
        if (known < 0 || g.epoch() < known) {
            return; // still replaying the group's log: an older state must not move the node
        }
        try {
            String role = node.role();
            if (role == null) {
                return;
            }
            if (role.equals(LocalNode.PSYNC_REPLICA)) {
                String trouble = followByPsync(g, s);
                if (trouble != null) {
                    problem(trouble);
                    return;
                }
            } else if (g.primary().equals(s.nodeId())) {
                if (role.equals("replica")) {
                    LOG.log(Level.WARNING, "failover group: epoch {0} names this node the primary; promoting",
                            g.epoch());
                    LOG.log(Level.WARNING, "failover group: {0}", node.promote());
                }
            } else {
                GroupState.Member p = g.members().get(g.primary());
                if (p == null || p.replication().isEmpty()) {
                    problem("the primary " + g.primary() + " has not told the group its replication address yet");
                    return;
                }
                if (role.equals("primary") || !p.replication().equals(node.upstream())) {
                    LOG.log(Level.WARNING, "failover group: epoch {0} names {1} the primary; following it at {2}",
                            g.epoch(), g.primary(), p.replication());
                    LOG.log(Level.WARNING, "failover group: {0}", node.replicaOf(p.replication()));
                    if (role.equals("primary")) {
                        LOG.log(Level.WARNING, "failover group: closed {0} client connections of the former "
                                + "primary: they look the new one up", node.closeClients());
                    }
                }
            }
            lastProblem = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            problem("cannot take the role epoch " + g.epoch() + " gives this node: " + e.getMessage());
        }
    }

    /**
     * A psync replica follows the group's primary at its RESP address; when that primary was a journal replica of its
     * own former primary, it continues there ({@code +CONTINUE}): the promoted node keeps the former id valid.
     *
     * @return what keeps it from following, or null
     */
    private String followByPsync(GroupState g, FailoverSettings s) {
        if (g.primary().equals(s.nodeId())) {
            return "epoch " + g.epoch() + " names this node the primary, but it follows " + node.upstream()
                    + " by psync: the group promotes only journal replicas";
        }
        GroupState.Member p = g.members().get(g.primary());
        if (p == null || p.resp().isEmpty()) {
            return "the primary " + g.primary() + " has not told the group its RESP address yet";
        }
        if (!p.resp().equals(node.upstream())) {
            LOG.log(Level.WARNING, "failover group: epoch {0} names {1} the primary; following it by psync at {2}",
                    g.epoch(), g.primary(), p.resp());
            LOG.log(Level.WARNING, "failover group: {0}", node.replicaOfByPsync(p.resp()));
        }
        return null;
    }

    private void problem(String text) {
        if (!Objects.equals(text, lastProblem)) {
            LOG.log(Level.WARNING, "failover group: " + text + " (retrying)");
            lastProblem = text;
        }
    }
}
