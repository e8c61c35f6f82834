package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import tandem.testsupport.Await;
import tandem.testsupport.TestPki;

/**
 * A psync primary and two psync replicas that talk TLS only: every node's plain RESP port is closed, replicas
 * connect with {@code tls-replication yes} and present their certificates to a primary that requires one. Clients
 * connect with and without certificates as {@code tls-auth-clients} allows; the attacks a TLS port must refuse are
 * each tried (no certificate, another CA's, an expired one, another node's certificate without its key, plain
 * text); the primary's certificate rotates under a writer without a dropped connection or a replica resync.
 */
@Timeout(300)
class TlsPsyncSystemTest {

    private static TestPki pki;
    private static TestPki rogue;
    private static TlsClient app;
    private static TandemNode primary;
    private static TandemNode replica1;
    private static TandemNode replica2;

    @BeforeAll
    static void start() throws IOException {
        Path dir = TandemNode.newHome("tls-psync-pki");
        pki = TestPki.create(dir.resolve("cluster"), "cluster-ca");
        rogue = TestPki.create(dir.resolve("rogue"), "rogue-ca");
        app = new TlsClient(pki.caCert(), pki.issue("app"));
        primary = TandemNode.startTls("tls-psync-primary", app,
                TlsClient.nodeArgs(pki.issue("node-p"), pki.caCert(), "tandem.health:tls=true")
                        .toArray(String[]::new));
        replica1 = replica("tls-psync-r1", "node-r1");
        replica2 = replica("tls-psync-r2", "node-r2");
    }

    private static TandemNode replica(String name, String cn) throws IOException {
        TandemNode r = TandemNode.startTls(name, app, TlsClient.nodeArgs(pki.issue(cn), pki.caCert(),
                "tandem.tls:replication=true", "tandem.psync:reconnect.max.ms=300").toArray(String[]::new));
        TandemNode.Result ok = r.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(primary.port()));
        assertThat(ok.out().trim()).as(ok.err()).isEqualTo("OK");
        JournalCluster.awaitStreaming(r);
        return r;
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(replica2, replica1, primary);
    }

    private static Jedis jedis(TandemNode node, TlsClient client) {
        return new Jedis(new HostAndPort("127.0.0.1", node.port()), DefaultJedisClientConfig.builder().ssl(true)
                .sslSocketFactory(client.context().getSocketFactory()).socketTimeoutMillis(10_000).build());
    }

    @Test
    void replicasStreamOverTlsWithEveryPlainPortClosed() throws IOException {
        try (Jedis j = jedis(primary, app)) {
            for (int i = 0; i < 300; i++) {
                j.set("k" + i, "v" + i);
                j.hset("h" + (i % 7), "f" + i, Integer.toString(i));
            }
            assertThat(j.configGet("port")).containsEntry("port", "0");
            assertThat(j.configGet("tls-port")).containsEntry("tls-port", Integer.toString(primary.port()));
        }
        // the replicas announced their TLS ports, as Redis' do with tls-replication
        String info = primary.redisCli("INFO", "replication").out();
        assertThat(info).contains("connected_slaves:2").contains("port=" + replica1.port() + ",")
                .contains("port=" + replica2.port() + ",");
        String digest = primary.digest();
        for (TandemNode r : List.of(replica1, replica2)) {
            Await.until("replica " + r.port() + " has the primary's digest", Duration.ofSeconds(60),
                    () -> digest.equals(r.digestOrNull()));
        }
    }

    @Test
    void clientsAreServedAsTlsAuthClientsSaysAndEveryAttackIsRefused() throws Exception {
        TlsClient anonymous = TlsClient.anonymous(pki.caCert());
        TlsClient foreign = new TlsClient(pki.caCert(), rogue.issue("outsider"));
        TlsClient expired = new TlsClient(pki.caCert(), pki.expired("expired-app"));
        TestPki.Issued node = pki.issue("node-r9");
        TestPki.Issued mallory = pki.issue("mallory");
        // another node's certificate, without its key: the handshake's signature cannot be made
        TlsClient impostor = new TlsClient(pki.caCert(), new TestPki.Issued(node.cert(), mallory.key()));

        assertThat(app.exchange("127.0.0.1", primary.port(), "PING\r\n", Duration.ofSeconds(2))).isEqualTo("+PONG\r\n");
        for (TlsClient refused : List.of(anonymous, foreign, expired, impostor)) {
            assertThat(served(refused)).as("client %s", refused.identity()).isFalse();
        }
        // plain text on the TLS port: no reply, the connection closed
        TandemNode.Exchange plain = TandemNode.exchange(primary.port(), "PING\r\n".getBytes(), Duration.ofSeconds(5));
        assertThat(plain.reply()).doesNotContain("PONG");
        assertThat(plain.closed()).isTrue();
        // redis-cli as a client with no certificate
        TandemNode.Result cli = TandemNode.run(Duration.ofSeconds(30), "redis-cli", "-p",
                Integer.toString(primary.port()), "--tls", "--cacert", pki.caCert().toString(), "PING");
        assertThat(cli.out() + cli.err()).doesNotContain("PONG");

        try (Jedis admin = jedis(primary, app)) {
            assertThat(admin.configSet("tls-auth-clients", "optional")).isEqualTo("OK");
            try {
                assertThat(served(anonymous)).isTrue();
                // optional still refuses a certificate no trusted CA issued, when the client sends it (OpenSSL
                // does; the JDK's client sends none that the server's CA list does not name, and is anonymous)
                TandemNode.Result outsider = TandemNode.run(Duration.ofSeconds(30), "redis-cli", "-p",
                        Integer.toString(primary.port()), "--tls", "--cacert", pki.caCert().toString(), "--cert",
                        foreign.identity().cert().toString(), "--key", foreign.identity().key().toString(), "PING");
                assertThat(outsider.out() + outsider.err()).doesNotContain("PONG");
                assertThat(served(expired)).isFalse();
                TandemNode.Result optional = TandemNode.run(Duration.ofSeconds(30), "redis-cli", "-p",
                        Integer.toString(primary.port()), "--tls", "--cacert", pki.caCert().toString(), "PING");
                assertThat(optional.out().trim()).as(optional.err()).isEqualTo("PONG");
            } finally {
                admin.configSet("tls-auth-clients", "yes");
            }
            assertThat(served(anonymous)).isFalse();
            // material that does not load is refused whole, and the running one stays
            assertThatThrownBy(() -> admin.configSet("tls-cert-file", "/nonexistent/node.crt"))
                    .hasMessageContaining("ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - "
                            + "Unable to update TLS configuration. Check server logs.");
            assertThat(served(app)).isTrue();
        }
        assertThat(primary.log()).contains("TLS handshake with /127.0.0.1:")
                .contains("CONFIG SET of TLS parameters refused: ");

        // Lettuce with a client certificate, verifying the node's certificate against the cluster's CA
        RedisClient lettuce = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(primary.port())
                .withSsl(true).withVerifyPeer(true).withTimeout(Duration.ofSeconds(10)).build());
        lettuce.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                .trustManager(pki.caCert().toFile())
                .keyManager(app.identity().cert().toFile(), app.identity().key().toFile(), null).build()).build());
        try (StatefulRedisConnection<String, String> c = lettuce.connect()) {
            assertThat(c.sync().set("lettuce", "tls")).isEqualTo("OK");
            assertThat(c.sync().get("lettuce")).isEqualTo("tls");
        } finally {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void theHealthEndpointServesHttpsToAClientWithACertificateOnly() throws Exception {
        java.net.URL url = new java.net.URL("https://127.0.0.1:" + primary.healthPort() + "/health");
        Await.until("the health endpoint answers over HTTPS", Duration.ofSeconds(30), () -> {
            try {
                return https(url, app) == 200;
            } catch (IOException e) {
                return false;
            }
        });
        assertThatThrownBy(() -> https(url, TlsClient.anonymous(pki.caCert()))).isInstanceOf(IOException.class);
        // plain HTTP on that port gets no health answer
        TandemNode.Exchange plain = TandemNode.exchange(primary.healthPort(),
                "GET /health HTTP/1.0\r\n\r\n".getBytes(), Duration.ofSeconds(2));
        assertThat(plain.reply()).doesNotContain("\"status\"");
    }

    private static int https(java.net.URL url, TlsClient client) throws IOException {
        javax.net.ssl.HttpsURLConnection c = (javax.net.ssl.HttpsURLConnection) url.openConnection();
        c.setSSLSocketFactory(client.context().getSocketFactory());
        c.setConnectTimeout(5000);
        c.setReadTimeout(5000);
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }

    private static boolean served(TlsClient client) {
        try {
            return "+PONG\r\n".equals(client.exchange("127.0.0.1", primary.port(), "PING\r\n", Duration.ofSeconds(2)));
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void theCertificateRotatesUnderAWriterWithoutADroppedConnectionOrAResync() throws Exception {
        long fullSyncs = primary.stat("sync_full");
        long partialSyncs = primary.stat("sync_partial_ok");
        BigInteger before = serial();
        AtomicLong acked = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try (Jedis j = jedis(primary, app)) {
                while (!Thread.currentThread().isInterrupted()) {
                    j.incr("rotation");
                    acked.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "tls-writer");
        writer.start();
        try {
            Await.until("the writer writes", Duration.ofSeconds(30), () -> acked.get() > 200 || failure.get() != null);
            pki.issue("node-p"); // the same files, rewritten: certificate, then key
            Await.until("a new connection is served the new certificate", Duration.ofSeconds(30),
                    () -> !before.equals(serialOrNull()));
            long at = acked.get();
            Await.until("the writer goes on after the rotation", Duration.ofSeconds(30),
                    () -> acked.get() > at + 200 || failure.get() != null);
        } finally {
            writer.interrupt();
            writer.join(10_000);
        }
        assertThat(failure.get()).as("the writer's connection").isNull();
        try (Jedis j = jedis(primary, app)) {
            assertThat(Long.parseLong(j.get("rotation"))).isEqualTo(acked.get());
        }
        assertThat(primary.stat("sync_full")).isEqualTo(fullSyncs);
        assertThat(primary.stat("sync_partial_ok")).isEqualTo(partialSyncs);
        assertThat(primary.log()).contains("tandem.tls: loaded (files changed) CN=node-p");
        assertThat(primary.shell("server:status").out()).contains("TLS: port " + primary.port() + "; CN=node-p, expires ")
                .contains(", 1 trusted CA(s), SunJSSE, clients: yes");
        String digest = primary.digest();
        for (TandemNode r : List.of(replica1, replica2)) {
            Await.until("replica " + r.port() + " has the primary's digest", Duration.ofSeconds(60),
                    () -> digest.equals(r.digestOrNull()));
        }
    }

    private static BigInteger serial() throws IOException {
        try (SSLSocket s = app.connect("127.0.0.1", primary.port())) {
            return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static BigInteger serialOrNull() {
        try {
            return serial();
        } catch (IOException e) {
            return null;
        }
    }
}
