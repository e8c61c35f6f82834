package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rank index of large sorted sets, with its thresholds lowered so that small sets use it and its intervals split
 * often: ZRANK, ZREVRANK and ranges by index agree with a plain model of the set under random adds, score changes,
 * removals and pops, across rounds and after a reopen (which drops the index).
 */
@Timeout(60)
class RankIndexTest {

    @TempDir
    Path dir;

    private int minSize;
    private int span;

    @BeforeEach
    void lower() {
        minSize = RankIndex.minSize;
        span = RankIndex.span;
        RankIndex.minSize = 8;
        RankIndex.span = 4;
    }

    @AfterEach
    void restore() {
        RankIndex.minSize = minSize;
        RankIndex.span = span;
    }

    @Test
    void ranksAndRangesAgreeWithAModel() {
        Random random = new Random(17);
        Map<String, Double> model = new HashMap<>();
        try (Harness h = new Harness(dir)) {
            for (int step = 0; step < 3000; step++) {
                String member = "m" + random.nextInt(300);
                int op = random.nextInt(10);
                if (op < 5) {
                    double score = random.nextInt(40) - 20 + (random.nextBoolean() ? 0.5 : 0);
                    h.run("zadd z " + score + " " + member);
                    model.put(member, score);
                } else if (op == 5) {
                    h.run("zincrby z 1 " + member);
                    model.merge(member, 1.0, Double::sum);
                } else if (op == 6) {
                    h.run("zrem z " + member);
                    model.remove(member);
                } else if (op == 7 && !model.isEmpty()) {
                    String popped = h.run(random.nextBoolean() ? "zpopmin z" : "zpopmax z");
                    String name = popped.split("\\\\r\\\\n")[2];
                    model.remove(name);
                } else if (op == 8 && step % 500 == 0) {
                    h.reopen();
                }
                if (step % 7 == 0) {
                    check(h, model, random);
                }
            }
            check(h, model, random);
        }
    }

    private static void check(Harness h, Map<String, Double> model, Random random) {
        List<Map.Entry<String, Double>> order = new ArrayList<>(model.entrySet());
        order.sort(Comparator.<Map.Entry<String, Double>>comparingDouble(Map.Entry::getValue)
                .thenComparing(e -> e.getKey().getBytes(), Arrays::compareUnsigned));
        assertThat(h.run("zcard z")).isEqualTo(":" + order.size() + "\\r\\n");
        for (int k = 0; k < 5 && !order.isEmpty(); k++) {
            int i = random.nextInt(order.size());
            String member = order.get(i).getKey();
            assertThat(h.run("zrank z " + member)).as("zrank of %s", member).isEqualTo(":" + i + "\\r\\n");
            assertThat(h.run("zrevrank z " + member)).isEqualTo(":" + (order.size() - 1 - i) + "\\r\\n");
            int j = Math.min(order.size() - 1, i + random.nextInt(6));
            StringBuilder expected = new StringBuilder("*" + (j - i + 1) + "\\r\\n");
            for (int x = i; x <= j; x++) {
                String m = order.get(x).getKey();
                expected.append("$").append(m.length()).append("\\r\\n").append(m).append("\\r\\n");
            }
            assertThat(h.run("zrange z " + i + " " + j)).as("zrange %d %d", i, j).isEqualTo(expected.toString());
            StringBuilder reversed = new StringBuilder("*" + (j - i + 1) + "\\r\\n");
            for (int x = order.size() - 1 - i; x >= order.size() - 1 - j; x--) {
                String m = order.get(x).getKey();
                reversed.append("$").append(m.length()).append("\\r\\n").append(m).append("\\r\\n");
            }
            assertThat(h.run("zrevrange z " + i + " " + j)).isEqualTo(reversed.toString());
        }
    }
}
