package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Apply is a pure function of the state, the entry and its timestamp: the same random entries (writes, reads
 * inside transactions, Ticks, with time moving on) applied to two fresh stores give identical replies,
 * identical digests and identical encodings (OBJECT ENCODING, which the digest leaves out), also after a restart
 * of one of them.
 */
class DeterminismTest {

    private static final String[] KEYS = {"a", "b", "c", "h", "n"};
    private static final String[] FIELDS = {"f", "g", "x"};

    /** One entry: a command line (or "tick", or several lines joined by '|' for a transaction) and a time step. */
    record Entry(String command, int advanceMs) {
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        return entry().list().ofMinSize(1).ofMaxSize(60);
    }

    private static Arbitrary<Entry> entry() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> field = Arbitraries.of(FIELDS);
        Arbitrary<String> value = Arbitraries.of("1", "-7", "2.5", "abc", "", "9223372036854775807", "0x10");
        Arbitrary<String> ms = Arbitraries.integers().between(-5, 200).map(String::valueOf);
        Arbitrary<String> command = Arbitraries.oneOf(
                Combinators.combine(key, value).as((k, v) -> "set " + k + " \"" + v + "\""),
                Combinators.combine(key, value, ms).as((k, v, t) -> "set " + k + " \"" + v + "\" px " + t),
                Combinators.combine(key, value).as((k, v) -> "set " + k + " \"" + v + "\" keepttl get"),
                Combinators.combine(key, value).as((k, v) -> "set " + k + " \"" + v + "\" nx"),
                Combinators.combine(key, value).as((k, v) -> "append " + k + " \"" + v + "\""),
                key.map(k -> "incr " + k),
                Combinators.combine(key, value).as((k, v) -> "incrbyfloat " + k + " \"" + v + "\""),
                Combinators.combine(key, ms).as((k, t) -> "pexpire " + k + " " + t),
                Combinators.combine(key, ms).as((k, t) -> "pexpire " + k + " " + t + " gt"),
                key.map(k -> "persist " + k),
                Combinators.combine(key, ms).as((k, t) -> "getex " + k + " px " + t),
                key.map(k -> "getdel " + k),
                Combinators.combine(key, key).as((k, l) -> "del " + k + " " + l),
                Combinators.combine(key, key).as((k, l) -> "rename " + k + " " + l),
                Combinators.combine(key, key).as((k, l) -> "renamenx " + k + " " + l),
                Combinators.combine(key, field, value).as((k, f, v) -> "hset " + k + " " + f + " \"" + v + "\""),
                Combinators.combine(key, field, value).as((k, f, v) -> "hsetnx " + k + " " + f + " \"" + v + "\""),
                Combinators.combine(key, field, value).as((k, f, v) -> "hmset " + k + " " + f + " \"" + v + "\" y 1"),
                key.map(k -> "hrandfield " + k + " -3 withvalues"),
                Combinators.combine(key, field).as((k, f) -> "hdel " + k + " " + f),
                Combinators.combine(key, field).as((k, f) -> "hincrby " + k + " " + f + " 3"),
                Combinators.combine(key, field).as((k, f) -> "hincrbyfloat " + k + " " + f + " 0.1"),
                Combinators.combine(key, value).as((k, v) -> "setrange " + k + " 2 \"" + v + "\""),
                Arbitraries.of("tick", "flushdb", "mset a 1 b 2", "msetnx c 1 n 2"),
                Combinators.combine(key, Arbitraries.integers().between(0, 40), Arbitraries.of(0, 1))
                        .as((k, o, v) -> "setbit " + k + " " + o + " " + v),
                Combinators.combine(Arbitraries.of("and", "or", "xor"), key, key, key)
                        .as((op, d, x, y) -> "bitop " + op + " " + d + " " + x + " " + y),
                Combinators.combine(key, key).as((d, x) -> "bitop not " + d + " " + x),
                Combinators.combine(key, Arbitraries.of("wrap", "sat", "fail"), Arbitraries.integers().between(0, 20))
                        .as((k, o, off) -> "bitfield " + k + " overflow " + o + " incrby i5 " + off + " 9 get u4 #1"),
                Combinators.combine(key, field).as((k, f) -> "hset " + k + " " + f + " " + "v".repeat(65)),
                Combinators.combine(key, key).as((k, l) -> "set " + k + " 1|get " + l + "|hgetall " + k + "|incr " + l));
        Arbitrary<String> member = Arbitraries.of("m", "1", "20", "x", "", "m2");
        Arbitrary<String> score = Arbitraries.of("1", "-2.5", "0", "-0", "inf", "3e2", "1.1");
        // lists, sets and sorted sets, their random choices (seeded from the entry) and the pops that leave score
        // bounds in memory (gone after the restart of the second store)
        Arbitrary<String> collections = Arbitraries.oneOf(
                Combinators.combine(key, member).as((k, m) -> "rpush " + k + " \"" + m + "\" b"),
                Combinators.combine(key, member).as((k, m) -> "lpush " + k + " \"" + m + "\""),
                key.map(k -> "lpop " + k),
                key.map(k -> "rpop " + k + " 2"),
                Combinators.combine(key, member).as((k, m) -> "lrem " + k + " 0 \"" + m + "\""),
                Combinators.combine(key, member).as((k, m) -> "linsert " + k + " before \"" + m + "\" y"),
                key.map(k -> "ltrim " + k + " 1 -1"),
                Combinators.combine(key, key).as((k, l) -> "lmove " + k + " " + l + " left right"),
                Combinators.combine(key, member, member).as((k, m, n) -> "sadd " + k + " \"" + m + "\" \"" + n + "\""),
                Combinators.combine(key, member).as((k, m) -> "srem " + k + " \"" + m + "\""),
                key.map(k -> "spop " + k),
                key.map(k -> "spop " + k + " 2"),
                key.map(k -> "srandmember " + k + " -3"),
                Combinators.combine(key, key, key).as((k, l, n) -> "sunionstore " + k + " " + l + " " + n),
                Combinators.combine(key, score, member).as((k, sc, m) -> "zadd " + k + " " + sc + " \"" + m + "\""),
                Combinators.combine(key, member).as((k, m) -> "zincrby " + k + " 1 \"" + m + "\""),
                key.map(k -> "zpopmin " + k),
                key.map(k -> "zpopmax " + k + " 2"),
                key.map(k -> "zrange " + k + " 0 -1 withscores"),
                key.map(k -> "zrandmember " + k + " 2 withscores"),
                Combinators.combine(key, member).as((k, m) -> "zrem " + k + " \"" + m + "\""),
                Combinators.combine(key, key).as((k, l) -> "zrangestore " + k + " " + l + " 0 2"),
                key.map(k -> "zremrangebyscore " + k + " 0 5"),
                Combinators.combine(key, key).as((k, l) -> "sort " + k + " alpha store " + l),
                Combinators.combine(key, key).as((k, l) -> "copy " + k + " " + l + " replace"),
                Combinators.combine(key, key).as((k, l) -> "zadd " + k + " 5 q|zpopmin " + k + "|spop " + l));
        // HyperLogLogs and positions: PFCOUNT inside a transaction is read there, never written
        Arbitrary<String> lonLat = Arbitraries.of("13.361389 38.115556", "15.087269 37.502669", "-180 85.05112878",
                "179.9 -10", "0 0");
        Arbitrary<String> hllGeo = Arbitraries.oneOf(
                Combinators.combine(key, member, member).as((k, m, n) -> "pfadd " + k + " \"" + m + "\" \"" + n + "\""),
                Combinators.combine(key, key).as((k, l) -> "pfmerge " + k + " " + l),
                Combinators.combine(key, member).as((k, m) -> "pfadd " + k + " \"" + m + "\"|pfcount " + k + "|get " + k),
                Combinators.combine(key, lonLat, member).as((k, p, m) -> "geoadd " + k + " " + p + " \"" + m + "\""),
                Combinators.combine(key, key, lonLat).as((k, l, p) -> "geosearchstore " + k + " " + l
                        + " fromlonlat " + p + " byradius 3000 km storedist"),
                Combinators.combine(key, lonLat, key).as((k, p, l) -> "georadius " + k + " " + p
                        + " 20000 km count 2 store " + l));
        return Combinators.combine(Arbitraries.oneOf(command, collections, hllGeo),
                Arbitraries.integers().between(0, 120)).as(Entry::new);
    }

    @Property(tries = 40)
    void twoFreshStoresComputeTheSameRepliesAndDigest(@ForAll("entries") List<Entry> run)
            throws IOException {
        Path root = Files.createTempDirectory("tandem-store-prop");
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                try (Harness one = new Harness(root.resolve("one"));
                        Harness two = new Harness(root.resolve("two"))) {
                    List<String> first = replay(one, run, false);
                    List<String> second = replay(two, run, true);
                    assertThat(second).isEqualTo(first);
                    assertThat(two.ks.digest()).isEqualTo(one.ks.digest());
                    for (String key : KEYS) {
                        // the encoding flags are not in the digest: compare them apart
                        assertThat(two.run("object encoding " + key)).as(key)
                                .isEqualTo(one.run("object encoding " + key));
                    }
                    assertThat(two.ks.appliedSequence()).isEqualTo(one.ks.appliedSequence());
                    assertThat(two.ks.status().keys()).isEqualTo(one.ks.status().keys());
                    assertThat(two.ks.status().keysWithExpiry()).isEqualTo(one.ks.status().keysWithExpiry());
                }
            });
        } finally {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static List<String> replay(Harness h, List<Entry> run, boolean restartHalfway) {
        List<String> replies = new ArrayList<>();
        for (int i = 0; i < run.size(); i++) {
            Entry e = run.get(i);
            h.nowMs += e.advanceMs();
            if (e.command().equals("tick")) {
                h.tick();
            } else if (e.command().contains("|")) {
                replies.add(h.transaction(e.command().split("\\|")));
            } else {
                replies.add(h.run(e.command()));
            }
            if (restartHalfway && i == run.size() / 2) {
                h.reopen();
            }
        }
        return replies;
    }
}
