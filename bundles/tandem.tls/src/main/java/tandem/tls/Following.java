package tandem.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Key and trust managers that ask the current material at every call, for TLS stacks Tandem does not build its
 * engines for (Ratis' gRPC makes its own from a key and a trust manager): a reload reaches their next handshake.
 */
final class Following {

    private Following() {
    }

    static X509ExtendedKeyManager keys(Supplier<Material> current) {
        return new X509ExtendedKeyManager() {
            private X509ExtendedKeyManager m() {
                return current.get().keyManager;
            }

            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return m().getClientAliases(keyType, issuers);
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return m().chooseClientAlias(keyType, issuers, socket);
            }

            @Override
            public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
                return m().chooseEngineClientAlias(keyType, issuers, engine);
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return m().getServerAliases(keyType, issuers);
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return m().chooseServerAlias(keyType, issuers, socket);
            }

            @Override
            public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
                return m().chooseEngineServerAlias(keyType, issuers, engine);
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                return m().getCertificateChain(alias);
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                return m().getPrivateKey(alias);
            }
        };
    }

    static X509ExtendedTrustManager trust(Supplier<Material> current) {
        return new X509ExtendedTrustManager() {
            private X509ExtendedTrustManager m() {
                return current.get().trustManager;
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                    throws CertificateException {
                m().checkClientTrusted(chain, authType, socket);
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                    throws CertificateException {
                m().checkServerTrusted(chain, authType, socket);
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                    throws CertificateException {
                m().checkClientTrusted(chain, authType, engine);
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                    throws CertificateException {
                m().checkServerTrusted(chain, authType, engine);
            }

            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                m().checkClientTrusted(chain, authType);
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                m().checkServerTrusted(chain, authType);
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return m().getAcceptedIssuers();
            }
        };
    }
}
