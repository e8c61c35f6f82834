package tandem.system;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import tandem.testsupport.TestPki;

/**
 * How a test connects to a node's TLS port: the CA it trusts and, optionally, the client certificate it presents
 * ({@link TestPki}'s PEM files). Gives the same identity to redis-cli ({@code --tls --cacert …}), to Java sockets,
 * and to Jedis and Lettuce through {@link #context()}.
 */
public record TlsClient(Path ca, TestPki.Issued identity) {

    /** @return a client that trusts {@code ca} and presents no certificate */
    public static TlsClient anonymous(Path ca) {
        return new TlsClient(ca, null);
    }

    /**
     * @return {@code bin/tandem} arguments that give a node {@code identity} and make it trust {@code ca}, checking
     *         its files every 200 ms
     */
    public static List<String> nodeArgs(TestPki.Issued identity, Path ca, String... more) {
        List<String> args = new ArrayList<>(List.of("--config", "tandem.tls:cert.file=" + identity.cert(),
                "--config", "tandem.tls:key.file=" + identity.key(), "--config", "tandem.tls:ca.cert.file=" + ca,
                "--config", "tandem.tls:reload.interval.ms=200"));
        for (String m : more) {
            args.add("--config");
            args.add(m);
        }
        return args;
    }

    public List<String> redisCliArgs() {
        List<String> args = new ArrayList<>(List.of("--tls", "--cacert", ca.toString()));
        if (identity != null) {
            args.addAll(List.of("--cert", identity.cert().toString(), "--key", identity.key().toString()));
        }
        return args;
    }

    /** @return a JDK TLS context that trusts the CA and presents the identity (PKCS#8 EC keys, as TestPki writes) */
    public SSLContext context() {
        try {
            CertificateFactory x509 = CertificateFactory.getInstance("X.509");
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            try (InputStream in = Files.newInputStream(ca)) {
                trust.setCertificateEntry("ca", x509.generateCertificate(in));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (identity != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                Certificate cert;
                try (InputStream in = Files.newInputStream(identity.cert())) {
                    cert = x509.generateCertificate(in);
                }
                String pem = Files.readString(identity.key(), StandardCharsets.US_ASCII)
                        .replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
                PrivateKey key = KeyFactory.getInstance("EC")
                        .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
                keys.setKeyEntry("client", key, new char[0], new Certificate[] {cert});
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, new char[0]);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the client's TLS context: " + e.getMessage(), e);
        }
    }

    /** @return a connected TLS socket, its handshake done */
    public SSLSocket connect(String host, int port) throws IOException {
        Socket plain = new Socket();
        plain.connect(new InetSocketAddress(host, port), 2000);
        plain.setSoTimeout(10_000);
        SSLSocket s = (SSLSocket) context().getSocketFactory().createSocket(plain, host, port, true);
        s.startHandshake();
        return s;
    }

    /** Sends {@code request} and reads until the reply goes quiet for {@code quiet} or the peer closes. */
    public String exchange(String host, int port, String request, Duration quiet) throws IOException {
        try (SSLSocket s = connect(host, port)) {
            return TandemNode.exchange(s, request.getBytes(StandardCharsets.ISO_8859_1), quiet).reply();
        }
    }
}
