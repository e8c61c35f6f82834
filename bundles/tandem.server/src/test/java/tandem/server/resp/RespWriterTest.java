package tandem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Golden bytes of every reply the writer puts together. */
@Timeout(10)
class RespWriterTest {

    private static String written(java.util.function.Consumer<RespWriter> write) {
        ByteBuf buf = Unpooled.buffer();
        try {
            write.accept(new RespWriter().target(buf));
            return buf.toString(StandardCharsets.ISO_8859_1);
        } finally {
            buf.release();
        }
    }

    @Test
    void everyReplyIsRedisBytes() {
        assertThat(written(w -> w.simple("OK"))).isEqualTo("+OK\r\n");
        assertThat(written(w -> w.simple("PONG"))).isEqualTo("+PONG\r\n");
        assertThat(written(w -> w.error("ERR bad\r\nthing"))).isEqualTo("-ERR bad  thing\r\n");
        assertThat(written(w -> w.integer(0))).isEqualTo(":0\r\n");
        assertThat(written(w -> w.integer(-5))).isEqualTo(":-5\r\n");
        assertThat(written(w -> w.integer(Long.MAX_VALUE))).isEqualTo(":9223372036854775807\r\n");
        assertThat(written(w -> w.integer(Long.MIN_VALUE))).isEqualTo(":-9223372036854775808\r\n");
        assertThat(written(w -> w.bulk(new byte[] {'a', '\r', 'b'}))).isEqualTo("$3\r\na\rb\r\n");
        assertThat(written(w -> w.bulk(new byte[0]))).isEqualTo("$0\r\n\r\n");
        assertThat(written(w -> w.array(12).nullBulk().nullArray())).isEqualTo("*12\r\n$-1\r\n*-1\r\n");
        // the RESP3 types in RESP2: the shapes Redis 7.0 sends a RESP2 client for the same reply
        assertThat(written(w -> w.map(2).set(3).doubleValue(ascii("2.5")).verbatim("a\nb").push(3)))
                .isEqualTo("*4\r\n*3\r\n$3\r\n2.5\r\n$3\r\na\nb\r\n*3\r\n");
    }

    @Test
    void resp3TypesAreRedisBytes() {
        assertThat(written(w -> w.protocol(3).map(2).set(3).push(3).array(1)))
                .isEqualTo("%2\r\n~3\r\n>3\r\n*1\r\n");
        assertThat(written(w -> w.protocol(3).doubleValue(ascii("2.5")).doubleValue(ascii("-inf"))))
                .isEqualTo(",2.5\r\n,-inf\r\n");
        assertThat(written(w -> w.protocol(3).nullBulk().nullArray())).isEqualTo("_\r\n_\r\n");
        assertThat(written(w -> w.protocol(3).verbatim("# Server\r\n"))).isEqualTo("=14\r\ntxt:# Server\r\n\r\n");
        assertThat(written(w -> w.protocol(3).integer(7).bulk(ascii("x")).simple("OK")))
                .isEqualTo(":7\r\n$1\r\nx\r\n+OK\r\n");
    }

    @Test
    void clientReplyDropsWholeRepliesNestedOnesIncluded() {
        // SKIP: its own reply and the next are dropped, however nested; the one after is written
        assertThat(written(w -> {
            w.replies("skip").simple("OK");
            w.array(2).array(2).bulk(ascii("a")).doubleValue(ascii("1")).map(1).bulk(ascii("k")).array(0);
            w.integer(7);
        })).isEqualTo(":7\r\n");
        // OFF until ON; ON's own reply is written; an error is counted though not sent
        RespWriter counted = new RespWriter();
        assertThat(written(w -> {
            w.replies("off").simple("OK");
            w.error("ERR x").nullArray().set(1).bulk(ascii("m"));
            w.replies("on").simple("OK");
            w.integer(1);
        })).isEqualTo("+OK\r\n:1\r\n");
        // a reply taken back (a blocking command's nil) leaves what SKIP owes
        assertThat(written(w -> {
            w.replies("skip").simple("OK");
            w.saveMark();
            w.nullArray();
            w.restoreMark();
            w.bulk(ascii("served")); // the same request's real reply: dropped
            w.integer(2);
        })).isEqualTo(":2\r\n");
        assertThat(counted.errors()).isZero();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
