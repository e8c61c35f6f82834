package tandem.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;

import tandem.api.tls.TlsMaterial.ClientAuth;

/**
 * One loaded set of TLS material: the server identity, the identity this node presents on outgoing links, and the
 * CAs it trusts, checked before it is used (each key is its certificate's, no certificate is expired or not yet
 * valid, every cipher is known to the provider). Immutable: a reload makes a new one.
 */
final class Material {

    private static final char[] NO_PASSWORD = new char[0];

    final TlsSettings settings;
    final X509Certificate[] chain;
    final PrivateKey key;
    final List<X509Certificate> cas;
    final String providerName;
    private final SSLContext server;
    private final SSLContext client;
    final javax.net.ssl.X509ExtendedKeyManager keyManager;
    final javax.net.ssl.X509ExtendedTrustManager trustManager;
    private final String[] protocols;
    private final String[] suites;

    private Material(TlsSettings settings, X509Certificate[] chain, PrivateKey key, List<X509Certificate> cas,
            Managers server, Managers client, String[] protocols, String[] suites) {
        this.settings = settings;
        this.chain = chain;
        this.key = key;
        this.cas = cas;
        this.server = server.context();
        this.client = client.context();
        this.keyManager = server.keys();
        this.trustManager = server.trust();
        this.protocols = protocols;
        this.suites = suites;
        this.providerName = this.server.getProvider().getName();
    }

    /**
     * @param jsse the JSSE provider, or null for the JDK's default
     * @throws IOException              naming the file that does not load and why
     * @throws GeneralSecurityException when the JSSE provider refuses the material
     */
    static Material load(TlsSettings s, Provider jsse) throws IOException, GeneralSecurityException {
        X509Certificate[] chain = Pem.certificates(s.certFile()).toArray(X509Certificate[]::new);
        PrivateKey key = Pem.privateKey(s.keyFile(), s.keyFilePass());
        check(s.certFile().toString(), chain, key);
        X509Certificate[] clientChain = chain;
        PrivateKey clientKey = key;
        if (s.clientCertFile() != null) {
            clientChain = Pem.certificates(s.clientCertFile()).toArray(X509Certificate[]::new);
            clientKey = Pem.privateKey(s.clientKeyFile(), s.clientKeyFilePass());
            check(s.clientCertFile().toString(), clientChain, clientKey);
        }
        List<X509Certificate> cas = new ArrayList<>();
        if (s.caCertFile() != null) {
            cas.addAll(Pem.certificates(s.caCertFile()));
        }
        if (s.caCertDir() != null) {
            if (!Files.isDirectory(s.caCertDir())) {
                throw new IOException(s.caCertDir() + " is not a directory");
            }
            cas.addAll(Pem.directory(s.caCertDir()));
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        for (int i = 0; i < cas.size(); i++) {
            trust.setCertificateEntry("ca-" + i, cas.get(i));
        }
        Managers server = context(jsse, chain, key, trust);
        Managers client = context(jsse, clientChain, clientKey, trust);
        String[] protocols = s.served().toArray(String[]::new);
        String[] suites = suites(s, server.context());
        return new Material(s, chain, key, List.copyOf(cas), server, client, protocols, suites);
    }

    SSLEngine serverEngine(ClientAuth auth) {
        SSLEngine engine = server.createSSLEngine();
        engine.setUseClientMode(false);
        configure(engine);
        switch (auth) {
            case YES -> engine.setNeedClientAuth(true);
            case OPTIONAL -> engine.setWantClientAuth(true);
            case NO -> engine.setNeedClientAuth(false);
        }
        return engine;
    }

    SSLEngine clientEngine(String host, int port) {
        SSLEngine engine = client.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        configure(engine);
        return engine;
    }

    javax.net.ssl.SSLSocket clientSocket(java.net.Socket connected, String host, int port) throws IOException {
        javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) client.getSocketFactory()
                .createSocket(connected, host, port, true);
        socket.setUseClientMode(true);
        socket.setEnabledProtocols(protocols);
        if (suites != null) {
            socket.setEnabledCipherSuites(suites);
        }
        socket.startHandshake();
        return socket;
    }

    private void configure(SSLEngine engine) {
        engine.setEnabledProtocols(protocols);
        if (suites != null) {
            engine.setEnabledCipherSuites(suites);
        }
    }

    /** @return the key store ({@code key}: this node's identity) as a PKCS#12 store under {@code password} */
    KeyStore keyStore(char[] password) throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("tandem", key, password, chain);
        return ks;
    }

    /** @return the CAs as a PKCS#12 trust store */
    KeyStore trustStore() throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        for (int i = 0; i < cas.size(); i++) {
            ks.setCertificateEntry("ca-" + i, cas.get(i));
        }
        return ks;
    }

    String fingerprint() {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(chain[0].getEncoded()));
        } catch (GeneralSecurityException e) {
            return "";
        }
    }

    /** A TLS context with the key and trust managers it was made of. */
    private record Managers(SSLContext context, javax.net.ssl.X509ExtendedKeyManager keys,
            javax.net.ssl.X509ExtendedTrustManager trust) {
    }

    private static Managers context(Provider jsse, X509Certificate[] chain, PrivateKey key, KeyStore trust)
            throws GeneralSecurityException, IOException {
        KeyStore identity = KeyStore.getInstance("PKCS12");
        identity.load(null, null);
        identity.setKeyEntry("tandem", key, NO_PASSWORD, chain);
        KeyManagerFactory kmf = jsse == null ? KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm())
                : KeyManagerFactory.getInstance("PKIX", jsse);
        kmf.init(identity, NO_PASSWORD);
        TrustManagerFactory tmf = jsse == null
                ? TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm())
                : TrustManagerFactory.getInstance("PKIX", jsse);
        tmf.init(trust);
        SSLContext ctx = jsse == null ? SSLContext.getInstance("TLS") : SSLContext.getInstance("TLS", jsse);
        ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return new Managers(ctx, (javax.net.ssl.X509ExtendedKeyManager) kmf.getKeyManagers()[0],
                (javax.net.ssl.X509ExtendedTrustManager) tmf.getTrustManagers()[0]);
    }

    /**
     * Refuses a certificate that is expired or not valid yet, and a key that is not the certificate's: a signature
     * made with the key must verify with the certificate's public key. Without this a wrong key file would load and
     * fail every handshake instead.
     */
    private static void check(String file, X509Certificate[] chain, PrivateKey key) throws IOException {
        X509Certificate leaf = chain[0];
        try {
            leaf.checkValidity();
        } catch (CertificateExpiredException e) {
            throw new IOException(file + ": the certificate expired on " + leaf.getNotAfter().toInstant());
        } catch (CertificateNotYetValidException e) {
            throw new IOException(file + ": the certificate is not valid before " + leaf.getNotBefore().toInstant());
        }
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "Ed448" -> "Ed448";
            default -> null;
        };
        if (algorithm == null) {
            throw new IOException(file + ": keys of type " + key.getAlgorithm() + " are not served (RSA, EC, Ed25519)");
        }
        try {
            byte[] probe = "tandem key check".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(leaf.getPublicKey());
            verify.update(probe);
            if (!verify.verify(signature)) {
                throw new IOException(file + ": the key file's key is not this certificate's key");
            }
        } catch (GeneralSecurityException e) {
            throw new IOException(file + ": the key file's key is not this certificate's key (" + e.getMessage() + ")");
        }
    }

    /** @return the configured suites, each checked against the provider's, or null for the provider's defaults */
    private static String[] suites(TlsSettings s, SSLContext ctx) throws IOException {
        if (s.ciphers().isEmpty() && s.ciphersuites().isEmpty()) {
            return null;
        }
        Set<String> supported = Set.of(ctx.getSupportedSSLParameters().getCipherSuites());
        Set<String> wanted = new LinkedHashSet<>();
        wanted.addAll(s.ciphersuites());
        wanted.addAll(s.ciphers());
        for (String suite : wanted) {
            if (!supported.contains(suite)) {
                throw new IOException("cipher suite " + suite + " is not known to " + ctx.getProvider().getName()
                        + " (use the IANA names, as TLS_AES_128_GCM_SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)");
            }
        }
        // tls-ciphers names TLS 1.2 suites and tls-ciphersuites TLS 1.3 ones, as in Redis: a list left empty keeps the
        // provider's defaults for its protocol version
        for (String suite : ctx.getDefaultSSLParameters().getCipherSuites()) {
            boolean v13 = suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_");
            if (v13 ? s.ciphersuites().isEmpty() && s.served().contains("TLSv1.3")
                    : s.ciphers().isEmpty() && s.served().contains("TLSv1.2")) {
                wanted.add(suite);
            }
        }
        return wanted.toArray(String[]::new);
    }
}
