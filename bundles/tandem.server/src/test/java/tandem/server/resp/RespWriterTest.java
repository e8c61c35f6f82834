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
    }
}
