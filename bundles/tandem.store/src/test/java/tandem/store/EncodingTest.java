package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The encoding flags of the key record (what OBJECT ENCODING reports): kept across a restart, invisible to the
 * digest and to every type comparison; and what OBJECT, MEMORY and RANDOMKEY answer where no golden transcript can
 * show it (Redis' answers there depend on its clock).
 */
@Timeout(30)
class EncodingTest {

    @TempDir
    Path dir;

    private static final String LONG = "x".repeat(65);

    @Test
    void theEncodingHistoryIsStoredAndSurvivesARestart() {
        try (Harness h = new Harness(dir)) {
            h.run("set s 1");
            h.run("append s 2");
            h.run("incrbyfloat f 3");
            h.run("hset h f " + LONG);
            h.run("hdel h f");
            h.run("hset h2 f " + LONG + " g v");
            h.run("hdel h2 f");
            h.reopen();
            assertThat(h.run("object encoding s")).isEqualTo("$3\\r\\nraw\\r\\n");
            assertThat(h.run("get s")).isEqualTo("$2\\r\\n12\\r\\n");
            assertThat(h.run("object encoding f")).isEqualTo("$6\\r\\nembstr\\r\\n");
            assertThat(h.run("exists h")).isEqualTo(":0\\r\\n");
            assertThat(h.run("object encoding h2")).isEqualTo("$9\\r\\nhashtable\\r\\n");
            // the flags are not part of the type
            assertThat(h.run("type s")).isEqualTo("+string\\r\\n");
            assertThat(h.run("type h2")).isEqualTo("+hash\\r\\n");
            assertThat(h.run("scan 0 type hash")).isEqualTo("*2\\r\\n$1\\r\\n0\\r\\n*1\\r\\n$2\\r\\nh2\\r\\n");
            assertThat(h.run("hget s f"))
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n");
            assertThat(h.run("get h2"))
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n");
        }
    }

    @Test
    void theDigestIsTheSameWhateverTheEncodingAndAsItsLayoutSays() throws Exception {
        try (Harness raw = new Harness(dir.resolve("raw")); Harness plain = new Harness(dir.resolve("plain"))) {
            raw.run("append s 1");
            raw.run("append s 2"); // raw
            raw.run("setbit b 1 1"); // raw, "@"
            raw.run("hset h f " + LONG);
            raw.run("hset h f v"); // a hashtable for good
            raw.run("pexpire h 100000");
            plain.run("set s 12"); // int
            plain.run("set b @"); // embstr
            plain.run("hset h f v"); // listpack
            plain.run("pexpire h 100000");
            assertThat(raw.run("object encoding h")).isEqualTo("$9\\r\\nhashtable\\r\\n");
            assertThat(plain.run("object encoding h")).isEqualTo("$8\\r\\nlistpack\\r\\n");

            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            entry(expected, "b", 0, "@".getBytes(StandardCharsets.US_ASCII));
            expected.write(key("h"));
            expected.write(4);
            expected.write(u32(1));
            expected.write(u32(1));
            expected.write('f');
            expected.write(u32(1));
            expected.write('v');
            expected.write(ByteBuffer.allocate(8).putLong(Harness.T0 + 100000).array());
            entry(expected, "s", 0, "12".getBytes(StandardCharsets.US_ASCII));
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(expected.toByteArray());
            assertThat(raw.ks.digest()).isEqualTo(sha);
            assertThat(plain.ks.digest()).isEqualTo(sha);
        }
    }

    private static void entry(ByteArrayOutputStream out, String key, int type, byte[] value) throws Exception {
        out.write(key(key));
        out.write(type);
        out.write(u32(value.length));
        out.write(value);
        out.write(ByteBuffer.allocate(8).putLong(-1).array());
    }

    private static byte[] key(String key) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(4 + k.length).putInt(k.length).put(k).array();
    }

    private static byte[] u32(int n) {
        return ByteBuffer.allocate(4).putInt(n).array();
    }

    @Test
    void aHashBecomesAHashtableAfter128FieldsAndStaysOne() {
        try (Harness h = new Harness(dir)) {
            StringBuilder fields = new StringBuilder("hset h");
            for (int i = 0; i < 128; i++) {
                fields.append(" f").append(i).append(" v");
            }
            h.run(fields.toString());
            assertThat(h.run("object encoding h")).isEqualTo("$8\\r\\nlistpack\\r\\n");
            h.run("hset h one more");
            assertThat(h.run("object encoding h")).isEqualTo("$9\\r\\nhashtable\\r\\n");
            h.run("hdel h one f0 f1 f2");
            assertThat(h.run("hlen h")).isEqualTo(":125\\r\\n");
            assertThat(h.run("object encoding h")).isEqualTo("$9\\r\\nhashtable\\r\\n");
            h.run("rename h g");
            assertThat(h.run("object encoding g")).isEqualTo("$9\\r\\nhashtable\\r\\n");
        }
    }

    @Test
    void idleTimeIsZeroBecauseTandemDoesNotTrackAccess() {
        try (Harness h = new Harness(dir)) {
            h.run("set k v");
            h.nowMs += 3_600_000; // Redis would answer 3600
            assertThat(h.run("object idletime k")).isEqualTo(":0\\r\\n");
        }
    }

    @Test
    void memoryUsageMeasuresAKeyPastItsDeadlineAsRedisDoesButObjectDoesNotSeeIt() {
        try (Harness h = new Harness(dir)) {
            h.run("set a 1 px 10");
            h.nowMs += 20; // expired, not yet removed by a Tick: Redis' dictFind still finds it
            assertThat(h.run("memory usage a")).isEqualTo(":48\\r\\n");
            assertThat(h.run("object encoding a")).isEqualTo("$-1\\r\\n");
            h.tick();
            assertThat(h.run("memory usage a")).isEqualTo("$-1\\r\\n");
        }
    }

    @Test
    void memoryUsageEstimatesRawStringsAndHashtablesByRedisFormula() {
        try (Harness h = new Harness(dir)) {
            h.run("append r ab");
            h.run("append r c"); // raw: key 8 + entry 24 + robj 16 + sds 1+3+1 -> 8
            assertThat(h.run("memory usage r")).isEqualTo(":56\\r\\n");
            h.run("set big " + "y".repeat(300)); // raw by length: sds 5+300+1 = 306 -> 320
            assertThat(h.run("memory usage big")).isEqualTo(":" + (8 + 24 + 16 + 320) + "\\r\\n");
            h.run("hset t a 1 b 2 c " + LONG); // a hashtable of 3 fields in 4 slots
            long table = 16 + 56 + 8 * 4;
            long fields = (8 + 8 + 24) * 2 + (8 + 80 + 24);
            assertThat(h.run("memory usage t samples 0")).isEqualTo(":" + (8 + 24 + table + fields) + "\\r\\n");
            // one sample: the first field in byte order stands for all three
            assertThat(h.run("memory usage t samples 1")).isEqualTo(":" + (8 + 24 + table + 3 * 40) + "\\r\\n");
        }
    }

    @Test
    void jemallocSizeClasses() {
        assertThat(ObjectCommands.allocation(1)).isEqualTo(8);
        assertThat(ObjectCommands.allocation(9)).isEqualTo(16);
        assertThat(ObjectCommands.allocation(23)).isEqualTo(32);
        assertThat(ObjectCommands.allocation(128)).isEqualTo(128);
        assertThat(ObjectCommands.allocation(129)).isEqualTo(160);
        assertThat(ObjectCommands.allocation(257)).isEqualTo(320);
        assertThat(ObjectCommands.allocation(4097)).isEqualTo(5120);
        assertThat(ObjectCommands.allocation(1 << 20)).isEqualTo(1 << 20);
        assertThat(ObjectCommands.allocation((1 << 20) + 1)).isEqualTo(1280 * 1024);
    }

    /**
     * Checked against redis-server 7.0.15 with active expiry off ({@code DEBUG SET-ACTIVE-EXPIRE 0}): with every key
     * expired RANDOMKEY answers nil, with one live key among expired ones it answers that key. Redis also deletes the
     * expired keys it draws (DBSIZE drops); Tandem's RANDOMKEY is a read and leaves them to the Tick.
     */
    @Test
    void randomKeySkipsExpiredKeys() {
        try (Harness h = new Harness(dir)) {
            for (String k : new String[] {"a", "b", "c", "d", "e", "f", "g"}) {
                h.run("set " + k + " 1 px 50");
            }
            h.nowMs += 100;
            for (int i = 0; i < 50; i++) {
                h.nowMs += 7; // another draw each time
                assertThat(h.run("randomkey")).isEqualTo("$-1\\r\\n");
            }
            assertThat(h.run("dbsize")).isEqualTo(":7\\r\\n");
            h.run("set live 1");
            h.run("set zz 1 px 1");
            h.nowMs += 2;
            for (int i = 0; i < 50; i++) {
                h.nowMs += 7;
                assertThat(h.run("randomkey")).isEqualTo("$4\\r\\nlive\\r\\n");
                assertThat(h.transaction("incr n", "randomkey"))
                        .matches("\\*2\\\\r\\\\n:\\d+\\\\r\\\\n\\$\\d\\\\r\\\\n(live|n)\\\\r\\\\n");
            }
        }
    }
}
