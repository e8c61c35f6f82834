package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Expiry is decided by the entries' timestamps alone: lazy reads, writes over expired keys, Ticks, deadlines. */
@Timeout(30)
class ExpiryTest {

    @TempDir
    Path dir;

    @Test
    void aKeyIsExpiredFromItsDeadlineMillisecondOn() {
        try (Harness h = new Harness(dir)) {
            h.run("set k v px 1000");
            h.nowMs = Harness.T0 + 999;
            assertThat(h.run("get k")).isEqualTo("$1\\r\\nv\\r\\n");
            assertThat(h.run("pttl k")).isEqualTo(":1\\r\\n");
            h.nowMs = Harness.T0 + 1000; // Redis would still answer "v" at this exact millisecond (it tests <)
            assertThat(h.run("get k")).isEqualTo("$-1\\r\\n");
            assertThat(h.run("exists k")).isEqualTo(":0\\r\\n");
            assertThat(h.run("ttl k")).isEqualTo(":-2\\r\\n");
            assertThat(h.run("type k")).isEqualTo("+none\\r\\n");
            assertThat(h.run("keys *")).isEqualTo("*0\\r\\n");
        }
    }

    @Test
    void readsOfExpiredKeysWriteNothing() {
        try (Harness h = new Harness(dir)) {
            h.run("set k v px 10");
            h.run("hset hk f v");
            h.run("pexpire hk 10");
            byte[] before = h.ks.digest();
            h.nowMs += 10;
            assertThat(h.run("get k")).isEqualTo("$-1\\r\\n");
            assertThat(h.run("hgetall hk")).isEqualTo("*0\\r\\n");
            // inside a transaction too: a read command deletes nothing
            assertThat(h.transaction("get k", "hlen hk")).isEqualTo("*2\\r\\n$-1\\r\\n:0\\r\\n");
            assertThat(h.ks.digest()).isEqualTo(before);
            assertThat(h.ks.status().keys()).isEqualTo(2);
            assertThat(h.run("dbsize")).isEqualTo(":2\\r\\n"); // stored until a Tick, as Redis counts its dict
        }
    }

    @Test
    void aWriteTreatsAnExpiredKeyAsAbsentAndRemovesItsStaleRecords() {
        try (Harness h = new Harness(dir)) {
            h.run("hset h a 1 b 2");
            h.run("pexpire h 5");
            h.run("set s 10 px 5");
            h.nowMs += 5;
            assertThat(h.run("hset h c 3")).isEqualTo(":1\\r\\n");
            assertThat(h.run("hgetall h")).isEqualTo("*2\\r\\n$1\\r\\nc\\r\\n$1\\r\\n3\\r\\n");
            assertThat(h.run("ttl h")).isEqualTo(":-1\\r\\n");
            assertThat(h.run("set s 1 nx")).isEqualTo("+OK\\r\\n");
            assertThat(h.run("ttl s")).isEqualTo(":-1\\r\\n");
            assertThat(h.ks.status().keysWithExpiry()).isZero();
            assertThat(h.ks.nextDeadlineNs()).isEqualTo(Long.MAX_VALUE);
            try (Harness fresh = new Harness(dir.resolve("fresh"))) {
                fresh.nowMs = h.nowMs;
                fresh.run("hset h c 3");
                fresh.run("set s 1");
                assertThat(h.ks.digest()).isEqualTo(fresh.ks.digest());
            }
        }
    }

    @Test
    void ttlsAreComputedFromTheEntrysTime() {
        try (Harness h = new Harness(dir)) {
            h.run("set k v ex 100");
            h.nowMs += 1500;
            assertThat(h.run("ttl k")).isEqualTo(":99\\r\\n");
            assertThat(h.run("pttl k")).isEqualTo(":98500\\r\\n");
            assertThat(h.run("pexpiretime k")).isEqualTo(":" + (Harness.T0 + 100_000) + "\\r\\n");
            assertThat(h.run("expiretime k")).isEqualTo(":" + (Harness.T0 + 100_000 + 500) / 1000 + "\\r\\n");
            assertThat(h.run("getex k px 10")).isEqualTo("$1\\r\\nv\\r\\n");
            assertThat(h.run("pttl k")).isEqualTo(":10\\r\\n");
            assertThat(h.run("getex k pxat " + (h.nowMs))).isEqualTo("$1\\r\\nv\\r\\n"); // a past deadline deletes
            assertThat(h.ks.status().keys()).isZero();
            h.run("set k v");
            assertThat(h.run("expireat k " + (h.nowMs / 1000 - 1))).isEqualTo(":1\\r\\n");
            assertThat(h.ks.status().keys()).isZero();
        }
    }

    @Test
    void tickDeletesInDeadlineOrderUpToTheLimit() {
        try (Harness h = new Harness(dir, 3, 16)) {
            // deadlines in an order unrelated to the keys' order
            h.run("set a v px 50");
            h.run("set b v px 10");
            h.run("hset c f v");
            h.run("pexpire c 30");
            h.run("set d v px 20");
            h.run("set e v px 40");
            h.run("set later v px 100000");
            h.run("set forever v");
            assertThat(h.ks.nextDeadlineNs()).isEqualTo((Harness.T0 + 10) * 1_000_000L);
            h.nowMs += 60;
            h.tick();
            assertThat(stored(h)).containsExactly("a", "e", "forever", "later"); // b, d, c went first
            assertThat(h.ks.appliedSequence()).isEqualTo(h.seq);
            assertThat(h.ks.nextDeadlineNs()).isEqualTo((Harness.T0 + 40) * 1_000_000L);
            h.tick();
            assertThat(stored(h)).containsExactly("forever", "later");
            assertThat(h.ks.status().keysWithExpiry()).isEqualTo(1);
            h.tick(); // nothing due: records the sequence only
            assertThat(stored(h)).containsExactly("forever", "later");
            assertThat(h.ks.appliedSequence()).isEqualTo(h.seq);
            assertThat(h.ks.nextDeadlineNs()).isEqualTo((Harness.T0 + 100_000) * 1_000_000L);
            h.run("persist later");
            assertThat(h.ks.nextDeadlineNs()).isEqualTo(Long.MAX_VALUE);
        }
    }

    @Test
    void tickRemovesOnlyKeysAtOrBeforeItsTime() {
        try (Harness h = new Harness(dir)) {
            h.run("set a v px 10");
            h.run("set b v px 11");
            h.nowMs += 10;
            h.tick();
            assertThat(stored(h)).containsExactly("b");
        }
    }

    @Test
    void theDigestIncludesExpiredKeysUntilATickRemovesThem() {
        try (Harness h = new Harness(dir)) {
            h.run("set a v px 10");
            byte[] withA = h.ks.digest();
            h.nowMs += 100;
            assertThat(h.ks.digest()).isEqualTo(withA);
            h.tick();
            assertThat(h.ks.digest()).isNotEqualTo(withA);
        }
    }

    @Test
    void sameEntriesAtDifferentWallClocksGiveTheSameDigest() {
        String[] script = {"set a 1 ex 10", "expire a 5", "hset h f v", "pexpire h 3000", "set b 2 px 1",
            "incr c", "getex a px 100"};
        byte[] first;
        try (Harness h = new Harness(dir.resolve("first"))) {
            for (String line : script) {
                h.run(line);
                h.nowMs += 1;
            }
            first = h.ks.digest();
        }
        long wall = System.currentTimeMillis();
        while (System.currentTimeMillis() < wall + 5) {
            Thread.onSpinWait(); // let the wall clock move on
        }
        try (Harness h = new Harness(dir.resolve("second"))) {
            for (String line : script) {
                h.run(line);
                h.nowMs += 1;
            }
            assertThat(h.ks.digest()).isEqualTo(first);
        }
    }

    private static java.util.List<String> stored(Harness h) {
        java.util.List<String> keys = new java.util.ArrayList<>();
        try (org.rocksdb.RocksIterator it = h.ks.tx().keyIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                keys.add(new String(it.key(), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return keys;
    }
}
