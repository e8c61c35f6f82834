package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import tandem.testsupport.Await;

/**
 * A byte flipped inside an archived journal segment: {@code journal:verify} and the offline inspector name the
 * sequence where the journal breaks, and a restarted node does not open it — the journal stays down with that
 * message in the log and writes are refused — while nothing on disk is changed by the attempt. Before the damage,
 * {@code journal:find} and the offline inspector find the same entry of a FLUSHALL, and the entries around it.
 */
@Timeout(120)
class JournalCorruptionSystemTest {

    @Test
    void aCorruptedArchiveIsNamedAndRefused() throws Exception {
        try (TandemNode node = TandemNode.start("corrupt", "--config", "tandem.node:pause.max.ms=500")) {
            node.expectBindingFailures(); // its journal refuses to open: the components above it come and go
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                for (int i = 0; i < 50; i++) {
                    jedis.set("before:" + i, "v" + i);
                }
                assertThat(node.shell("journal:rotate").exit()).isZero();
                jedis.flushAll();
                for (int i = 0; i < 50; i++) {
                    jedis.set("after:" + i, "v" + i);
                }
            }
            TandemNode.Result sound = node.shell("journal:verify");
            assertThat(sound.exit()).as(sound.err()).isZero();
            assertThat(sound.out()).contains("journal OK");

            // finding a restore's target: the FLUSHALL, by name, then the entries around its moment, on the running
            // node and offline alike
            Path journalDir = node.home().resolve("data/journal");
            TandemNode.Result found = node.shell("journal:find --matching flushall");
            assertThat(found.exit()).as(found.err()).isZero();
            java.util.regex.Matcher flush = java.util.regex.Pattern.compile("(\\d+)  (\\S+)  FLUSHALL")
                    .matcher(found.out());
            assertThat(flush.find()).as(found.out()).isTrue();
            String line = flush.group();
            TandemNode.Result offline = TandemNode.run(Duration.ofSeconds(30),
                    TandemNode.dist().resolve("bin/tandem").toString(), "inspect-journal", journalDir.toString(),
                    "--matching", "FLUSHALL");
            assertThat(offline.exit()).as(offline.out()).isZero();
            assertThat(offline.out().strip()).isEqualTo(line);
            TandemNode.Result around = node.shell("journal:find --around " + flush.group(2) + " --count 1");
            assertThat(around.out().strip().lines()).containsExactly(line,
                    (Long.parseLong(flush.group(1)) + 1) + "  " + around.out().strip().lines().toList().get(1)
                            .split("  ")[1] + "  SET after:0 v0");

            Path archive = node.home().resolve("data/journal/journal.000001");
            flipByte(archive, 4096 + 41 * 10 + 20); // inside the payload region of an early entry
            TandemNode.Result broken = node.shell("journal:verify");
            assertThat(broken.exit()).isEqualTo(1);
            assertThat(broken.err()).contains("journal.000001").containsPattern("sequence \\d+");

            TandemNode.Result inspected = TandemNode.run(Duration.ofSeconds(30),
                    TandemNode.dist().resolve("bin/tandem").toString(), "inspect-journal", journalDir.toString());
            assertThat(inspected.exit()).isEqualTo(1);
            assertThat(inspected.out()).contains("BROKEN").contains("journal.000001").containsPattern("sequence \\d+");

            assertThat(node.stop()).isIn(0, 143);
            byte[] corrupted = java.nio.file.Files.readAllBytes(archive);
            node.restart();
            Await.until("the refusal is logged", Duration.ofSeconds(20),
                    () -> node.log().matches("(?s).*journal\\.000001.*sequence \\d+.*"));
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                try {
                    jedis.set("k", "v");
                    throw new AssertionError("a write was accepted without a journal");
                } catch (JedisDataException expected) {
                    assertThat(expected.getMessage()).contains("journal (tandem.journal) is not active");
                }
            }
            assertThat(node.redisCli("INFO", "persistence").out()).contains("journal_enabled:0");
            assertThat(java.nio.file.Files.readAllBytes(archive)).as("opening it changed nothing")
                    .isEqualTo(corrupted);
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.flip();
            byte flipped = (byte) (b.get(0) ^ 0x5A);
            ch.write(ByteBuffer.wrap(new byte[] {flipped}), position);
            ch.force(true);
        }
    }
}
