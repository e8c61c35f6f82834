package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;

/** Starting, stopping and killing nodes: SIGTERM, kill -9, several nodes per machine, Java 25. */
@Timeout(180)
class NodeLifecycleSystemTest {

    @Test
    void sigtermStopsTheNodeCleanlyAndRemovesItsAdminSocket() throws IOException {
        try (TandemNode node = TandemNode.start("sigterm")) {
            Path record = node.home().resolve("data/shell.path");
            Path socket = Path.of(Files.readString(record).trim());
            assertThat(socket).exists();
            assertThat(socket.toString().length()).isLessThanOrEqualTo(107);
            assertThat(Files.getPosixFilePermissions(socket.getParent()))
                    .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE,
                            java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE);

            int exit = node.stop();

            assertThat(exit).as("the JVM exits on SIGTERM (143 = 128 + 15)").isIn(0, 143);
            assertThat(node.log()).contains("RESP server stopped");
            assertThat(socket).doesNotExist();
            assertThat(record).doesNotExist();
        }
    }

    @Test
    void aNodeKilledWithSigkillRestartsOnItsHome() throws IOException {
        try (TandemNode node = TandemNode.start("kill9")) {
            Path socket = Path.of(Files.readString(node.home().resolve("data/shell.path")).trim());
            assertThat(node.kill()).isEqualTo(137);
            assertThat(socket).as("a killed node leaves its socket behind").exists();

            node.restart();

            assertThat(node.redisCli("PING").out().trim()).isEqualTo("PONG");
            assertThat(socket).as("the stale socket is cleaned up").doesNotExist();
            assertThat(node.shell("server:status").out()).contains("listening on 127.0.0.1:" + node.port());
        }
    }

    @Test
    void aHomeWhoseEtcHoldsOnlyAuthorizedKeysIsCompletedAtItsFirstStartAndKeepsThem() throws IOException {
        Path home = TandemNode.newHome("prepared");
        Files.createDirectories(home.resolve("etc"));
        byte[] key = new byte[32];
        new java.util.Random(7).nextBytes(key);
        String line = "replication " + java.util.Base64.getEncoder().encodeToString(key) + " put-there-first\n";
        Files.writeString(home.resolve("etc/authorized_keys"), line);
        try (TandemNode node = TandemNode.start(home, TandemNode.freePort(), Map.of())) {
            assertThat(node.redisCli("PING").out().trim()).isEqualTo("PONG");
            assertThat(home.resolve("etc/config.properties")).exists();
            assertThat(home.resolve("etc/tandem.replication.cfg")).exists();
            assertThat(home.resolve("etc/authorized_keys")).hasContent(line.strip());
            assertThat(node.shell("auth:list").out()).contains("put-there-first");
            assertThat(home.resolve("etc/replication_ed25519.pub")).content()
                    .as("a key of its own").contains("tandem@");
        }
    }

    @Test
    void twoNodesOnOneMachineShareNothing() throws IOException {
        try (TandemNode a = TandemNode.start("a"); TandemNode b = TandemNode.start("b")) {
            try (Jedis ja = new Jedis("127.0.0.1", a.port()); Jedis jb = new Jedis("127.0.0.1", b.port())) {
                assertThat(ja.configGet("port")).containsEntry("port", Integer.toString(a.port()));
                assertThat(jb.configGet("port")).containsEntry("port", Integer.toString(b.port()));
            }
            for (TandemNode n : new TandemNode[] {a, b}) {
                assertThat(n.home().resolve("felix-cache")).isDirectory();
                assertThat(n.home().resolve("etc/tandem.server.cfg")).content().contains("port = " + n.port());
                assertThat(n.shell("server:status").out()).contains(":" + n.port() + " ");
            }
            assertThat(Files.readString(a.home().resolve("data/shell.path")))
                    .isNotEqualTo(Files.readString(b.home().resolve("data/shell.path")));
        }
    }

    @Test
    void aConfigurationPropertyCanBeSetAtStartAndMaxClientsIsEnforced() throws IOException {
        try (TandemNode node = TandemNode.start("config", "--config", "tandem.server:max.clients=2")) {
            assertThat(node.home().resolve("etc/tandem.server.cfg")).content().contains("max.clients = 2");
            try (Jedis first = new Jedis("127.0.0.1", node.port());
                    Jedis second = new Jedis("127.0.0.1", node.port())) {
                assertThat(first.configGet("maxclients")).containsEntry("maxclients", "2");
                assertThat(second.ping()).isEqualTo("PONG");
                TandemNode.Exchange third = TandemNode.exchange(node.port(), "PING\r\n".getBytes(),
                        java.time.Duration.ofSeconds(2));
                assertThat(third.reply()).isEqualTo("-ERR max number of clients reached\r\n");
                assertThat(third.closed()).isTrue();
            }
        }
    }

    @Test
    void startsOnJava25() throws IOException {
        Path java25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
        // A legitimate skip, in CI too: .ci/test installs Debian packages, and Debian's Java is 17; Temurin 25 comes
        // from Adoptium, which a machine may or may not have. Where it is installed, this test runs.
        assumeTrue(Files.isExecutable(java25.resolve("bin/java")), "Temurin 25 is not installed here");
        try (TandemNode node = TandemNode.start(TandemNode.newHome("java25"), TandemNode.freePort(),
                Map.of("JAVA_HOME", java25.toString()))) {
            assertThat(node.redisCli("INFO", "server").out()).contains("java_version:25");
            assertThat(node.shell("server:status").out()).contains("listening on");
        }
    }
}
