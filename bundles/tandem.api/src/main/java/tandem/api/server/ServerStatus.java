package tandem.api.server;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Live view of the RESP server of this node.
 *
 * <p>Registered by the server bundle while it is active. Every method is cheap and safe to call from any
 * thread; the values are a snapshot and may change right after the call returns.
 */
@ProviderType
public interface ServerStatus {

    /** @return the address the RESP listener is bound to, as configured (for example {@code 127.0.0.1}) */
    String bindAddress();

    /**
     * @return the TCP port the plain-text RESP listener is bound to (the actual port when 0 was configured); on a
     *         node that serves TLS only, the TLS port; -1 while it is not listening (its address could not be
     *         bound; the log says why)
     */
    int port();

    /**
     * @return the TCP port the TLS RESP listener is bound to, or -1 when there is none
     * @since 1.9
     */
    default int tlsPort() {
        return -1;
    }

    /** @return the I/O transport in use: {@code epoll} or {@code nio} */
    String transport();

    /** @return the configured maximum number of simultaneously connected clients */
    int maxClients();

    /** @return the number of clients connected now */
    int connectedClients();

    /** @return the total number of connections accepted since the server started */
    long totalConnections();

    /** @return one entry per connected client, ordered by client id */
    List<ClientInfo> clients();

    /**
     * @return why this node stopped applying journal entries, or null while it applies them. While stopped (an
     *         entry failed to apply: a bug, or the store refusing a write), writes are refused, reads go on, and
     *         nothing after that entry is applied until the store is bound again or the node restarts
     */
    String applyStopped();

    /**
     * @return null when the node is ready to serve its keyspace, else why not ({@link tandem.api.node.Node#notReady})
     * @since 1.4
     */
    default String notReady() {
        return null;
    }

    /**
     * Closes one client connection.
     *
     * @param id the client id as reported by {@link ClientInfo#id()} and {@code CLIENT ID}
     * @return true if a client with that id was connected and is now being closed
     */
    boolean kill(long id);
}
