package tandem.api.transport;

import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;

import org.osgi.annotation.versioning.ProviderType;

/** A way to carry length-prefixed frames between nodes; registered by a transport bundle. */
@ProviderType
public interface FrameTransport {

    /** @return a short name for status and logs ({@code "tcp"}); the replication protocol chooses by it */
    String name();

    /**
     * @return null when the transport can carry links; otherwise why it cannot here (its native part is missing,
     *         its environment failed to start), which the replication protocol reports while it uses another
     * @since 1.1
     */
    default String unavailableReason() {
        return null;
    }

    /**
     * @return what the transport counted (frames, retransmissions, drops by cause), by name, for status output
     * @since 1.1
     */
    default Map<String, Long> counters() {
        return Map.of();
    }

    /**
     * Starts accepting links. The listener never blocks a shutdown: closing it (or stopping the transport bundle)
     * releases the port at once and closes every link it accepted.
     *
     * @param bindAddress  a literal IP address (no name lookup is done)
     * @param port         the port, 0 for any free one
     * @param maxFrame     the largest payload accepted on these links, in bytes
     * @param sessions     makes the session of each accepted link; called on a transport thread
     * @throws IOException when the port cannot be bound
     */
    FrameListener listen(String bindAddress, int port, int maxFrame, Supplier<FrameSession> sessions)
            throws IOException;

    /**
     * Opens a link, asynchronously: {@link FrameSession#opened} follows on success, {@link FrameSession#closed}
     * with the reason on failure.
     *
     * @param host           a literal IP address (no name lookup is done)
     * @param connectMillis  how long the connection attempt may take
     */
    void connect(String host, int port, int maxFrame, int connectMillis, FrameSession session);
}
