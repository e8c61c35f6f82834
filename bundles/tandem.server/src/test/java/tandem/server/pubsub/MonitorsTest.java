package tandem.server.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Golden bytes of a MONITOR line, as Redis 7.0 writes them (recorded from redis-server 7.0.15). */
@Timeout(10)
class MonitorsTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aLineIsTheTimeTheClientAndEachArgumentQuotedAsSdscatreprQuotesIt() {
        String line = new String(Monitors.line("127.0.0.1:50636",
                new byte[][] {b("set"), b("k \"q\" \\"), b("\u00ff\u0001\n\r\t\u0007\b~ ")}), StandardCharsets.ISO_8859_1);
        assertThat(line).matches("\\+\\d{10}\\.\\d{6} \\[0 127\\.0\\.0\\.1:50636\\] .*\r\n");
        assertThat(line.substring(line.indexOf(']') + 1)).isEqualTo(
                " \"set\" \"k \\\"q\\\" \\\\\" \"\\xff\\x01\\n\\r\\t\\a\\b~ \"\r\n");
    }
}
