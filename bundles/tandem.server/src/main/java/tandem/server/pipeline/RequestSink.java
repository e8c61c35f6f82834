package tandem.server.pipeline;

/** Where a connection's event loop hands each decoded request, in arrival order. */
public interface RequestSink {

    /** A connection opened; its requests follow. */
    default void opened(Connection connection) {
    }

    /** A decoded {@code RespRequest} or {@code RespProtocolError}. */
    void submit(Connection connection, Object message);

    /** The end of one read from the socket: a good moment to send the replies produced so far. */
    void readComplete(Connection connection);

    /** The connection closed; release what the sink holds for it. */
    void closed(Connection connection);
}
