package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * HyperLogLog values as bytes: {@code hll-binary.golden} (recorded from redis-server 7.0.15 with
 * {@code record-golden.py}) hands the store values Redis wrote (SET, RESTORE), values crafted to reach every path
 * of the sparse encoding (PFMERGE of chosen registers), corrupt ones, and dense ones with registers no PFADD makes;
 * an argument written {@code hex:…} is those bytes. {@code hll.golden}, in {@link GoldenRepliesTest}, covers the
 * commands on values they build themselves.
 */
@Timeout(60)
class HllTest {

    @TempDir
    Path dir;

    @Test
    void valuesRedisWroteOrThatWereCraftedGetRedisReplies() throws IOException {
        List<String> lines;
        try (InputStream in = getClass().getResourceAsStream("/golden/hll-binary.golden")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        int checked = 0;
        try (Harness h = new Harness(dir)) {
            for (String line : lines) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int arrow = line.indexOf(" => ");
                String command = line.substring(0, arrow);
                String[] tokens = Harness.split(command);
                byte[][] args = new byte[tokens.length][];
                for (int i = 0; i < tokens.length; i++) {
                    args[i] = tokens[i].startsWith("hex:") ? HexFormat.of().parseHex(tokens[i].substring(4))
                            : tokens[i].getBytes(StandardCharsets.UTF_8);
                }
                assertThat(h.exec(args)).as(command.length() > 200 ? command.substring(0, 200) : command)
                        .isEqualTo(line.substring(arrow + 4));
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(200);
    }

    @Test
    void anEmptyHllIsTheHeaderAndOneXzeroOf16384() {
        byte[] empty = Hll.create().bytes();
        assertThat(HexFormat.of().formatHex(empty)).isEqualTo("48594c4c" + "01000000" + "0000000000000000" + "7fff");
        assertThat(Hll.DENSE_SIZE).isEqualTo(16 + 12288);
        assertThat(Hll.isValid(empty)).isTrue();
    }

    @Test
    void pfcountIsAReadThatLeavesTheCacheStale() {
        try (Harness h = new Harness(dir)) {
            h.run("pfadd h a b c");
            String before = h.run("get h");
            long applied = h.ks.appliedSequence();
            assertThat(h.run("pfcount h")).isEqualTo(":3\\r\\n");
            assertThat(h.ks.appliedSequence()).as("nothing journaled").isEqualTo(applied);
            // Redis would now hold the count in bytes 8 to 15, valid: Tandem's header still says stale
            assertThat(h.run("get h")).isEqualTo(before).contains("\\x00\\x80");
            assertThat(h.ks.describe("pfcount").write()).isFalse();
        }
    }

    @Test
    void aPfaddThatMeetsCorruptOpcodesKeepsWhatItChangedBeforeAsRedisDoes() {
        try (Harness h = new Harness(dir)) {
            // registers 0-63 only: an element for them is added, the first beyond them fails the command
            byte[] value = HexFormat.of().parseHex("48594c4c010000000000000000000000" + "3f");
            h.exec(new byte[][] {Args.ascii("set"), Args.ascii("k"), value});
            String first = null;
            for (int i = 0; i < 2000 && first == null; i++) {
                if ((int) Hll.patLen(Args.ascii("e" + i)) < 64) {
                    first = "e" + i;
                }
            }
            assertThat(first).isNotNull();
            assertThat(h.run("pfadd k " + first + " far-away-element-" + first))
                    .isEqualTo("-INVALIDOBJ Corrupted HLL object detected\\r\\n");
            assertThat(h.run("strlen k")).as("the first element split the ZERO run").isNotEqualTo(":17\\r\\n");
        }
    }
}
