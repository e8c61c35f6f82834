package tandem.api.replication;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The psync protocol's side of a handed-over connection. The server calls these one at a time, on the connection's
 * thread, in order; they must not block for long.
 */
@ConsumerType
public interface PsyncSession {

    /** A command the replica sent after {@code PSYNC} ({@code REPLCONF ACK <offset>}…), decoded. */
    void command(byte[][] args);

    /** The connection's outbound buffer went below its low-water mark. */
    void writable();

    /** The connection closed; called exactly once. */
    void closed(String reason);
}
