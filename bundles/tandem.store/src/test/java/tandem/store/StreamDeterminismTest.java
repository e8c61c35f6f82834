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
 * Streams apply as a pure function of the state, the arguments and the entry's time: the same random stream
 * commands (IDs made by {@code *}, consumer groups, deliveries, claims by idle time, trims, deletions, expiry), at
 * the same entry times, applied to two fresh stores give the same replies and the same digest, also when one of them
 * restarts halfway; and replaying them at other times gives other IDs, so the time is what decides.
 */
class StreamDeterminismTest {

    private static final String[] KEYS = {"s", "t", "u"};

    record Entry(String command, int advanceMs) {
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        return entry().list().ofMinSize(1).ofMaxSize(80);
    }

    private static Arbitrary<Entry> entry() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> group = Arbitraries.of("g", "h");
        Arbitrary<String> consumer = Arbitraries.of("alice", "bob", "carol");
        Arbitrary<String> field = Arbitraries.of("f", "g", "1", "field-" + "x".repeat(70));
        Arbitrary<String> value = Arbitraries.of("1", "-7", "abc", "", "v".repeat(300), "9223372036854775807");
        Arbitrary<String> id = Arbitraries.integers().between(0, 40).map(i -> "1700000000" + String.format("%03d", i)
                + "-" + (i % 3));
        Arbitrary<Integer> small = Arbitraries.integers().between(0, 12);
        Arbitrary<String> command = Arbitraries.oneOf(
                Combinators.combine(key, field, value).as((k, f, v) -> "xadd " + k + " * " + f + " \"" + v + "\""),
                Combinators.combine(key, field, value).as((k, f, v) -> "xadd " + k + " * " + f + " \"" + v
                        + "\" g 2"),
                Combinators.combine(key, small, field).as((k, n, f) -> "xadd " + k + " MAXLEN ~ " + n + " * " + f
                        + " 1"),
                Combinators.combine(key, small).as((k, n) -> "xadd " + k + " MAXLEN " + n + " * f 1"),
                Combinators.combine(key, id).as((k, i) -> "xadd " + k + " NOMKSTREAM MINID " + i + " * f 2"),
                Combinators.combine(key, id).as((k, i) -> "xadd " + k + " " + i + " f 3"),
                Combinators.combine(key, small).as((k, n) -> "xtrim " + k + " MAXLEN ~ " + n),
                Combinators.combine(key, id).as((k, i) -> "xtrim " + k + " MINID " + i),
                Combinators.combine(key, id, id).as((k, i, j) -> "xdel " + k + " " + i + " " + j),
                key.map(k -> "xrange " + k + " - + COUNT 5"),
                key.map(k -> "xrevrange " + k + " + - COUNT 3"),
                Combinators.combine(key, group).as((k, g) -> "xgroup create " + k + " " + g + " 0 MKSTREAM"),
                Combinators.combine(key, group).as((k, g) -> "xgroup create " + k + " " + g + " $"),
                Combinators.combine(key, group).as((k, g) -> "xgroup setid " + k + " " + g + " 0"),
                Combinators.combine(key, group).as((k, g) -> "xgroup destroy " + k + " " + g),
                Combinators.combine(key, group, consumer).as((k, g, c) -> "xgroup createconsumer " + k + " " + g
                        + " " + c),
                Combinators.combine(key, group, consumer).as((k, g, c) -> "xgroup delconsumer " + k + " " + g + " "
                        + c),
                Combinators.combine(key, group, consumer, small).as((k, g, c, n) -> "xreadgroup GROUP " + g + " "
                        + c + " COUNT " + (n + 1) + " STREAMS " + k + " >"),
                Combinators.combine(key, group, consumer).as((k, g, c) -> "xreadgroup GROUP " + g + " " + c
                        + " NOACK STREAMS " + k + " >"),
                Combinators.combine(key, group, consumer).as((k, g, c) -> "xreadgroup GROUP " + g + " " + c
                        + " STREAMS " + k + " 0"),
                Combinators.combine(key, group, id).as((k, g, i) -> "xack " + k + " " + g + " " + i),
                Combinators.combine(key, group).as((k, g) -> "xpending " + k + " " + g + " IDLE 50 - + 10"),
                Combinators.combine(key, group, consumer, small).as((k, g, c, n) -> "xclaim " + k + " " + g + " "
                        + c + " " + (n * 20) + " " + "1700000000005-2 1700000000010-1"),
                Combinators.combine(key, group, consumer, small).as((k, g, c, n) -> "xautoclaim " + k + " " + g
                        + " " + c + " " + (n * 20) + " 0 COUNT " + (n + 1)),
                Combinators.combine(key, group, consumer).as((k, g, c) -> "xautoclaim " + k + " " + g + " " + c
                        + " 0 0 JUSTID"),
                Combinators.combine(key, group).as((k, g) -> "xinfo consumers " + k + " " + g),
                key.map(k -> "xinfo groups " + k),
                key.map(k -> "xinfo stream " + k),
                key.map(k -> "xinfo stream " + k + " FULL COUNT 4"),
                Combinators.combine(key, key).as((k, l) -> "copy " + k + " " + l + " replace"),
                Combinators.combine(key, key).as((k, l) -> "rename " + k + " " + l),
                Combinators.combine(key, small).as((k, n) -> "pexpire " + k + " " + (n * 30)),
                key.map(k -> "del " + k),
                Arbitraries.just("tick"),
                Combinators.combine(key, group).as((k, g) -> "xadd " + k + " * a 1|xreadgroup GROUP " + g
                        + " alice STREAMS " + k + " >|xdel " + k + " 1700000000003-0"));
        return Combinators.combine(command, Arbitraries.integers().between(0, 60)).as(Entry::new);
    }

    @Property(tries = 40)
    void twoFreshStoresComputeTheSameRepliesAndDigest(@ForAll("entries") List<Entry> run) throws IOException {
        Path root = Files.createTempDirectory("tandem-stream-prop");
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                try (Harness one = new Harness(root.resolve("one"));
                        Harness two = new Harness(root.resolve("two"))) {
                    List<String> first = replay(one, run, false);
                    List<String> second = replay(two, run, true);
                    assertThat(second).isEqualTo(first);
                    assertThat(two.ks.digest()).isEqualTo(one.ks.digest());
                    for (String key : KEYS) {
                        assertThat(two.run("xinfo stream " + key + " full")).as(key)
                                .isEqualTo(one.run("xinfo stream " + key + " full"));
                    }
                }
            });
        } finally {
            delete(root);
        }
    }

    @Property(tries = 10)
    void theEntryTimeDecidesTheIds(@ForAll("entries") List<Entry> run) throws IOException {
        Path root = Files.createTempDirectory("tandem-stream-time");
        try {
            try (Harness one = new Harness(root.resolve("one"));
                    Harness two = new Harness(root.resolve("two"))) {
                two.nowMs += 1_000_000; // later, as a replay against the wall clock would be
                replay(one, run, false);
                replay(two, run, false);
                String added = "xadd fresh * f v";
                assertThat(two.run(added)).isNotEqualTo(one.run(added));
            }
        } finally {
            delete(root);
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

    private static void delete(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
