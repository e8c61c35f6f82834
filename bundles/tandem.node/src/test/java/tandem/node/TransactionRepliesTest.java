package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.store.Command;

@Timeout(10)
class TransactionRepliesTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void nestedRepliesAreToldApartAndTheFrontEndsRunInTheirPlaces() {
        TestFrontend frontend = new TestFrontend(new NodeCore(1000));
        TestFrontend.TestClient client = frontend.client(1);
        TransactionReplies replies = new TransactionReplies(3);
        // what the keyspace writes for: ZRANGE z 0 -1 WITHSCORES (RESP3 pairs), HGETALL h (an empty map),
        // GET missing, LRANGE l 0 -1 (an array with an empty array inside it, as a nested reply could be)
        replies.array(4);
        replies.array(2).array(2).bulk(b("a")).doubleValue(b("1")).array(2).bulk(b("b")).doubleValue(b("2.5"));
        replies.map(0);
        replies.nullBulk();
        replies.array(2).array(0).bulk(b("x"));
        Command ping = Command.frontend(new byte[][] {b("PING")}, "ping", null);
        List<Command> all = List.of(ping, keyspace("zrange"), keyspace("hgetall"), ping, keyspace("get"),
                keyspace("lrange"));
        replies.writeTo(client, all, c -> false);
        assertThat(client.written()).isEqualTo("*6\r\n+PONG\r\n*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n"
                + "$3\r\n2.5\r\n*0\r\n+PONG\r\n$-1\r\n*2\r\n*0\r\n$1\r\nx\r\n");
    }

    private static Command keyspace(String name) {
        return Command.keyspace(new byte[][] {b(name)}, name, new tandem.api.store.CommandDescriptor(name, -1, true, 0,
                0, 0, List.of("write"), "generic", "1.0.0", ""), null, 0);
    }
}
