package tandem.api.node;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One client's requests into the node core, called in the order they arrived on the client's connection (from one
 * thread at a time, the connection's I/O thread). What is given between two {@link #flush()} calls reaches the node
 * core together: a front end calls it at the end of each read from the connection, so that a pipelined batch costs
 * one hand-over to the logic thread, not one per request.
 */
@ProviderType
public interface NodeSession {

    /**
     * A decoded request, resolved ({@link Node#resolve}, or the front end's own table). The node takes ownership of
     * it. Executed at its turn, once handed over ({@link #flush()}); a command that is not the keyspace's runs
     * through {@link NodeClient#run}.
     */
    void request(tandem.api.store.Command command);

    /**
     * Hands what was given since the last call ({@link #request}, {@link #refuse}, {@link #fail}) to the node core.
     * Nothing given is executed before it is flushed.
     *
     * @since 2.0
     */
    void flush();

    /**
     * A request the front end refuses ({@code NOAUTH}): answered {@code -error} at its turn, in order with the
     * client's other replies; inside {@code MULTI} it makes {@code EXEC} abort, as a refused command does.
     */
    void refuse(tandem.api.store.Command command, String error);

    /**
     * The client's input cannot be decoded: answered {@code -error} at its turn (nothing when {@code error} is
     * null), then the connection closes ({@link NodeClient#closeAfterReply()}); nothing it sent later runs.
     */
    void fail(String error);

    /** The connection closed (what was given before is flushed first): whatever the node holds for it is released. */
    void closed();
}
