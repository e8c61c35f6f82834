package tandem.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.tls.TlsMaterial.ClientAuth;
import tandem.testsupport.Await;
import tandem.testsupport.TestPki;

@Timeout(60)
class TlsComponentTest {

    @TempDir
    Path home;
    TestPki ca;
    TestPki other;
    TlsComponent tls;
    TlsComponent peer;

    @BeforeEach
    void pki() {
        ca = TestPki.create(home.resolve("pki"), "cluster-ca");
        other = TestPki.create(home.resolve("other"), "other-ca");
    }

    @AfterEach
    void stop() {
        for (TlsComponent c : new TlsComponent[] {tls, peer}) {
            if (c != null) {
                c.deactivate();
            }
        }
    }

    static TlsComponent.Config config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(TlsComponent.Config.class);
    }

    Map<String, Object> node(TestPki pki, String name) {
        TestPki.Issued issued = pki.issue(name);
        Map<String, Object> p = new HashMap<>();
        p.put("cert.file", issued.cert().toString());
        p.put("key.file", issued.key().toString());
        p.put("ca.cert.file", pki.caCert().toString());
        p.put("reload.interval.ms", 50L);
        return p;
    }

    TlsComponent start(Map<String, Object> props) {
        return new TlsComponent(() -> home, config(props));
    }

    @Test
    void mutualHandshakeBetweenTwoNodesOfOneCa() throws Exception {
        tls = start(node(ca, "node-a"));
        peer = start(node(ca, "node-b"));
        SSLEngine server = tls.serverEngine(ClientAuth.YES);
        SSLEngine client = peer.clientEngine("127.0.0.1", 6380);
        handshake(client, server);
        assertThat(server.getSession().getPeerPrincipal().getName()).isEqualTo("CN=node-b");
        assertThat(client.getSession().getPeerPrincipal().getName()).isEqualTo("CN=node-a");
        assertThat(tls.status().subject()).isEqualTo("CN=node-a");
        assertThat(tls.status().cas()).isEqualTo(1);
        assertThat(tls.status().provider()).isEqualTo("SunJSSE");
    }

    @Test
    void aPeerFromAnotherCaOrWithoutCertificateIsRefused() throws Exception {
        tls = start(node(ca, "node-a"));
        peer = start(node(other, "intruder"));
        assertThatThrownBy(() -> handshake(peer.clientEngine("127.0.0.1", 1), tls.serverEngine(ClientAuth.YES)))
                .isInstanceOf(SSLException.class);
        // a client that trusts the cluster's CA but has no certificate of its own
        SSLEngine server = tls.serverEngine(ClientAuth.YES);
        SSLEngine anonymous = tls.clientEngine("127.0.0.1", 1);
        assertThatThrownBy(() -> handshake(anonymousClient(anonymous), server)).isInstanceOf(SSLException.class);
        // optional: served without a certificate
        handshake(anonymousClient(tls.clientEngine("127.0.0.1", 1)), tls.serverEngine(ClientAuth.OPTIONAL));
    }

    @Test
    void anExpiredCertificateOrAForeignKeyDoesNotLoadAndThePreviousMaterialStays() throws Exception {
        Map<String, Object> props = node(ca, "node-a");
        tls = start(props);
        String fingerprint = tls.status().fingerprint();

        TestPki.Issued expired = ca.expired("old");
        Map<String, Object> next = new HashMap<>(props);
        next.put("cert.file", expired.cert().toString());
        next.put("key.file", expired.key().toString());
        tls.modified(config(next));
        assertThat(tls.status().lastError()).contains("the certificate expired on");
        assertThat(tls.status().fingerprint()).isEqualTo(fingerprint);

        TestPki.Issued b = ca.issue("node-b");
        String refused = tls.set(Map.of("tls-key-file", b.key().toString()));
        assertThat(refused).contains("is not this certificate's key");
        assertThat(tls.parameters().get("tls-key-file")).isEqualTo(props.get("key.file"));
        assertThat(tls.status().fingerprint()).isEqualTo(fingerprint);

        assertThat(tls.set(Map.of("tls-auth-clients", "sometimes"))).contains("auth.clients=sometimes is invalid");
        assertThat(tls.set(Map.of("tls-protocols", "TLSv1.1"))).contains("'TLSv1.1' is not TLSv1.2 or TLSv1.3");
        assertThat(tls.set(Map.of("tls-ciphersuites", "TLS_NO_SUCH_SUITE"))).contains("is not known to SunJSSE");
        assertThat(tls.set(Map.of("tls-auth-clients", "optional"))).isNull();
        assertThat(tls.clientAuth()).isEqualTo(ClientAuth.OPTIONAL);
    }

    @Test
    void rewrittenFilesReloadWhileAnEngineMadeBeforeKeepsItsCertificate() throws Exception {
        Map<String, Object> props = node(ca, "node-a");
        tls = start(props);
        peer = start(node(ca, "node-b"));
        SSLEngine before = tls.serverEngine(ClientAuth.YES);
        long generation = tls.generation();

        TestPki.Issued rotated = ca.issue("node-a-rotated");
        Files.copy(rotated.key(), Path.of((String) props.get("key.file") + ".new"));
        Files.copy(rotated.cert(), Path.of((String) props.get("cert.file") + ".new"));
        // the key first: for a moment the pair does not match, which is refused and reported, then the certificate
        Files.move(Path.of(props.get("key.file") + ".new"), Path.of((String) props.get("key.file")),
                StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(Path.of(props.get("cert.file") + ".new"), Path.of((String) props.get("cert.file")),
                StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Await.until("the rotated certificate loads", Duration.ofSeconds(20), () -> tls.status().subject().equals("CN=node-a-rotated"));
        assertThat(tls.generation()).isGreaterThan(generation);

        handshake(peer.clientEngine("127.0.0.1", 1), before);
        assertThat(before.getSession().getLocalPrincipal().getName()).isEqualTo("CN=node-a");
        SSLEngine after = tls.serverEngine(ClientAuth.YES);
        handshake(peer.clientEngine("127.0.0.1", 1), after);
        assertThat(after.getSession().getLocalPrincipal().getName()).isEqualTo("CN=node-a-rotated");
    }

    @Test
    void bouncyCastleJsseServesTheSameHandshake() throws Exception {
        Map<String, Object> props = node(ca, "node-a");
        props.put("provider", "BCJSSE");
        tls = start(props);
        assertThat(tls.status().provider()).isEqualTo("BCJSSE");
        peer = start(node(ca, "node-b"));
        SSLEngine server = tls.serverEngine(ClientAuth.YES);
        handshake(peer.clientEngine("127.0.0.1", 1), server);
        assertThat(server.getSession().getPeerPrincipal().getName()).isEqualTo("CN=node-b");
    }

    @Test
    void withoutACertificateNothingIsServedAndTheReasonIsSaid() {
        tls = start(Map.of());
        assertThat(tls.ready()).isFalse();
        assertThatThrownBy(() -> tls.serverEngine(ClientAuth.NO)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no TLS certificate is configured");
        Map<String, Object> noCa = node(ca, "node-a");
        noCa.remove("ca.cert.file");
        assertThatThrownBy(() -> TlsSettings.of(config(noCa), home))
                .hasMessageContaining("tandem.tls: ca.cert.file= is invalid: a CA");
    }

    /** The server's client mode engine from the same material, with no key managers: a client without a certificate. */
    private SSLEngine anonymousClient(SSLEngine withCertificate) throws Exception {
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509")
                .generateCertificate(Files.newInputStream(ca.caCert())));
        tmf.init(trust);
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        SSLEngine e = ctx.createSSLEngine("127.0.0.1", 1);
        e.setUseClientMode(true);
        return e;
    }

    /** Runs a handshake between two engines in memory; throws the first side's failure. */
    static void handshake(SSLEngine client, SSLEngine server) throws Exception {
        SSLSession s = client.getSession();
        ByteBuffer c2s = ByteBuffer.allocate(s.getPacketBufferSize() * 4);
        ByteBuffer s2c = ByteBuffer.allocate(s.getPacketBufferSize() * 4);
        ByteBuffer app = ByteBuffer.allocate(s.getApplicationBufferSize() * 4);
        ByteBuffer empty = ByteBuffer.allocate(0);
        client.beginHandshake();
        server.beginHandshake();
        for (int i = 0; i < 200; i++) {
            step(client, empty, c2s, s2c, app);
            step(server, empty, s2c, c2s, app);
            if (done(client) && done(server) && c2s.position() == 0 && s2c.position() == 0) {
                return;
            }
        }
        throw new AssertionError("handshake did not finish");
    }

    private static boolean done(SSLEngine e) {
        HandshakeStatus h = e.getHandshakeStatus();
        return h == HandshakeStatus.NOT_HANDSHAKING || h == HandshakeStatus.FINISHED;
    }

    private static void step(SSLEngine e, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer app)
            throws SSLException {
        HandshakeStatus h = e.getHandshakeStatus();
        if (h == HandshakeStatus.NEED_TASK) {
            for (Runnable r = e.getDelegatedTask(); r != null; r = e.getDelegatedTask()) {
                r.run();
            }
            h = e.getHandshakeStatus();
        }
        if (h == HandshakeStatus.NEED_WRAP) {
            e.wrap(empty, out);
        }
        in.flip();
        try {
            if (in.hasRemaining() || e.getHandshakeStatus() == HandshakeStatus.NEED_UNWRAP) {
                e.unwrap(in, app);
            }
        } finally {
            in.compact();
        }
        if (e.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
            for (Runnable r = e.getDelegatedTask(); r != null; r = e.getDelegatedTask()) {
                r.run();
            }
        }
    }
}
