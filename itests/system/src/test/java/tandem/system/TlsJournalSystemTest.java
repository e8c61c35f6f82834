package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import tandem.testsupport.Await;
import tandem.testsupport.TestPki;

/**
 * A primary and two journal-protocol replicas over mutual TLS ({@code tandem.transport.tcp:tls=true}), every plain
 * RESP port closed: writes acknowledged under {@code two-disks} reach both replicas, whose digests end equal to the
 * primary's. A node whose certificate another CA issued never streams, even with its Ed25519 key authorized: TLS
 * refuses it before the journal protocol's own authentication runs; so is a peer presenting a replica's certificate
 * without its key, and plain text on the replication port is closed.
 */
@Timeout(300)
class TlsJournalSystemTest {

    private static TestPki pki;
    private static TestPki rogueCa;
    private static TlsClient app;
    private static int replicationPort;
    private static TandemNode primary;
    private static TandemNode replica1;
    private static TandemNode replica2;

    @BeforeAll
    static void start() throws IOException {
        Path dir = TandemNode.newHome("tls-journal-pki");
        pki = TestPki.create(dir.resolve("cluster"), "cluster-ca");
        rogueCa = TestPki.create(dir.resolve("rogue"), "rogue-ca");
        app = new TlsClient(pki.caCert(), pki.issue("app"));
        replicationPort = TandemNode.freePort();
        List<String> args = TlsClient.nodeArgs(pki.issue("node-p"), pki.caCert(), "tandem.transport.tcp:tls=true");
        args.addAll(List.of("--replication-port", Integer.toString(replicationPort), "--ack-policy", "two-disks"));
        primary = TandemNode.startTls("tls-journal-primary", app, args.toArray(String[]::new));
        replica1 = replica("tls-journal-r1", app, pki, "node-r1");
        replica2 = replica("tls-journal-r2", app, pki, "node-r2");
        for (TandemNode r : List.of(replica1, replica2)) {
            JournalCluster.authorize(r, primary);
            JournalCluster.awaitStreaming(r);
        }
    }

    private static TandemNode replica(String name, TlsClient client, TestPki ca, String cn) throws IOException {
        List<String> args = TlsClient.nodeArgs(ca.issue(cn), ca.caCert(), "tandem.transport.tcp:tls=true",
                JournalCluster.FAST_RECONNECT);
        args.addAll(List.of("--replication-port", Integer.toString(TandemNode.freePort()), "--primary",
                "127.0.0.1:" + replicationPort));
        return TandemNode.startTls(name, client, args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(replica2, replica1, primary);
    }

    @Test
    void writesAcknowledgedUnderTwoDisksReachBothReplicasOverMutualTls() throws IOException {
        try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", primary.port()), DefaultJedisClientConfig.builder()
                .ssl(true).sslSocketFactory(app.context().getSocketFactory()).socketTimeoutMillis(10_000).build())) {
            for (int i = 0; i < 300; i++) {
                assertThat(j.set("k" + i, "v" + i)).isEqualTo("OK");
                j.rpush("list", Integer.toString(i));
            }
        }
        String digest = primary.digest();
        for (TandemNode r : List.of(replica1, replica2)) {
            Await.until("replica " + r.port() + " has the primary's digest", Duration.ofSeconds(60),
                    () -> digest.equals(r.digestOrNull()));
            assertThat(r.log()).doesNotContain("TLS handshake failed");
        }
    }

    /**
     * @return whether the primary's replication port refuses {@code client}: in TLS 1.3 the client's handshake ends
     *         before the server has checked the client's certificate, so the refusal shows on the first read (the
     *         primary would otherwise send its challenge)
     */
    private static boolean refused(TlsClient client) {
        try (javax.net.ssl.SSLSocket s = client.connect("127.0.0.1", replicationPort)) {
            s.setSoTimeout(10_000);
            return s.getInputStream().read() < 0;
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void aNodeOfAnotherCaNeverStreamsEvenWithAnAuthorizedKeyAndPlainTextIsClosed() throws Exception {
        TlsClient rogueClient = new TlsClient(rogueCa.caCert(), rogueCa.issue("rogue-app"));
        try (TandemNode rogue = replica("tls-journal-rogue", rogueClient, rogueCa, "node-x")) {
            JournalCluster.authorize(rogue, primary);
            Await.until("the primary refuses the rogue's TLS handshake", Duration.ofSeconds(30),
                    () -> primary.log().contains("TLS handshake failed"));
            Await.until("the rogue is told why", Duration.ofSeconds(30),
                    () -> rogue.log().contains("TLS handshake failed"));
            assertThat(JournalCluster.info(rogue).get("master_link_status")).isNotEqualTo("up");
        }
        // a peer presenting a replica's certificate without that replica's key: the handshake cannot be completed
        TestPki.Issued replicaCert = pki.issue("node-r1-copy");
        TestPki.Issued other = pki.issue("mallory");
        TlsClient impostor = new TlsClient(pki.caCert(), new TestPki.Issued(replicaCert.cert(), other.key()));
        assertThat(refused(impostor)).as("a replica's certificate without its key").isTrue();
        assertThat(refused(new TlsClient(pki.caCert(), pki.issue("node-r1-again")))).as("the same certificate "
                + "with its key").isFalse();
        // plain text where TLS is expected: closed, nothing answered
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", replicationPort), 2000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(new byte[64]);
            List<Integer> read = new ArrayList<>();
            try {
                for (int b = s.getInputStream().read(); b >= 0; b = s.getInputStream().read()) {
                    read.add(b);
                }
            } catch (java.net.SocketException reset) {
                // closed with a reset: as good as an end of stream
            }
            assertThat(read.size()).as("bytes a plain-text peer was sent").isLessThan(16);
        }
        for (TandemNode r : List.of(replica1, replica2)) {
            assertThat(JournalCluster.info(r).get("master_link_status")).isEqualTo("up");
        }
    }
}
