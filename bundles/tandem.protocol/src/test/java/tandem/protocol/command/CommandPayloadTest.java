package tandem.protocol.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

@Timeout(10)
class CommandPayloadTest {

    private static final String SET_K_V = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n";
    private static final String TX = "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nc\r\n*1\r\n$4\r\nEXEC\r\n";

    @Test
    void encodesTheGoldenBytes() {
        assertThat(ascii(CommandPayload.encode(args("SET", "k", "v")))).isEqualTo(SET_K_V);
        assertThat(ascii(CommandPayload.encodeTransaction(List.<byte[][]>of(args("INCR", "c"))))).isEqualTo(TX);
        assertThat(ascii(CommandPayload.encode(args("ECHO", "")))).isEqualTo("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n");
    }

    @Test
    void decodesCommandsAndTransactions() {
        List<byte[][]> one = CommandPayload.decode(bytes(SET_K_V));
        assertThat(one).hasSize(1);
        assertThat(one.get(0)).isDeepEqualTo(args("SET", "k", "v"));
        assertThat(CommandPayload.isTransaction(bytes(TX))).isTrue();
        List<byte[][]> tx = CommandPayload.decode(bytes(TX));
        assertThat(tx).hasSize(1);
        assertThat(tx.get(0)).isDeepEqualTo(args("INCR", "c"));
        assertThat(CommandPayload.decode(bytes("*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n"))).isEmpty();
    }

    @Test
    void refusesNonCanonicalOrTruncatedPayloads() {
        for (String bad : List.of("", "*0\r\n", "*01\r\n$1\r\na\r\n", "*1\r\n$-1\r\n", "*1\r\n$5\r\nab\r\n",
                "*1\r\n$1\r\nab\r\n", SET_K_V + "x", "*2\r\n$1\r\na\r\n", "*1\r\n$1\r\na\n\r",
                "*1\r\n$5\r\nMULTI\r\n*1\r\n$1\r\na\r\n", "*99999999999\r\n")) {
            assertThatThrownBy(() -> CommandPayload.decode(bytes(bad))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aCommandOfAnotherDatabaseIsPrecededByItsSelect() {
        assertThat(ascii(CommandPayload.encode(3, args("SET", "k", "v"))))
                .isEqualTo("*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n" + SET_K_V);
        assertThat(ascii(CommandPayload.encode(0, args("SET", "k", "v")))).isEqualTo(SET_K_V);
        assertThat(ascii(CommandPayload.encodeTransaction(List.of(args("INCR", "a"), args("INCR", "b"),
                args("INCR", "c"), args("INCR", "d")), new int[] {0, 12, 12, 0})))
                .isEqualTo("*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\na\r\n"
                        + "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n*2\r\n$4\r\nINCR\r\n$1\r\nb\r\n"
                        + "*2\r\n$4\r\nINCR\r\n$1\r\nc\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                        + "*2\r\n$4\r\nINCR\r\n$1\r\nd\r\n*1\r\n$4\r\nEXEC\r\n");
        List<CommandPayload.Decoded> one = CommandPayload.decodeInDatabases(CommandPayload.encode(15,
                args("GET", "k")));
        assertThat(one).hasSize(1);
        assertThat(one.get(0).db()).isEqualTo(15);
        assertThat(ascii(one.get(0).args()[0])).isEqualTo("GET");
        List<CommandPayload.Decoded> txn = CommandPayload.decodeInDatabases(CommandPayload.encodeTransaction(
                List.of(args("INCR", "a"), args("INCR", "b"), args("INCR", "c")), new int[] {5, 5, 0}));
        assertThat(txn).extracting(CommandPayload.Decoded::db).containsExactly(5, 5, 0);
        for (String bad : List.of("*2\r\n$6\r\nSELECT\r\n$2\r\n16\r\n" + SET_K_V,
                "*2\r\n$6\r\nSELECT\r\n$1\r\nx\r\n" + SET_K_V,
                "*1\r\n$5\r\nMULTI\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n1\r\n*1\r\n$4\r\nEXEC\r\n")) {
            assertThatThrownBy(() -> CommandPayload.decodeInDatabases(bytes(bad))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> CommandPayload.select(16)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keyHashIsFnv1a64() {
        assertThat(KeyHash.fnv1a64(new byte[0])).isEqualTo(0xcbf29ce484222325L);
        assertThat(KeyHash.fnv1a64(bytes("a"))).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(KeyHash.fnv1a64(bytes("foobar"))).isEqualTo(0x85944171f73967e8L);
    }

    @Property(tries = 200)
    void roundTrips(@ForAll @Size(min = 1, max = 8) List<@Size(max = 40) byte[]> arguments) {
        byte[][] args = arguments.toArray(byte[][]::new);
        byte[] payload = CommandPayload.encode(args);
        assertThat(payload).hasSize(CommandPayload.encodedLength(args));
        List<byte[][]> decoded = CommandPayload.decode(payload);
        assertThat(decoded).hasSize(1);
        assertThat(CommandPayload.encode(decoded.get(0))).isEqualTo(payload);
    }

    private static byte[][] args(String... s) {
        byte[][] out = new byte[s.length][];
        for (int i = 0; i < s.length; i++) {
            out[i] = bytes(s[i]);
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
