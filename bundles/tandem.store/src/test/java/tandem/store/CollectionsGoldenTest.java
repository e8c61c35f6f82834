package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The list, set and sorted-set commands against replies recorded from Redis 7.0.15: each {@code .golden} file is a
 * script run in order on one store, a command and Redis' exact RESP2 reply per line (escaped as
 * {@link RespRecorder#escaped}). A command marked {@code ~} returns members in an order Redis leaves free: its reply's
 * elements are compared sorted. The files were made by running the same commands on a real Redis; the system tests
 * (the differential corpus and the fuzzer) compare against a live one.
 */
@Timeout(60)
class CollectionsGoldenTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"lists-sets.golden", "zsets.golden", "blocking.golden"})
    void repliesAreRedis(String file) throws IOException {
        List<String> mismatches = new ArrayList<>();
        int n = 0;
        try (Harness h = new Harness(dir); InputStream in = getClass().getResourceAsStream(file)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                int tab = line.indexOf('\t');
                String cmd = line.substring(0, tab);
                String expected = line.substring(tab + 1);
                boolean unordered = cmd.startsWith("~");
                String actual = h.exec(Harness.split(unordered ? cmd.substring(1) : cmd));
                if (unordered) {
                    actual = sortReply(actual);
                }
                n++;
                if (!actual.equals(expected)) {
                    mismatches.add(cmd + "\n  redis:  " + expected + "\n  tandem: " + actual);
                }
            }
        }
        assertThat(n).isGreaterThan(30);
        assertThat(mismatches).isEmpty();
    }

    /** An escaped array reply of bulk strings with its elements sorted; any other reply as it is. */
    static String sortReply(String escaped) {
        String[] parts = escaped.split("\\\\r\\\\n");
        if (parts.length < 2 || !parts[0].startsWith("*")) {
            return escaped;
        }
        List<String> items = new ArrayList<>();
        for (int i = 1; i + 1 < parts.length; i += 2) {
            items.add(parts[i] + "\\r\\n" + parts[i + 1] + "\\r\\n");
        }
        Collections.sort(items);
        return parts[0] + "\\r\\n" + String.join("", items);
    }
}
