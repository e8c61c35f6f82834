package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import tandem.testsupport.Await;

/**
 * {@code SAVE}, {@code BGSAVE}, {@code BGREWRITEAOF} and {@code LASTSAVE} on a node: each writes the node's backup,
 * {@code data/backup} (its {@code MANIFEST} names the applied sequence it holds; {@code bin/tandem verify-backup}
 * accepts it), replacing the one before; {@code LASTSAVE} and {@code INFO persistence} follow, and the writes go on
 * meanwhile.
 */
@Timeout(120)
class SaveSystemTest {

    private static TandemNode node;

    @BeforeAll
    static void start() throws IOException {
        node = TandemNode.start("save");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(node);
    }

    @Test
    void saveAndBgsaveKeepACopyAndLastsaveFollows() throws Exception {
        Path saved = node.home().resolve("data/backup");
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 5000)) {
            long started = jedis.lastsave();
            for (int i = 0; i < 100; i++) {
                jedis.set("s:" + i, "v" + i);
            }
            assertThat(jedis.save()).isEqualTo("OK");
            String first = Files.readString(saved.resolve("MANIFEST"));
            assertThat(java.time.Instant.parse(first.replaceAll("(?s).*created_at=(\\S+).*", "$1")).getEpochSecond())
                    .isEqualTo(jedis.lastsave()).isGreaterThanOrEqualTo(started);
            TandemNode.Result verified = TandemNode.run(Duration.ofSeconds(60),
                    TandemNode.dist().resolve("bin/tandem").toString(), "verify-backup", saved.toString());
            assertThat(verified.out()).startsWith("OK: store at sequence " + sequence(first) + ",");
            jedis.set("s:after", "v");
            assertThat(jedis.bgsave()).isEqualTo("Background saving started");
            Await.until("the background save ends", Duration.ofSeconds(30), () -> {
                try (Jedis j = new Jedis("127.0.0.1", node.port(), 5000)) {
                    String info = j.info("persistence");
                    return info.contains("rdb_saves:2") && info.contains("rdb_bgsave_in_progress:0");
                }
            });
            assertThat(jedis.info("persistence")).contains("rdb_last_bgsave_status:ok")
                    .contains("rdb_changes_since_last_save:0");
            String second = Files.readString(saved.resolve("MANIFEST"));
            long seq1 = sequence(first);
            long seq2 = sequence(second);
            assertThat(seq2).as("the second copy holds the write after the first").isGreaterThan(seq1);
            try (var files = Files.list(saved.getParent())) {
                assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("backup")))
                        .containsExactly("backup");
            }
            // the journal is Tandem's AOF: a rewrite is the same copy
            jedis.set("s:after-rewrite", "v");
            assertThat(jedis.bgrewriteaof()).isEqualTo("Background append only file rewriting started");
            Await.until("the rewrite's copy ends", Duration.ofSeconds(30), () -> {
                try (Jedis j = new Jedis("127.0.0.1", node.port(), 5000)) {
                    return j.info("persistence").contains("rdb_saves:3");
                }
            });
            long seq3 = sequence(Files.readString(saved.resolve("MANIFEST")));
            assertThat(seq3).isGreaterThan(seq2);
            try (Socket s = RespSockets.connect(node.port())) {
                assertThat(RespSockets.exchange(s, "SYNC\r\n", 1)).startsWith("-ERR SYNC is not supported by Tandem");
            }
        }
    }

    private static long sequence(String manifest) {
        return Long.parseLong(manifest.replaceAll("(?s).*applied_sequence=(\\d+).*", "$1"));
    }
}
