package tandem.protocol.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import tandem.protocol.command.CommandPayload;

class ReplconfTest {

    private static byte[][] args(String... a) {
        byte[][] b = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i].getBytes(StandardCharsets.US_ASCII);
        }
        return b;
    }

    @Test
    void anAckIsTheCanonicalRespArrayAndParsesBackCaseInsensitively() {
        assertThat(new String(Replconf.ack(1234), StandardCharsets.US_ASCII))
                .isEqualTo("*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$4\r\n1234\r\n");
        assertThat(Replconf.parseAck(CommandPayload.decode(Replconf.ack(0)).get(0))).isZero();
        assertThat(Replconf.parseAck(args("replconf", "ack", "99"))).isEqualTo(99);
        assertThat(Replconf.parseAck(args("REPLCONF", "GETACK", "*"))).isEqualTo(-1);
        assertThat(Replconf.parseAck(args("REPLCONF", "ACK"))).isEqualTo(-1);
        assertThat(Replconf.isGetAck(args("replconf", "getack", "*"))).isTrue();
        assertThat(Replconf.isGetAck(args("replconf", "ack", "1"))).isFalse();
        assertThatThrownBy(() -> Replconf.parseAck(args("REPLCONF", "ACK", "x1")))
                .hasMessageContaining("not an integer");
        assertThatThrownBy(() -> Replconf.parseAck(args("REPLCONF", "ACK", "-5"))).hasMessageContaining("negative");
        assertThatThrownBy(() -> Replconf.ack(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
