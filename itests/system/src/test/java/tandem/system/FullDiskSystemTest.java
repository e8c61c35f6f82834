package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A real full disk: the journal lives on a 4 MB tmpfs that the test mounts (the tests run as root, in CI too). When
 * a write can no longer be made durable the journal stops: that write and every later one is refused with the
 * reason, reads go on being served, and INFO and the shell say why.
 */
@Timeout(120)
class FullDiskSystemTest {

    @Test
    void aFullDiskStopsTheJournalAndReadsGoOn() throws Exception {
        Path home = TandemNode.newHome("fulldisk");
        Path mount = home.resolve("small-disk");
        Files.createDirectories(mount);
        TandemNode.Result mounted = TandemNode.run(Duration.ofSeconds(10), "mount", "-t", "tmpfs", "-o", "size=4m",
                "tmpfs", mount.toString());
        assertThat(mounted.exit()).as("mount a tmpfs (the tests run as root): %s", mounted.err()).isZero();
        try (TandemNode node = TandemNode.start(home, TandemNode.freePort(), Map.of(), "--config",
                "tandem.journal:directory=" + mount.resolve("journal"))) {
            String value = "x".repeat(4000);
            long acknowledged = 0;
            String refusal = null;
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                for (int i = 0; i < 5000 && refusal == null; i++) {
                    try {
                        jedis.set("k" + i, value);
                        acknowledged = i + 1;
                    } catch (JedisDataException e) {
                        refusal = e.getMessage();
                    }
                }
                assertThat(refusal).as("the disk filled up").isNotNull()
                        .startsWith("MISCONF the journal has stopped and writes are refused");
                assertThat(acknowledged).isGreaterThan(100);
                for (int i = 0; i < 3; i++) {
                    try {
                        jedis.incr("after");
                        throw new AssertionError("a write was acknowledged after the journal stopped");
                    } catch (JedisDataException expected) {
                        assertThat(expected.getMessage()).startsWith("MISCONF");
                    }
                }
                assertThat(jedis.get("k0")).isEqualTo(value);
                assertThat(jedis.get("k" + (acknowledged - 1))).isEqualTo(value);
                assertThat(jedis.info("persistence")).contains("journal_status:stopped", "journal_stopped_reason:");
            }
            assertThat(node.shell("journal:info").out()).contains("STOPPED");
        } finally {
            TandemNode.run(Duration.ofSeconds(10), "umount", "-l", mount.toString());
        }
    }
}
