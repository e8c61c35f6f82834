package tandem.api.node;

import java.util.function.Supplier;

import org.osgi.annotation.versioning.ConsumerType;

import tandem.api.store.Reply;

/**
 * The front end's side of one client, called by the node core on its logic thread only: where the client's replies
 * are written, how they leave, and how the front end's own commands run.
 */
@ConsumerType
public interface NodeClient {

    /** @return the client's id, for logs */
    long id();

    /** @return where the next reply is written; exactly one reply per request */
    Reply reply();

    /** @return where the reply written next begins, for {@link #resetReply} */
    int replyMark();

    /** Takes back what was written after {@code mark}: a reply begun by a request that then failed. */
    void resetReply(int mark);

    /** @return how many error replies this client has been written, to tell a failed call */
    long errorReplies();

    /**
     * Runs a command of the front end's table ({@link tandem.api.store.Command#isFrontend()}), or answers an unknown
     * one, at its turn: its reply goes to {@link #reply()}.
     *
     * @return work that finishes the command off the logic thread ({@code REPLICAOF} waits for replication), whose
     *         result ({@code +OK} or {@code -ERR …}) becomes the reply; the client's later requests wait for it.
     *         Null when the command answered.
     */
    Supplier<String> run(tandem.api.store.Command command);

    /**
     * Checks a command of the front end's table sent inside {@code MULTI}, as Redis checks it when it queues it: an
     * unknown subcommand, a wrong number of arguments, or a command not allowed in a transaction.
     *
     * @return the error that refuses it (and makes {@code EXEC} abort), or null when it may be queued; it then
     *         {@link #run runs} at {@code EXEC}, in its place, and must answer without work for later
     * @since 3.0
     */
    default String queueable(tandem.api.store.Command command) {
        return "ERR '" + command.name() + "' is not supported inside a transaction by Tandem";
    }

    /** Closes the connection once the replies written so far have been sent. */
    void closeAfterReply();

    /**
     * The replies written so far may leave: the ack policy holds for every write among them. The front end sends
     * them at {@link Frontend#roundEnd()}.
     */
    void due();

    /** Sends the replies written so far now (the node is shutting down). */
    void flush();

    /** {@code command}, given to {@link NodeSession#request}, ran or was dropped: the node holds it no longer. */
    void released(tandem.api.store.Command command);
}
