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

import tandem.testsupport.Await;

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
        Path mount = smallDisk(home);
        try (TandemNode node = TandemNode.start(home, TandemNode.freePort(), Map.of(), "--config",
                "tandem.journal:directory=" + mount.resolve("journal"))) {
            String value = "x".repeat(4000);
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                Filled filled = fill(jedis, value, 5000);
                long acknowledged = filled.acknowledged();
                assertThat(filled.refusal()).as("the disk filled up").isNotNull()
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

    /**
     * The store on a full disk, the journal not: RocksDB refuses to write a round of entries the journal holds, so
     * the node stops applying (fail-stop: those entries stay applied in memory — they were answered, and are
     * journaled — nothing after them is applied, no write is sequenced, reads go on, INFO and the shell say why).
     * Once there is room again, restarting the store bundle replays them from the journal, and every acknowledged
     * write is there.
     */
    @Test
    void aStoreThatCannotWriteStopsApplyingAndResumesWhenItCan() throws Exception {
        Path home = TandemNode.newHome("fullstore");
        Path mount = smallDisk(home);
        try (TandemNode node = TandemNode.start(home, TandemNode.freePort(), Map.of(), "--config",
                "tandem.store:directory=" + mount.resolve("store"), "--config", "tandem.store:flush.interval.ms=50")) {
            String value = "y".repeat(4000);
            long acknowledged;
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                Filled filled = fill(jedis, value, 20_000);
                acknowledged = filled.acknowledged();
                assertThat(filled.refusal()).as("the store's disk filled up").isNotNull()
                        .matches("MISCONF writes are stopped: applying journal entry \\d+ \\(not begun: the store could "
                                + "not write the entries applied before it\\) failed: .*RocksDB write of sequences .*")
                        .doesNotContain("journaled as");
                assertThat(acknowledged).isGreaterThan(100);
                String info = jedis.info("persistence");
                assertThat(info).contains("apply_status:stopped").containsPattern(
                        "apply_stopped_reason:applying journal entry \\d+ \\(not begun: .*\\) failed: ");
                long journaled = Long.parseLong(TandemNode.infoField(info, "journal_last_sequence"));
                try {
                    jedis.incr("after");
                    throw new AssertionError("a write was acknowledged after applying stopped");
                } catch (JedisDataException expected) {
                    assertThat(expected.getMessage()).startsWith("MISCONF writes are stopped")
                            .doesNotContain("journaled as");
                }
                assertThat(TandemNode.infoField(jedis.info("persistence"), "journal_last_sequence"))
                        .as("a write refused while applying is stopped is never journaled")
                        .isEqualTo(Long.toString(journaled));
                assertThat(jedis.get("k0")).as("reads go on").isEqualTo(value);
                assertThat(jedis.get("k" + (acknowledged - 1))).as("an acknowledged write the store could not "
                        + "write yet reads from memory").isEqualTo(value);
            }
            assertThat(node.shell("server:status").out()).contains("apply: STOPPED, writes are refused");
            assertThat(node.log()).containsPattern("fail-stop: applying journal entry \\d+ \\(not begun: .*\\) failed");

            TandemNode.Result grown = TandemNode.run(Duration.ofSeconds(10), "mount", "-o", "remount,size=256m",
                    mount.toString());
            assertThat(grown.exit()).as(grown.err()).isZero();
            long store = node.bundleId("Tandem store");
            assertThat(node.shell("stop " + store).exit()).isZero();
            assertThat(node.shell("start " + store).exit()).isZero();
            Await.until("applying resumes", Duration.ofSeconds(30),
                    () -> "apply_status:ok".equals(infoLine(node.port(), "apply_status")));
            try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
                assertThat(jedis.incr("after")).isEqualTo(1);
                for (long i = 0; i < acknowledged; i++) {
                    assertThat(jedis.exists("k" + i)).as("acknowledged k%d", i).isTrue();
                }
                assertThat(jedis.exists("k" + acknowledged)).as("the write refused before it was sequenced was "
                        + "never journaled").isFalse();
            }
            assertThat(node.log()).as("what the shell's start did is in the node's log, not the shell's")
                    .contains("a store is bound again: its replay retries the entry that failed");
        } finally {
            TandemNode.run(Duration.ofSeconds(10), "umount", "-l", mount.toString());
        }
    }

    /** How many writes of a {@link #fill} were acknowledged, and the refusal that ended it (null: none came). */
    private record Filled(long acknowledged, String refusal) {
    }

    /** Writes {@code k0}, {@code k1}, … = {@code value} until a write is refused, at most {@code most} of them. */
    private static Filled fill(Jedis jedis, String value, int most) {
        long acknowledged = 0;
        for (int i = 0; i < most; i++) {
            try {
                jedis.set("k" + i, value);
                acknowledged = i + 1;
            } catch (JedisDataException e) {
                return new Filled(acknowledged, e.getMessage());
            }
        }
        return new Filled(acknowledged, null);
    }

    /** Mounts a 4 MB tmpfs in {@code home} (the tests run as root, in CI too). */
    private static Path smallDisk(Path home) throws java.io.IOException {
        Path mount = home.resolve("small-disk");
        Files.createDirectories(mount);
        TandemNode.Result mounted = TandemNode.run(Duration.ofSeconds(10), "mount", "-t", "tmpfs", "-o", "size=4m",
                "tmpfs", mount.toString());
        assertThat(mounted.exit()).as("mount a tmpfs (the tests run as root): %s", mounted.err()).isZero();
        return mount;
    }

    private static String infoLine(int port, String name) {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            return name + ":" + TandemNode.infoField(jedis.info("persistence"), name);
        }
    }
}
