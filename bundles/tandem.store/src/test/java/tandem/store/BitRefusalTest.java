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
import net.jqwik.api.statistics.Statistics;

/**
 * The checks of SETBIT, BITOP and BITFIELD never refuse a write that would succeed, and a refusal answers what
 * applying the write would have answered: random commands, valid and not, run on one store the pipeline's way
 * (checked, then refused or applied) and on a twin applied directly, must give the same replies and digests; a
 * refused one is an error on the twin and changes nothing there.
 *
 * <p>Offsets stay far from the node's size bound ({@link StringCommands#MAX_BUILD}), where a refusal answers what
 * Redis does not (RefusalTest covers it).
 */
class BitRefusalTest {

    @Provide
    Arbitrary<List<String>> commands() {
        Arbitrary<String> key = Arbitraries.of("s", "h", "m", "n");
        Arbitrary<String> offset = Arbitraries.of("0", "7", "100", "-1", "x", "01", "\"\"", "4294967296",
                "9223372036854775807");
        Arbitrary<String> field = Arbitraries.of("0", "5", "#3", "#0", "100", "-1", "#x", "#-1", "4294967296");
        Arbitrary<String> type = Arbitraries.of("i8", "u8", "i1", "u1", "i64", "u63", "u64", "i65", "i0", "x8", "I8",
                "\"\"");
        Arbitrary<String> value = Arbitraries.of("0", "1", "-1", "200", "x", "9223372036854775807",
                "-9223372036854775808");
        Arbitrary<String> op = Arbitraries.oneOf(
                Combinators.combine(type, field).as((t, f) -> "get " + t + " " + f),
                Combinators.combine(type, field, value).as((t, f, v) -> "set " + t + " " + f + " " + v),
                Combinators.combine(type, field, value).as((t, f, v) -> "incrby " + t + " " + f + " " + v),
                Arbitraries.of("overflow wrap", "overflow sat", "overflow fail", "overflow foo", "overflow", "foo",
                        "get i8", "set u8 0"));
        Arbitrary<String> command = Arbitraries.oneOf(
                Combinators.combine(key, offset, value).as((k, o, v) -> "setbit " + k + " " + o + " " + v),
                Combinators.combine(Arbitraries.of("and", "or", "xor", "not", "foo", "NOT"), key, key.list()
                        .ofMinSize(1).ofMaxSize(3))
                        .as((o, d, s) -> "bitop " + o + " " + d + " " + String.join(" ", s)),
                Combinators.combine(key, op.list().ofMaxSize(4))
                        .as((k, ops) -> "bitfield " + k + (ops.isEmpty() ? "" : " " + String.join(" ", ops))),
                Combinators.combine(key, op.list().ofMaxSize(4))
                        .as((k, ops) -> "bitfield_ro " + k + (ops.isEmpty() ? "" : " " + String.join(" ", ops))),
                Arbitraries.of("set s foobar", "hset h f v", "del m", "set n 12"));
        return command.list().ofMinSize(1).ofMaxSize(30);
    }

    @Property(tries = 60)
    void aRefusedWriteAnswersWhatItsApplyWouldAndWritesNothing(@ForAll("commands") List<String> run)
            throws IOException {
        Path root = Files.createTempDirectory("tandem-bit-refusal");
        List<String> outcomes = new ArrayList<>();
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                try (Harness pipeline = new Harness(root.resolve("pipeline"));
                        Harness twin = new Harness(root.resolve("twin"))) {
                    pipeline.run("set s foobar");
                    twin.run("set s foobar");
                    pipeline.run("hset h f v");
                    twin.run("hset h f v");
                    for (String line : run) {
                        byte[][] args = Harness.bytes(Harness.split(line));
                        boolean write = pipeline.ks.describe(Args.lower(args[0])).write();
                        String refused = write ? pipeline.ks.check(args, pipeline.nowNs()) : null;
                        outcomes.add(refused != null ? "refused" : write ? "applied" : "read");
                        byte[] before = twin.ks.digest();
                        String expected;
                        if (write) {
                            RespRecorder r = new RespRecorder();
                            twin.ks.apply(++twin.seq, twin.nowNs(), args, r);
                            twin.ks.commit();
                            expected = r.escaped();
                        } else {
                            expected = twin.exec(args);
                        }
                        assertThat(pipeline.exec(args)).as(line).isEqualTo(expected);
                        if (refused != null) {
                            assertThat(expected).as("%s was refused with %s", line, refused).startsWith("-");
                            assertThat(twin.ks.digest()).as("%s was refused: it must write nothing", line)
                                    .isEqualTo(before);
                        }
                        assertThat(pipeline.ks.digest()).as(line).isEqualTo(twin.ks.digest());
                        assertThat(pipeline.run("object encoding s")).isEqualTo(twin.run("object encoding s"));
                        assertThat(pipeline.run("object encoding n")).isEqualTo(twin.run("object encoding n"));
                    }
                }
            });
        } finally {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        // statistics belong to the property's thread, not to the one assertTimeoutPreemptively runs the try on
        outcomes.forEach(o -> Statistics.label("outcome").collect(o));
        Statistics.label("outcome").coverage(c -> {
            c.check("refused").percentage(p -> p > 10);
            c.check("applied").percentage(p -> p > 10);
        });
    }
}
