package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DUMP and RESTORE against Redis 7.0.15's own payloads (the hex below is what {@code redis-cli DUMP} answered for the
 * same values), their errors in Redis's order, TTLs at the entry's time, and payloads of every size round-tripped.
 */
@Timeout(120)
class DumpRestoreTest {

    private static final HexFormat HEX = HexFormat.of();

    @TempDir
    Path dir;

    /** Redis 7.0.15: the command that built the key, and DUMP's answer. */
    private static final String[][] REDIS = {
        {"set k hello", "000568656c6c6f0a006372df766534200a"},
        {"set k 12", "00c00c0a003c2af8515c04bcd5"},
        {"set k -300", "00c1d4fe0a00c6c48623febede2e"},
        {"set k 70000", "00c2701101000a0001a408fe953095a5"},
        {"set k 12345678901", "000b31323334353637383930310a00304e52d727176510"},
        {"set k " + "a".repeat(100), "00c3094064016161e057000161610a00e8a3b507b06df271"},
        {"set k " + "x".repeat(21), "00c30615017878e00a000a00941a83676017192f"},
        {"rpush k a b 1 -5000 100000 " + "x".repeat(70), "120102c3214061196100000006008161028162020101f178ec03f2a08601"
                + "04e04678e03c000148ff0a0020820b95b7e4ee78"},
        {"sadd k 1 2 3 -7", "0b100200000004000000f9ff0100020003000a003bfa4a3923b1fa84"},
        {"sadd k 100000 5", "0b10040000000200000005000000a08601000a00318862df9efdbcfd"},
        {"sadd k a", "020101610a006296e97e44d21a6d"},
        {"zadd k 1 a 2.5 b -3 c", "111a1a0000000600816302dffd02816102010181620283322e3504ff0a00a68a1ab1a9f2dcc2"},
        {"hset k f v", "100d0d0000000200816602817602ff0a0020f13d442354089d"},
    };

    @Test
    void dumpAnswersRedisBytesWhereTheyDependOnTheValueAlone() {
        try (Harness h = new Harness(dir)) {
            for (String[] c : REDIS) {
                h.run("del k");
                h.run(c[0]);
                assertThat(HEX.formatHex(dump(h, "k"))).as(c[0]).isEqualTo(c[1]);
            }
            h.exec(args("set", "k", "The quick brown fox jumps over the lazy dog. The quick brown fox jumps."));
            assertThat(HEX.formatHex(dump(h, "k"))).isEqualTo("00c33740471f54686520717569636b2062726f776e20666f78206a"
                    + "756d7073206f7665722074201e0a6c617a7920646f672e2054200de00b2c01732e0a008e3a1089983a1304");
            assertThat(h.run("dump nothing")).isEqualTo("$-1\\r\\n");
        }
    }

    @Test
    void restoreTakesRedisPayloadsAndLeavesRedisEncodings() {
        try (Harness h = new Harness(dir)) {
            for (String[] c : REDIS) {
                h.run("del k r");
                h.run(c[0]);
                String expected = describe(h, "k");
                assertThat(h.exec(args("restore", "r", "0", HEX.parseHex(c[1])))).as(c[0]).isEqualTo("+OK\\r\\n");
                assertThat(describe(h, "r")).as(c[0]).isEqualTo(expected);
                assertThat(h.run("object encoding r")).isEqualTo(h.run("object encoding k"));
            }
        }
    }

    @Test
    void errorsComeInRedisOrder() {
        try (Harness h = new Harness(dir)) {
            h.run("set k v");
            byte[] good = dump(h, "k");
            byte[] badCrc = good.clone();
            badCrc[badCrc.length - 1] ^= 1;
            byte[] newer = good.clone();
            newer[newer.length - 10] = 11;
            assertThat(h.exec(args("restore", "k", "-1", badCrc))).isEqualTo("-BUSYKEY Target key name already exists.\\r\\n");
            assertThat(h.exec(args("restore", "n", "-1", good))).isEqualTo("-ERR Invalid TTL value, must be >= 0\\r\\n");
            assertThat(h.exec(args("restore", "n", "x", good)))
                    .isEqualTo("-ERR value is not an integer or out of range\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", badCrc)))
                    .isEqualTo("-ERR DUMP payload version or checksum are wrong\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", newer)))
                    .isEqualTo("-ERR DUMP payload version or checksum are wrong\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", "short".getBytes(StandardCharsets.UTF_8))))
                    .isEqualTo("-ERR DUMP payload version or checksum are wrong\\r\\n");
            assertThat(h.exec(args("restore", "k", "0", good, "replace", "bogus"))).isEqualTo("-ERR syntax error\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", good, "idletime", "5", "freq", "3")))
                    .isEqualTo("-ERR syntax error\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", good, "freq", "256")))
                    .isEqualTo("-ERR Invalid FREQ value, must be >= 0 and <= 255\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", good, "idletime", "-1")))
                    .isEqualTo("-ERR Invalid IDLETIME value, must be >= 0\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", withCrc(HEX.parseHex("00056865")))))
                    .isEqualTo("-ERR Bad data format\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", withCrc(HEX.parseHex("0f00")))))
                    .isEqualTo("-ERR Bad data format\\r\\n"); // a stream cut short
            // two members the same, an empty hash, a listpack whose size lies: all refused, nothing written
            assertThat(h.exec(args("restore", "n", "0", withCrc(HEX.parseHex("0202016101610a00")))))
                    .isEqualTo("-ERR Bad data format\\r\\n");
            assertThat(h.exec(args("restore", "n", "0", withCrc(HEX.parseHex("04000a00")))))
                    .isEqualTo("-ERR Bad data format\\r\\n");
            assertThat(h.exec(args("restore", "n", "0",
                    withCrc(HEX.parseHex("100d0e0000000200816602817602ff0a00")))))
                    .isEqualTo("-ERR Bad data format\\r\\n");
            assertThat(h.run("exists n")).isEqualTo(":0\\r\\n");
            assertThat(h.exec(args("restore", "k", "0", good, "REPLACE", "IDLETIME", "5"))).isEqualTo("+OK\\r\\n");
        }
    }

    @Test
    void theTtlCountsFromTheEntrysTimeAndAPastOneLeavesNoKey() {
        try (Harness h = new Harness(dir)) {
            h.run("set k v");
            byte[] payload = dump(h, "k");
            h.exec(args("restore", "a", "5000", payload));
            assertThat(h.run("pexpiretime a")).isEqualTo(":" + (Harness.T0 + 5000) + "\\r\\n");
            h.exec(args("restore", "b", Long.toString(Harness.T0 + 7), payload, "absttl"));
            assertThat(h.run("pexpiretime b")).isEqualTo(":" + (Harness.T0 + 7) + "\\r\\n");
            assertThat(h.exec(args("restore", "c", Long.toString(Harness.T0 - 1), payload, "absttl")))
                    .isEqualTo("+OK\\r\\n");
            assertThat(h.run("exists c")).isEqualTo(":0\\r\\n");
            // REPLACE with a deadline already past deletes the key it replaces
            assertThat(h.exec(args("restore", "k", "1", payload, "absttl", "replace"))).isEqualTo("+OK\\r\\n");
            assertThat(h.run("exists k")).isEqualTo(":0\\r\\n");
            assertThat(h.exec(args("restore", "d", Long.toString(Long.MAX_VALUE), payload))).isEqualTo("+OK\\r\\n");
            assertThat(h.run("exists d")).isEqualTo(":0\\r\\n");
        }
    }

    @Test
    void everyKindOfValueRoundTrips() {
        Random random = new Random(42);
        try (Harness h = new Harness(dir)) {
            h.exec(args("set", "big", bytes(random, 100_000, true)));
            h.exec(args("set", "noise", bytes(random, 5000, false)));
            for (int i = 0; i < 3000; i++) { // several 8 kB nodes
                h.exec(args("rpush", "list", bytes(random, random.nextInt(40), random.nextBoolean())));
            }
            for (int i = 0; i < 600; i++) {
                h.run("sadd ints " + (random.nextInt(2_000_000) - 1_000_000));
                h.run("hset table f" + i + " " + random.nextLong());
                h.run("zadd skip " + random.nextGaussian() + " m" + i);
            }
            h.run("hset wide f " + "v".repeat(65));
            h.run("zadd zwide 1 " + "m".repeat(65));
            for (String key : List.of("big", "noise", "list", "ints", "table", "skip", "wide", "zwide")) {
                byte[] payload = dump(h, key);
                String expected = describe(h, key);
                assertThat(h.exec(args("restore", key + ".copy", "0", payload))).isEqualTo("+OK\\r\\n");
                assertThat(describe(h, key + ".copy")).as(key).isEqualTo(expected);
                assertThat(dump(h, key + ".copy")).as(key).isEqualTo(payload);
                assertThat(h.run("object encoding " + key + ".copy")).isEqualTo(h.run("object encoding " + key));
            }
        }
    }

    @Test
    void noMangledPayloadDoesMoreThanFail() {
        Random random = new Random(7);
        try (Harness h = new Harness(dir)) {
            h.run("rpush l a b 1 -5000 100000 " + "x".repeat(70));
            h.run("zadd z 1 a 2.5 b -3 c");
            h.run("hset h f v g 77");
            h.run("sadd s 1 2 3");
            h.run("set t " + "abc".repeat(40));
            List<byte[]> seeds = new ArrayList<>();
            for (String k : List.of("l", "z", "h", "s", "t")) {
                seeds.add(dump(h, k));
            }
            for (int i = 0; i < 3000; i++) {
                byte[] p = seeds.get(random.nextInt(seeds.size())).clone();
                int body = p.length - 10;
                for (int m = 1 + random.nextInt(3); m > 0; m--) {
                    p[random.nextInt(body)] = (byte) random.nextInt(256);
                }
                String reply = h.exec(args("restore", "x", "0", withCrc(java.util.Arrays.copyOf(p, body)), "replace"));
                assertThat(reply).matches("\\+OK\\\\r\\\\n|-ERR Bad data format.*");
            }
        }
    }

    @Test
    void lzfAndCrcAreRedisOwn() {
        assertThat(Crc64.of("123456789".getBytes(StandardCharsets.US_ASCII), 0, 9)).isEqualTo(0xe9c6d914c4b8d9caL);
        Random random = new Random(3);
        for (int i = 0; i < 500; i++) {
            byte[] in = bytes(random, 21 + random.nextInt(20_000), random.nextBoolean());
            byte[] c = Lzf.compress(in, in.length - 4);
            if (c != null) {
                assertThat(Lzf.decompress(c, 0, c.length, in.length)).isEqualTo(in);
                assertThat(Lzf.decompress(c, 0, c.length, in.length + 1)).isNull();
            }
        }
        assertThatThrownBy(() -> DumpPayload.restore(withCrc(HEX.parseHex("00c3ff")))).isInstanceOf(CommandError.class);
    }

    // ---------------------------------------------------------------- helpers

    private static byte[] bytes(Random random, int n, boolean compressible) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (compressible ? 'a' + random.nextInt(4) : random.nextInt(256));
        }
        return b;
    }

    /** A body with the version-10 footer and its CRC. */
    private static byte[] withCrc(byte[] object) {
        byte[] body = java.util.Arrays.copyOf(object, object.length + 2);
        body[object.length] = 10;
        long crc = Crc64.of(body, 0, body.length);
        byte[] p = java.util.Arrays.copyOf(body, body.length + 8);
        for (int k = 0; k < 8; k++) {
            p[body.length + k] = (byte) (crc >>> (8 * k));
        }
        return p;
    }

    private static byte[][] args(Object... parts) {
        byte[][] a = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            a[i] = parts[i] instanceof byte[] b ? b : parts[i].toString().getBytes(StandardCharsets.UTF_8);
        }
        return a;
    }

    private static byte[] dump(Harness h, String key) {
        RespRecorder r = new RespRecorder();
        h.ks.read(h.nowNs(), h.command(Harness.bytes("dump", key)), r);
        byte[] reply = r.bytes();
        int crlf = 0;
        while (reply[crlf] != '\r') {
            crlf++;
        }
        int length = Integer.parseInt(new String(reply, 1, crlf - 1, StandardCharsets.US_ASCII));
        return java.util.Arrays.copyOfRange(reply, crlf + 2, crlf + 2 + length);
    }

    /** The key's type, value and deadline as replies, to compare two keys. */
    private static String describe(Harness h, String key) {
        String type = h.run("type " + key);
        String value = switch (type) {
            case "+string\\r\\n" -> h.run("get " + key);
            case "+list\\r\\n" -> h.run("lrange " + key + " 0 -1");
            case "+set\\r\\n" -> h.run("smembers " + key);
            case "+zset\\r\\n" -> h.run("zrange " + key + " 0 -1 withscores");
            default -> h.run("hgetall " + key);
        };
        return type + value + h.run("pttl " + key);
    }
}
