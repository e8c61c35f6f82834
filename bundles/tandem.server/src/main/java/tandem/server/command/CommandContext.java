package tandem.server.command;

import tandem.server.resp.RespWriter;

/** What a command may touch while it runs: its connection, its reply, the server. */
public interface CommandContext {

    /** @return the connection's state */
    ClientSession session();

    /** @return where the reply goes; write exactly one reply per command */
    RespWriter reply();

    /** @return the server the connection belongs to */
    ServerContext server();

    /** @return the command table, for {@code COMMAND} */
    CommandTable table();

    /** @return what the connection is subscribed to, or null where it cannot subscribe */
    default tandem.server.pubsub.Subscriptions subscriptions() {
        return null;
    }

    /** Closes the connection once the replies written so far have been flushed. */
    void closeAfterReply();

    /**
     * Finishes the command off the thread that runs commands: {@code work} runs on another thread, and what it
     * returns ({@code +OK}, {@code -ERR …}, a RESP simple string or error line without CRLF) becomes the reply.
     * The connection's later commands wait for it. For commands that wait for another component (REPLICAOF).
     */
    default void later(java.util.function.Supplier<String> work) {
        replyLine(reply(), work.get());
    }

    /** Writes {@code +text} or {@code -error} as the reply. */
    static void replyLine(RespWriter reply, String line) {
        if (line.startsWith("-")) {
            reply.error(line.substring(1));
        } else {
            reply.simple(line.startsWith("+") ? line.substring(1) : line);
        }
    }

    /**
     * @return the connection as a raw link for the psync protocol, with the replies written so far sent first
     * @throws UnsupportedOperationException where the connection cannot be handed over
     */
    default tandem.api.replication.PsyncLink psyncLink() {
        throw new UnsupportedOperationException("this connection cannot be handed to the psync protocol");
    }

    /** @return the psync session the connection was handed to, or null for a client */
    default tandem.api.replication.PsyncSession psync() {
        return null;
    }

    /** Hands the connection to a psync session: what the peer sends from now on goes to {@code session}. */
    default void handOff(tandem.api.replication.PsyncSession session) {
        throw new UnsupportedOperationException("this connection cannot be handed to the psync protocol");
    }
}
