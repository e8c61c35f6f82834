package tandem.protocol.frpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tandem.protocol.command.CommandPayload;

/** A RESP2 array read in place: every element where it lies, every malformed array refused before it is used. */
@Timeout(10)
class RespArrayTest {

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void elementsAreFoundWhereTheyLieInsideALargerBuffer() {
        ByteBuffer b = ascii("xx*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\nyy");
        RespArray a = new RespArray().read(b, 2, b.limit());
        assertThat(a.count()).isEqualTo(3);
        assertThat(a.end()).isEqualTo(b.limit() - 2);
        assertThat(a.elementStart(0)).isEqualTo(6);
        assertThat(a.start(0)).isEqualTo(10);
        assertThat(new String(a.element(0), StandardCharsets.US_ASCII)).isEqualTo("SET");
        assertThat(a.length(2)).isZero();
        assertThat(a.is(0, "SET".getBytes(StandardCharsets.US_ASCII))).isTrue();
        assertThat(new RespArray().read(ascii("*1\r\n$3\r\nsEt\r\n"), 0, 13).is(0,
                "SET".getBytes(StandardCharsets.US_ASCII))).as("in any case").isTrue();
        assertThat(a.is(1, "SET".getBytes(StandardCharsets.US_ASCII))).isFalse();
        assertThat(RespArray.end(b, 2, b.limit())).isEqualTo(a.end());
        assertThat(b.position()).as("the buffer's position is left alone").isZero();
    }

    @Test
    void whatIsNotACanonicalArrayOfBulkStringsIsRefused() {
        for (String bad : List.of("", "*0\r\n", "*1\r\n$3\r\nab\r\n", "+OK\r\n", "*1\r\n$01\r\na\r\n",
                "*01\r\n$1\r\na\r\n", "*2\r\n$1\r\na\r\n", "*1\r\n$1\r\nab\r\n", "*1\r\n:1\r\n",
                "*99999999999\r\n", "*1\r\n$-1\r\n", "*1\r\n$1\r\na")) {
            ByteBuffer b = ascii(bad);
            assertThatThrownBy(() -> new RespArray().read(b, 0, b.limit())).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> RespArray.end(b, 0, b.limit())).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aLimitInsideTheArrayIsItsEnd() {
        ByteBuffer b = ascii("*1\r\n$3\r\nSET\r\n");
        assertThatThrownBy(() -> new RespArray().read(b, 0, b.limit() - 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overruns");
    }

    @Property(tries = 200)
    void everyCanonicalCommandReadsBackToItsArguments(@ForAll("commands") byte[][] args) {
        byte[] encoded = CommandPayload.encode(args);
        RespArray a = new RespArray().read(ByteBuffer.wrap(encoded), 0, encoded.length);
        assertThat(a.end()).isEqualTo(encoded.length);
        assertThat(a.count()).isEqualTo(args.length);
        for (int i = 0; i < args.length; i++) {
            assertThat(a.element(i)).isEqualTo(args[i]);
        }
    }

    @Provide
    Arbitrary<byte[][]> commands() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(40).array(byte[][].class).ofMinSize(1)
                .ofMaxSize(40);
    }
}
