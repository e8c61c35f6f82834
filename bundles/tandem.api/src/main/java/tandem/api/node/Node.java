package tandem.api.node;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import tandem.api.journal.ArchiveStatus;
import tandem.api.journal.JournalStatus;
import tandem.api.replication.AckPolicy;
import tandem.api.store.CommandDescriptor;
import tandem.api.store.StoreStatus;

/**
 * The node core as its front end sees it: where clients are opened, and what {@code INFO} reports of it.
 *
 * <p>Requests of one client are executed in the order its session was given them; requests of different clients in
 * the order they reached the node. Replies are written to the client's {@link NodeClient#reply()} on the node's
 * logic thread and handed back with {@link NodeClient#due()} once the ack policy holds for them.
 */
@ProviderType
public interface Node {

    /**
     * Attaches the front end: its {@link Frontend#roundEnd()} sends the replies of each round and it is told about
     * each command run. One front end at a time; attaching another replaces it.
     */
    void attach(Frontend frontend);

    /** Detaches {@code frontend} when it is the one attached; replication's entries are still applied. */
    void detach(Frontend frontend);

    /** Opens a client: what it sends goes to the returned session, its replies to {@code client.reply()}. */
    NodeSession open(NodeClient client);

    /**
     * @return the keyspace commands of the bound store; while none is bound, those of the store bundle's {@link
     *         tandem.api.store.CommandCatalogue} (empty when that is absent too)
     */
    List<CommandDescriptor> commands();

    /**
     * @return the bound store's command named {@code name} (lower case), or while none is bound the catalogue's, or
     *         null
     */
    CommandDescriptor describe(String name);

    /**
     * Resolves a client's request against the bound store's commands, once ({@link
     * tandem.api.store.Keyspace#resolve}); thread-safe, called by the front end as it decodes.
     *
     * @return the keyspace command, or null when the store has none of that name (or none is bound, or the name is
     *         one only the node may journal)
     * @since 2.0
     */
    tandem.api.store.Command resolve(byte[][] args);

    /**
     * Refuses writes, before they are sequenced, with {@code -NOREPLICAS} while fewer than {@code replicas}
     * replicas are good (0: never); a replica is good when it acknowledged within {@code maxLagMillis} (0: any
     * connected replica) or has nothing left to acknowledge. Redis' {@code min-replicas-to-write}; the first
     * {@link tandem.api.server.WriteAdmission} asked.
     */
    void minReplicasToWrite(int replicas, long maxLagMillis);

    /** @return the last sequence the bound store applied, 0 while none is bound */
    long appliedSequence();

    /**
     * @return true while an installed snapshot waits for the journal of its history, when keyspace commands are
     *         answered {@code -LOADING} ({@code INFO}'s {@code loading})
     */
    boolean loading();

    /**
     * @return null once this node is ready to serve its keyspace: its store has replayed the journal, its role is
     *         settled (a replication protocol declared it, or the wait for one ended) and applying has not stopped;
     *         otherwise why not, for a person ({@code replaying the journal: 1200 of 50000 entries}), as
     *         {@code /ready}, {@code server:status} and {@code INFO}'s {@code loading} report it
     * @since 1.1
     */
    default String notReady() {
        return loading() ? "loading a snapshot" : null;
    }

    /** @return the clients parked in {@code WAIT} now ({@code INFO}'s {@code blocked_clients}) */
    int blockedClients();

    /** @return why applying journal entries stopped (writes are refused meanwhile), or null */
    String applyStopped();

    /** @return the primary this node follows, or null on a primary */
    String upstream();

    /** @return the protocol through which this node follows its primary, or null on a primary */
    String upstreamProtocol();

    /** @return the ack policy the response gate enforces */
    AckPolicy ackPolicy();

    /** @return the journal's state, or null while no journal is bound */
    JournalStatus journalStatus();

    /**
     * @return the journal archive's state, or null while no journal is bound or it archives nothing
     * @since 3.3
     */
    default ArchiveStatus archiveStatus() {
        return null;
    }

    /** @return the store's state, or null while no store is bound */
    StoreStatus storeStatus();

    /**
     * @return the psync replication offset after a journal sequence (what a replica that acknowledged
     *         {@code sequence} holds), or -1 when the journal does not retain it or none is bound
     */
    long offsetAfter(long sequence);

    /** @return the psync offset at the start of the retained journal (the backlog's floor), 0 without a journal */
    long backlogStart();

    /**
     * {@code CLIENT PAUSE}: for {@code millis} from now, every client's next command waits ({@code writesOnly}: one
     * that writes or propagates), with what the client sends after it, and no key expires; replaces a pause in
     * force. Called on the node's logic thread (by a front-end command as it runs).
     *
     * @since 3.0
     */
    default void pause(long millis, boolean writesOnly) {
    }

    /** {@code CLIENT UNPAUSE}: ends the pause in force; on the node's logic thread. @since 3.0 */
    default void unpause() {
    }

    /**
     * {@code CLIENT UNBLOCK}: answers the client whose {@link NodeClient#id()} is {@code clientId}, if it is parked in
     * {@code WAIT} or a blocking command, as its timeout would ({@code error} false) or with {@code -UNBLOCKED client
     * unblocked via CLIENT UNBLOCK}. Called on the node's logic thread (by a front-end command as it runs).
     *
     * @return whether such a client was parked
     * @since 3.0
     */
    default boolean unblock(long clientId, boolean error) {
        return false;
    }

    /**
     * @return how long, in milliseconds, the script running now on the logic thread has been running; -1 when none
     *         runs. Read on the front end's threads, which answer {@code BUSY} past {@code busy-reply-threshold}.
     * @since 3.1
     */
    default long scriptRunningMillis() {
        return -1;
    }

    /**
     * {@code SCRIPT KILL} from the front end's thread, while the logic thread runs the script.
     *
     * @return null when the running script was asked to stop; otherwise the error to answer
     * @since 3.1
     */
    default String killScript() {
        return killScript(false);
    }

    /**
     * {@code SCRIPT KILL} ({@code function} false) or {@code FUNCTION KILL} (true) from the front end's thread.
     *
     * @return null when what runs was asked to stop; otherwise the error to answer
     * @since 3.2
     */
    default String killScript(boolean function) {
        return "NOTBUSY No scripts in execution right now.";
    }

    /**
     * @return whether what runs now is a function, whose {@code BUSY} names {@code FUNCTION KILL}
     * @since 3.2
     */
    default boolean functionRunning() {
        return false;
    }
}
