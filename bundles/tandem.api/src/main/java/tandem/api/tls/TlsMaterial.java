package tandem.api.tls;

import java.security.KeyStore;
import java.util.Map;

import javax.net.ssl.SSLEngine;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The node's certificates, keys and trusted CAs, kept current by the TLS component: a change of the configuration
 * or of the files reloads them, and each new connection takes the material loaded when it opens, so that existing
 * connections are never touched by a rotation. Material that does not load (a missing file, a key that is not the
 * certificate's, an expired certificate) is refused with a logged reason and the previous material stays.
 *
 * <p>Only the configured CAs are trusted ({@code tls-ca-cert-file}, {@code tls-ca-cert-dir}), never the JDK's
 * store: a peer's certificate is its identity within the cluster. Host names are not verified (peers are named by
 * IP literals), as in Redis.
 */
@ProviderType
public interface TlsMaterial {

    /** Whether a peer connecting to this node must present a certificate (Redis' {@code tls-auth-clients}). */
    enum ClientAuth {
        /** No certificate is asked for. */
        NO,
        /** A certificate is asked for; a client without one is served, one with an untrusted one is refused. */
        OPTIONAL,
        /** A certificate chained to a trusted CA is required. */
        YES
    }

    /** @return whether a certificate and its key are loaded, so that engines can be made */
    boolean ready();

    /**
     * @param auth what the peer must present; node-to-node ports pass {@link ClientAuth#YES}
     * @return a new server-side engine over the current material
     * @throws IllegalStateException when no material is loaded, with the reason
     */
    SSLEngine serverEngine(ClientAuth auth);

    /**
     * @param host the peer's address, for the handshake's session cache only
     * @param port the peer's port
     * @return a new client-side engine presenting the client certificate ({@code tls-client-cert-file}, else the
     *         server's) and trusting the configured CAs
     * @throws IllegalStateException when no material is loaded, with the reason
     */
    SSLEngine clientEngine(String host, int port);

    /**
     * Layers TLS over a connected socket, for links written on blocking sockets (the psync replica's), and runs the
     * handshake within the socket's read timeout.
     *
     * @param connected the plain socket, connected; closing the returned socket closes it
     * @return the TLS socket, its handshake done, presenting the client certificate and trusting the configured CAs
     * @throws java.io.IOException when the handshake fails (the peer refused the certificate, or presented one no
     *                             configured CA issued), or no material is loaded
     */
    java.net.Socket clientSocket(java.net.Socket connected, String host, int port) throws java.io.IOException;

    /**
     * For TLS stacks built elsewhere (the failover group's gRPC): a key manager that presents the certificate loaded
     * when each handshake runs, so that a rotation reaches them too.
     *
     * @return the node's key manager, following reloads
     */
    javax.net.ssl.X509ExtendedKeyManager keyManager();

    /** @return a trust manager over the configured CAs loaded when each handshake runs, following reloads */
    javax.net.ssl.X509ExtendedTrustManager trustManager();

    /** @return what clients of the RESP TLS port must present ({@code tls-auth-clients}) */
    ClientAuth clientAuth();

    /** @return whether a psync replica connects to its primary over TLS ({@code tls-replication}) */
    boolean replication();

    /**
     * For listeners that take their TLS from a key store (the health endpoint's Jetty): the current certificate,
     * its chain and key in a PKCS#12 store, and the CAs in another.
     *
     * @param password protects the stores' entries
     * @return the key store ({@code "key"}) and the trust store ({@code "trust"})
     * @throws IllegalStateException when no material is loaded
     */
    Map<String, KeyStore> keyStores(char[] password);

    /** @return a number that changes whenever other material is loaded, so that a key store's user can follow */
    long generation();

    /**
     * @return Redis' TLS parameters ({@code tls-cert-file}, {@code tls-auth-clients} …) with their running values,
     *         for {@code CONFIG GET}
     */
    Map<String, String> parameters();

    /**
     * Changes TLS parameters at run time ({@code CONFIG SET}), all or nothing: the changed material is loaded
     * first, and nothing changes when it does not load. Lasts until the component's configuration next changes.
     *
     * @param changes parameter names as {@link #parameters()} gives them, with their new values
     * @return null when applied, otherwise why not
     */
    String set(Map<String, String> changes);

    /** @return what is loaded, for {@code INFO}, the shell and the logs */
    TlsStatus status();
}
