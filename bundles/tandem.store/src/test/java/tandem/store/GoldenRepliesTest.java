package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays transcripts recorded against redis-server 7.0.15 ({@code src/test/resources/golden/*.golden}: one
 * {@code command => raw reply} per line, in order, on one connection) and compares every reply byte for byte. The
 * transcripts cover every command of the store with its edge cases and error texts; times stay relative and far
 * from any deadline, so the recording's wall clock does not matter.
 */
@Timeout(30)
class GoldenRepliesTest {

    @TempDir
    Path dir;

    /**
     * Marks the next line as one whose reply holds the time it ran at (an ID made by {@code *}, an idle time, a
     * delivery or seen time): Redis ran it at its clock's time, the harness at {@link Harness#T0}.
     */
    private static final String TIMED = "#~";

    /**
     * The reply with the numbers that tell the time masked: integers of 12 digits or more (a time in
     * milliseconds, or an idle time from one long ago), the number after an {@code idle} field, and the
     * milliseconds of an ID of 13 digits.
     */
    static String untimed(String reply) {
        return reply.replaceAll(":\\d{12,}\\\\r", ":T\\\\r")
                .replaceAll("idle\\\\r\\\\n:\\d+", "idle\\\\r\\\\n:I")
                .replaceAll("(\\$\\d+\\\\r\\\\n)\\d{13}-", "$1T-");
    }

    /** The command's arguments as {@link Harness#split} reads them; a token {@code hex:…} is those bytes. */
    private static byte[][] arguments(String command) {
        String[] tokens = Harness.split(command);
        byte[][] args = Harness.bytes(tokens);
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i].startsWith("hex:")) {
                args[i] = java.util.HexFormat.of().parseHex(tokens[i].substring(4));
            } else if (tokens[i].startsWith("esc:")) {
                args[i] = unescape(tokens[i].substring(4));
            }
        }
        return args;
    }

    /** A token {@code esc:…}: its escapes ({@code \\n}, {@code \\r}, {@code \\t}, {@code \\\\}) read. */
    private static byte[] unescape(String s) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char e = s.charAt(++i);
                out.write(switch (e) {
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    default -> e;
                });
            } else {
                out.write(c);
            }
        }
        return out.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"strings", "keys", "hashes", "refusals", "bits", "lcs", "object", "scripts", "hll",
        "geo", "streams", "functions", "libs"})
    void everyReplyIsRedis7s(String transcript) throws IOException {
        List<String> lines;
        try (InputStream in = getClass().getResourceAsStream("/golden/" + transcript + ".golden")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        int checked = 0;
        boolean timed = false;
        try (Harness h = new Harness(dir)) {
            for (String line : lines) {
                if (line.equals(TIMED)) {
                    timed = true;
                    continue;
                }
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int arrow = line.indexOf(" => ");
                String command = line.substring(0, arrow);
                String expected = line.substring(arrow + 4);
                String actual = h.exec(arguments(command));
                if (timed) {
                    expected = untimed(expected);
                    actual = untimed(actual);
                    timed = false;
                }
                assertThat(actual).as("%s: %s", transcript, command).isEqualTo(expected);
                checked++;
            }
        }
        assertThat(checked).as("lines checked").isGreaterThan(50);
    }
}
