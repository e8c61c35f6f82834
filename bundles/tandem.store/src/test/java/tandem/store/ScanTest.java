package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** SCAN, HSCAN and KEYS over more keys than one reply holds. */
@Timeout(30)
class ScanTest {

    @TempDir
    Path dir;

    /** One SCAN/HSCAN reply, parsed: the next cursor and the elements. */
    private record Page(String cursor, List<String> items) {
    }

    private static Page page(String escaped) {
        String[] parts = escaped.split("\\\\r\\\\n");
        List<String> items = new ArrayList<>();
        for (int i = 4; i < parts.length; i += 2) {
            items.add(parts[i + 1]); // the line after each $len
        }
        return new Page(parts[2], items);
    }

    @Test
    void scanReturnsEveryKeyPresentThroughoutDespiteChanges() {
        try (Harness h = new Harness(dir)) {
            Set<String> stable = new HashSet<>();
            for (int i = 0; i < 300; i++) {
                h.run("set k" + i + " v");
                stable.add("k" + i);
            }
            Set<String> seen = new HashSet<>();
            String cursor = "0";
            int calls = 0;
            do {
                Page p = page(h.run("scan " + cursor + " count 7"));
                seen.addAll(p.items());
                cursor = p.cursor();
                calls++;
                h.run("set new" + calls + " v"); // keys come and go meanwhile
                h.run("del new" + (calls - 1));
            } while (!cursor.equals("0"));
            assertThat(seen).containsAll(stable);
            assertThat(calls).isGreaterThan(300 / 7);
        }
    }

    @Test
    void matchAndTypeFilterWhatAStepVisits() {
        try (Harness h = new Harness(dir)) {
            h.run("set a1 v");
            h.run("set b1 v");
            h.run("hset a2 f v");
            h.run("set a3 v px 5");
            h.nowMs += 5;
            assertThat(page(h.run("scan 0 match a* count 100")).items()).containsExactly("a1", "a2");
            assertThat(page(h.run("scan 0 type hash count 100")).items()).containsExactly("a2");
            assertThat(h.run("keys a*")).isEqualTo("*2\\r\\n$2\\r\\na1\\r\\n$2\\r\\na2\\r\\n");
        }
    }

    @Test
    void aForgottenCursorRestartsItsIteration() {
        try (Harness h = new Harness(dir.resolve("s"), 100, 2)) {
            for (int i = 0; i < 10; i++) {
                h.run("set k" + i + " v");
            }
            Page first = page(h.run("scan 0 count 3"));
            assertThat(first.items()).containsExactly("k0", "k1", "k2");
            assertThat(page(h.run("scan " + first.cursor() + " count 3")).items()).containsExactly("k3", "k4", "k5");
            h.run("scan 0 count 1");
            h.run("scan 0 count 1"); // two newer cursors push the first one out
            assertThat(page(h.run("scan " + first.cursor() + " count 3")).items()).containsExactly("k0", "k1", "k2");
            assertThat(page(h.run("scan 12345 count 2")).items()).containsExactly("k0", "k1");
        }
    }

    @Test
    void hscanPagesThroughALargeHashAndReturnsASmallOneWhole() {
        try (Harness h = new Harness(dir)) {
            StringBuilder small = new StringBuilder("hset small");
            for (int i = 0; i < 128; i++) {
                small.append(" f").append(i).append(" v");
            }
            h.run(small.toString());
            Page whole = page(h.run("hscan small 0 count 5"));
            assertThat(whole.cursor()).isEqualTo("0");
            assertThat(whole.items()).hasSize(256);

            StringBuilder big = new StringBuilder("hset big");
            for (int i = 0; i < 300; i++) {
                big.append(" f").append(i).append(" v").append(i);
            }
            h.run(big.toString());
            Set<String> fields = new HashSet<>();
            String cursor = "0";
            int calls = 0;
            do {
                Page p = page(h.run("hscan big " + cursor + " count 50"));
                for (int i = 0; i < p.items().size(); i += 2) {
                    fields.add(p.items().get(i));
                    assertThat(p.items().get(i + 1)).isEqualTo("v" + p.items().get(i).substring(1));
                }
                cursor = p.cursor();
                calls++;
            } while (!cursor.equals("0"));
            assertThat(fields).hasSize(300);
            assertThat(calls).isEqualTo(6);
        }
    }
}
