package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.system.PubSubSystemTest.readValue;
import static tandem.system.RespSockets.connect;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code MONITOR} side by side with Redis 7.0: the same requests on both, the lines a monitor reads compared with
 * their time and client address masked. A line follows every command that ran (an error reply included), in the
 * order the commands ran, a transaction's commands at {@code EXEC} before it; none for a command refused before it
 * ran (unknown, wrong arity) or an admin command; secrets redacted; arguments quoted as Redis quotes them.
 */
@Timeout(120)
class MonitorSystemTest {

    private static TandemNode tandem;
    private static RedisProcess redis;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisProcess.start();
        tandem = TandemNode.start("monitor");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(tandem, redis);
    }

    private static final String[] REQUESTS = {
        "SET k \"a b\\\"c\"", "*3\r\n$3\r\nset\r\n$2\r\nk2\r\n$2\r\n\u00ff\u0001", "GET k", "GETX", "GET", "PING",
        "CONFIG GET port", "AUTH x y", "HELLO 2 AUTH default pw", "MULTI", "INCR n", "PING", "EXEC",
        "CLIENT SETNAME x", "CLIENT LIST", "INFO server", "SLOWLOG LEN", "ECHO \"a\\nb\\tc\\\\\"", "DEL k k2 n"};

    /** Runs the requests on a second connection; @return the lines the monitor read, time and address masked */
    private static List<String> monitored(int port) throws IOException {
        try (Socket monitor = connect(port); Socket client = connect(port)) {
            monitor.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = monitor.getInputStream();
            assertThat(readValue(in)).isEqualTo("+OK\r\n");
            for (String request : REQUESTS) {
                String raw = request.startsWith("*") ? request + "\r\n" : request + "\r\n";
                client.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
                readValue(client.getInputStream());
            }
            // the last request's line marks the end
            List<String> lines = new ArrayList<>();
            String line;
            do {
                line = readValue(in);
                lines.add(line.replaceFirst("^\\+\\d+\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+\\]", "+T [0 A]"));
            } while (!line.contains("\"DEL\""));
            // the monitor itself may PING; a keyspace command is refused, as on a replica
            monitor.getOutputStream().write("PING\r\nGET k\r\n".getBytes(StandardCharsets.ISO_8859_1));
            List<String> own = new ArrayList<>(List.of(readValue(in), readValue(in), readValue(in)));
            assertThat(own).containsExactlyInAnyOrder("+PONG\r\n", "-ERR Replica can't interact with the keyspace\r\n",
                    own.stream().filter(s -> s.contains("\"PING\"")).findFirst().orElse("no line for PING"));
            return lines;
        }
    }

    @Test
    void aMonitorReadsTheLinesRedisWrites() throws IOException {
        List<String> expected = monitored(redis.port());
        assertThat(expected).as("Redis' lines").hasSizeGreaterThan(10);
        assertThat(monitored(tandem.port())).isEqualTo(expected);
    }

    @Test
    void resetLeavesMonitorMode() throws IOException {
        try (Socket monitor = connect(tandem.port()); Socket client = connect(tandem.port())) {
            monitor.getOutputStream().write("MONITOR\r\nRESET\r\nGET k\r\n".getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = monitor.getInputStream();
            assertThat(readValue(in)).isEqualTo("+OK\r\n");
            assertThat(readValue(in)).isEqualTo("+RESET\r\n");
            assertThat(readValue(in)).as("a client again").isEqualTo("$-1\r\n");
            client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(readValue(client.getInputStream())).isEqualTo("+PONG\r\n");
            monitor.getOutputStream().write("ECHO after\r\n".getBytes(StandardCharsets.ISO_8859_1));
            assertThat(readValue(in)).as("no line for the other client's PING").isEqualTo("$5\r\nafter\r\n");
        }
    }
}
