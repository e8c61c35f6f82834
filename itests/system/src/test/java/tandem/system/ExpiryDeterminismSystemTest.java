package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.SetParams;

import tandem.testsupport.Await;

/**
 * Keys with TTLs written under load, then the journal replayed later on another node — so under another clock —
 * gives the same {@code store:digest}: relative expiries and active expiry are decided by the entries' timestamps,
 * never by the clock of the node that applies them.
 */
@Timeout(180)
class ExpiryDeterminismSystemTest {

    private static final int SHORT = 600;
    private static final int LONG = 400;

    @Test
    void aJournalReplayedLaterOnAnotherNodeGivesTheSameDigest() throws Exception {
        String digest;
        Path journal;
        try (TandemNode a = TandemNode.start("expiry-a")) {
            try (Jedis jedis = new Jedis("127.0.0.1", a.port())) {
                Pipeline p = jedis.pipelined();
                for (int i = 0; i < SHORT; i++) {
                    p.set("short:" + i, "v" + i, SetParams.setParams().px(200 + i));
                    p.set("long:" + i % LONG, "v" + i, SetParams.setParams().ex(3600));
                    p.incr("counter");
                    if (i % 3 == 0) {
                        p.pexpire("long:" + i % LONG, 7_200_000);
                    }
                    if (i % 50 == 0) {
                        p.sync();
                    }
                }
                p.hset("hash", Map.of("f", "v", "g", "w"));
                p.expire("hash", 5000);
                p.sync();
                // active expiry removes every short key through journaled Ticks
                Await.until("every short key expired and removed", Duration.ofSeconds(60),
                        () -> jedis.dbSize() == LONG + 2);
                assertThat(jedis.get("short:0")).isNull();
                assertThat(jedis.ttl("long:1")).isBetween(3500L, 7200L);
            }
            digest = a.digest();
            assertThat(a.stop()).isIn(0, 143);
            journal = a.home().resolve("data/journal");
            assertThat(journal.resolve("journal")).exists();
        }

        Path home = TandemNode.newHome("expiry-b");
        copy(journal, home.resolve("data/journal"));
        try (TandemNode b = TandemNode.start(home, TandemNode.freePort(), Map.of())) {
            assertThat(b.digest()).as("the same state, replayed under another clock").isEqualTo(digest);
            try (Jedis jedis = new Jedis("127.0.0.1", b.port())) {
                assertThat(jedis.dbSize()).isEqualTo(LONG + 2);
                assertThat(jedis.get("counter")).isEqualTo(Integer.toString(SHORT));
                assertThat(jedis.get("short:" + (SHORT - 1))).isNull();
            }
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }
}
