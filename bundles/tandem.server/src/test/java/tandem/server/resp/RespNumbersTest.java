package tandem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import tandem.protocol.command.String2ll;

/** {@link RespNumbers} and {@link String2ll} against the acceptance rules of Redis' {@code string2ll}. */
class RespNumbersTest {

    private static final long INVALID = RespNumbers.INVALID;

    @Test
    @Timeout(10)
    void zero() {
        assertParses("0", 0);
        assertParses("-0", INVALID);
        assertParses("00", INVALID);
    }

    @Test
    @Timeout(10)
    void plainNumbers() {
        assertParses("1", 1);
        assertParses("99", 99);
        assertParses("-1", -1);
        assertParses("-99", -99);
        assertParses("1234567890", 1234567890L);
    }

    @Test
    @Timeout(10)
    void leadingZeroIsInvalid() {
        assertParses("01", INVALID);
        assertParses("-01", INVALID);
        assertParses("007", INVALID);
    }

    @Test
    @Timeout(10)
    void signsAndBlanksAreInvalid() {
        assertParses("+1", INVALID);
        assertParses(" 1", INVALID);
        assertParses("1 ", INVALID);
        assertParses("-", INVALID);
        assertParses("--1", INVALID);
        assertParses("1-", INVALID);
        assertParses("", INVALID);
        assertParses("1\r", INVALID);
        assertParses("1\0", INVALID);
        assertParses("0x10", INVALID);
        assertParses("1e3", INVALID);
        assertParses("1.0", INVALID);
        assertParses("\u00b9", INVALID);
    }

    @Test
    @Timeout(10)
    void longRange() {
        assertParses("9223372036854775807", Long.MAX_VALUE);
        assertParses("9223372036854775808", INVALID);
        assertParses("18446744073709551615", INVALID);
        assertParses("18446744073709551616", INVALID);
        assertParses("99999999999999999999", INVALID);
        assertParses("-9223372036854775807", -Long.MAX_VALUE);
        assertParses("-9223372036854775809", INVALID);
        // string2ll accepts LLONG_MIN, but it is RespNumbers' INVALID sentinel: documented, callers decide
        assertParses("-9223372036854775808", INVALID);
    }

    @Test
    @Timeout(10)
    void twentyCharacterLimit() {
        // LONG_STR_SIZE is 21: 20 characters are examined, 21 are refused before parsing
        assertParses("-1000000000000000000", -1_000_000_000_000_000_000L); // 20 chars
        assertParses("00000000000000000001", INVALID); // 20 chars, leading zero
        assertParses("000000000000000000001", INVALID); // 21 chars
        assertParses("-0000000000000000001", INVALID);
    }

    @Test
    @Timeout(10)
    void parsesARangeOfABuffer() {
        ByteBuf buf = Unpooled.copiedBuffer("*123\r\n$-7\r\n", StandardCharsets.US_ASCII);
        try {
            assertThat(RespNumbers.parseLong(buf, 1, 4)).isEqualTo(123);
            assertThat(RespNumbers.parseLong(buf, 7, 9)).isEqualTo(-7);
            assertThat(RespNumbers.parseLong(buf, 1, 5)).isEqualTo(INVALID);
            assertThat(RespNumbers.parseLong(buf, 1, 1)).isEqualTo(INVALID);
            assertThat(RespNumbers.parseLong(buf, 4, 1)).isEqualTo(INVALID);
        } finally {
            buf.release();
        }
    }

    @Test
    @Timeout(10)
    void agreesWithLongParseLongOnCanonicalForms() {
        long[] values = {0, 1, -1, 7, 10, -10, 65536, Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 40,
                Long.MAX_VALUE, Long.MIN_VALUE + 1};
        for (long v : values) {
            assertParses(Long.toString(v), v);
        }
    }

    private static void assertParses(String text, long expected) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        if (expected == INVALID && !text.equals(Long.toString(Long.MIN_VALUE))) {
            assertThatThrownBy(() -> String2ll.parse(bytes)).as("String2ll.parse(\"%s\")", text)
                    .isInstanceOf(NumberFormatException.class);
        } else {
            assertThat(String2ll.parse(bytes)).as("String2ll.parse(\"%s\")", text)
                    .isEqualTo(expected == INVALID ? Long.MIN_VALUE : expected); // string2ll accepts LLONG_MIN
        }
        ByteBuf padded = Unpooled.buffer().writeByte('*').writeBytes(bytes).writeBytes(new byte[] {'\r', '\n'});
        try {
            assertThat(RespNumbers.parseLong(padded, 1, 1 + bytes.length)).as("parseLong(buf, \"%s\")", text)
                    .isEqualTo(expected);
        } finally {
            padded.release();
        }
    }
}
