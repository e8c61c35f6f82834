package tandem.server.command;

import java.util.List;

import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.JournalStatus;
import tandem.api.server.ServerStatus;
import tandem.api.store.StoreStatus;

/** The server as commands see it: its status plus what {@code INFO} and {@code CONFIG GET} report. */
public interface ServerContext extends ServerStatus {

    /** @return Tandem's version, e.g. {@code 0.1.0} */
    String version();

    /** @return the journal's state, or null while no journal is bound */
    JournalStatus journalStatus();

    /** @return the journal archive's state, or null when nothing is archived (INFO persistence) */
    default ArchiveStatus archiveStatus() {
        return null;
    }

    /** @return the store's state, or null while no store is bound */
    StoreStatus storeStatus();

    /** @return 40 random hex characters, new each time the server component activates, as Redis' run_id */
    String runId();

    /** @return when the server started, in milliseconds since the epoch */
    long startedAtMillis();

    /** @return the process id of the node */
    long processId();

    /** @return the parameters of {@code CONFIG GET} and {@code CONFIG SET}, with their values now */
    RedisConfig config();

    /**
     * Stops the node cleanly, as SIGTERM does ({@code SHUTDOWN}): the framework stops on a thread of its own, every
     * component deactivates (the journal holds every acknowledged write) and the JVM exits with status 0.
     *
     * @param who what asked, for the log
     */
    default void shutdown(String who) {
        throw new UnsupportedOperationException("this server cannot stop its node");
    }

    /**
     * A client connection as {@code CLIENT KILL} selects it.
     *
     * @param addr  the peer's {@code ip:port}, as {@code CLIENT LIST} shows it
     * @param laddr the local {@code ip:port} it reached
     * @param type  {@code normal}, {@code replica} or {@code pubsub} (a subscribed client), Redis' classes
     */
    record Peer(long id, String addr, String laddr, String type, String user) {
    }

    /** @return every client connection, replicas' included */
    default List<Peer> peers() {
        return List.of();
    }

    /** Resets the statistics {@code INFO} reports ({@code CONFIG RESETSTAT}); statistics it does not keep stay. */
    default void resetStats() {
    }

    /** @return the primary this node follows, or null on a primary */
    String upstream();

    /**
     * {@code CLIENT UNBLOCK}: see {@link tandem.api.node.Node#unblock}; called as the command runs on the node's
     * logic thread.
     *
     * @return whether the client was parked in {@code WAIT} or a blocking command
     */
    default boolean unblock(long clientId, boolean error) {
        return false;
    }

    /** {@code CLIENT PAUSE}: see {@link tandem.api.node.Node#pause}; as the command runs on the logic thread. */
    default void pause(long millis, boolean writesOnly) {
    }

    /** {@code CLIENT UNPAUSE}: see {@link tandem.api.node.Node#unpause}. */
    default void unpause() {
    }

    /** @return the ack policy the response gate enforces */
    tandem.api.replication.AckPolicy ackPolicy();

    /** @return what each replication protocol reports */
    List<tandem.api.replication.ReplicationStatus> replicationStatuses();

    /**
     * @return per replication protocol that has transports, which it uses and why not a preferred one (the
     *         {@code transport:} line of {@code repl:status}), for {@code INFO replication}
     */
    default java.util.Map<String, String> replicationTransports() {
        return java.util.Map.of();
    }

    /** @return the password of {@code requirepass}, or null when none is set */
    String requirePass();

    /** @return the node's ACL users and log */
    tandem.server.acl.Acl acl();

    /** @return the ACL file ({@code aclfile}) that {@code ACL LOAD} and {@code ACL SAVE} use, or null when none */
    default java.nio.file.Path aclFile() {
        return null;
    }

    /** @return the psync protocol's primary side, or null while {@code tandem.psync} is not active */
    tandem.api.replication.PsyncService psyncService();

    /** @return the operator actions of a replication protocol ({@code journal}, {@code psync}), or null */
    tandem.api.replication.ReplicationControl replicationControl(String protocol);

    /** @return the protocol through which this node follows its primary, or null on a primary */
    String upstreamProtocol();

    /**
     * @return the psync replication offset after a journal sequence (what a replica that acknowledged
     *         {@code sequence} holds), or -1 when the journal does not retain it
     */
    long offsetAfter(long sequence);

    /** @return the psync offset at the start of the retained journal (the backlog's floor), 0 without a journal */
    long backlogStart();

    /** @return the failover group this node is a member of, or null when it is in none */
    default tandem.api.failover.FailoverGroup failoverGroup() {
        return null;
    }

    /** @return the node's checkpoints ({@code SAVE}, {@code BGSAVE}), or null while {@code tandem.checkpoint} is not active */
    default tandem.api.checkpoint.Checkpoints checkpoints() {
        return null;
    }

    /** @return the node's backups ({@code SAVE}, {@code BGSAVE}), or null while they are not active */
    default tandem.api.checkpoint.Backups backups() {
        return null;
    }

    /** @return the state of {@code SAVE}/{@code BGSAVE}, for {@code LASTSAVE} and {@code INFO persistence} */
    default Saves saves() {
        return null;
    }

    /** @return the quorum fence, or null while {@code tandem.fencing} is not active */
    default tandem.api.fencing.QuorumFenceStatus quorumFence() {
        return null;
    }

    /** @return the split-brain audit of tandem.fencing, or null when it is not active */
    default tandem.api.fencing.SplitBrainAudit splitBrainAudit() {
        return null;
    }

    /** @return what client {@code id} is subscribed to, or null when it is not connected */
    default tandem.server.pubsub.Subscriptions subscriptions(long id) {
        return null;
    }

    /** @return the node's Pub/Sub subscribers, or null where there is none */
    default tandem.server.pubsub.PubSubRegistry pubsub() {
        return null;
    }

    /** @return the command statistics, slow log and latency events of the node */
    CommandMonitor monitor();

    /** @return the clients parked in {@code WAIT} now ({@code INFO}'s {@code blocked_clients}) */
    int blockedClients();

    /**
     * @return true while an installed snapshot waits for the journal of its history, when keyspace commands are
     *         answered {@code -LOADING} ({@code INFO}'s {@code loading})
     */
    boolean loading();

    /**
     * @return a new client of the node core for the server's own requests ({@code MIGRATE}), to be closed after
     *         use; null where no node core runs commands
     */
    default InternalClient internalClient() {
        return null;
    }
}
