package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes that touch many records at once — FLUSHALL, deleting, overwriting or renaming a large hash — work a chunk
 * at a time (or by range deletion), so that their heap stays flat however large the keyspace; and {@code avg_ttl}.
 */
@Timeout(60)
class BulkTest {

    @TempDir
    Path dir;

    private static final int MANY = Tx.CHUNK * 3 + 7;

    private static void fill(Harness h) {
        for (int i = 0; i < MANY; i++) {
            h.run("set s" + i + " v" + i + (i % 3 == 0 ? " px 100000" : ""));
        }
        StringBuilder hset = new StringBuilder("hset big");
        for (int i = 0; i < MANY; i++) {
            hset.append(" f").append(i).append(" v").append(i);
        }
        h.run(hset.toString());
    }

    @Test
    void flushallAloneDeletesEverythingByRangeAndSurvivesAReopen() {
        byte[] empty;
        try (Harness fresh = new Harness(dir.resolve("empty"))) {
            empty = fresh.ks.digest();
        }
        try (Harness h = new Harness(dir.resolve("store"))) {
            fill(h);
            assertThat(h.run("dbsize")).isEqualTo(":" + (MANY + 1) + "\\r\\n");
            assertThat(h.run("flushall async")).isEqualTo("+OK\\r\\n");
            assertThat(h.run("dbsize")).isEqualTo(":0\\r\\n");
            assertThat(h.run("hlen big")).isEqualTo(":0\\r\\n");
            assertThat(h.ks.digest()).isEqualTo(empty);
            assertThat(h.ks.status().keysWithExpiry()).isZero();
            assertThat(h.ks.nextDeadlineNs()).isEqualTo(Long.MAX_VALUE);
            h.run("set after 1");
            h.reopen();
            assertThat(h.run("keys *")).isEqualTo("*1\\r\\n$5\\r\\nafter\\r\\n");
            assertThat(h.ks.status().keys()).isEqualTo(1);
        }
    }

    @Test
    void flushallInsideATransactionDeletesEveryKeyAndWhatFollowsSeesAnEmptyKeyspace() {
        try (Harness h = new Harness(dir)) {
            fill(h);
            assertThat(h.transaction("set x 1", "flushall", "set y 2", "dbsize"))
                    .isEqualTo("*4\\r\\n+OK\\r\\n+OK\\r\\n+OK\\r\\n:1\\r\\n");
            assertThat(h.run("keys *")).isEqualTo("*1\\r\\n$1\\r\\ny\\r\\n");
            assertThat(h.ks.status().keysWithExpiry()).isZero();
        }
    }

    @Test
    void aLargeHashIsDeletedOverwrittenAndRenamedWhole() {
        try (Harness h = new Harness(dir)) {
            fill(h);
            assertThat(h.run("rename big moved")).isEqualTo("+OK\\r\\n");
            assertThat(h.run("hlen moved")).isEqualTo(":" + MANY + "\\r\\n");
            assertThat(h.run("hget moved f" + (MANY - 1))).isEqualTo("$" + ("v" + (MANY - 1)).length() + "\\r\\nv"
                    + (MANY - 1) + "\\r\\n");
            assertThat(h.run("exists big")).isEqualTo(":0\\r\\n");
            assertThat(h.run("set moved plain")).isEqualTo("+OK\\r\\n");
            assertThat(h.run("type moved")).isEqualTo("+string\\r\\n");
            assertThat(h.ks.tx().fields("moved".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                    .as("no field of the overwritten hash is left behind").isEmpty();
            assertThat(h.ks.tx().fields("big".getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                    .as("nor of the renamed one").isEmpty();
            h.run("hset big2 a 1 b 2");
            assertThat(h.run("del big2")).isEqualTo(":1\\r\\n");
        }
    }

    @Test
    void theAverageTimeToLiveFollowsEveryChangeOfADeadline() {
        try (Harness h = new Harness(dir)) {
            h.nowMs = System.currentTimeMillis();
            assertThat(h.ks.status().averageTtlMillis()).isZero();
            h.run("set a 1 px 100000");
            h.run("set b 1 px 300000");
            long avg = h.ks.status().averageTtlMillis();
            assertThat(avg).isBetween(150_000L, 200_000L);
            h.run("persist b");
            assertThat(h.ks.status().averageTtlMillis()).isBetween(50_000L, 100_000L);
            h.run("del a");
            assertThat(h.ks.status().averageTtlMillis()).isZero();
            h.run("set c 1 px 600000");
            h.reopen();
            assertThat(h.ks.status().averageTtlMillis()).isBetween(500_000L, 600_000L);
        }
    }
}
