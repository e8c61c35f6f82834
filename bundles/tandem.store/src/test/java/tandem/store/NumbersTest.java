package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tandem.protocol.command.Glob;

@Timeout(10)
class NumbersTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest
    @CsvSource({"0,0", "-1,-1", "9223372036854775807,9223372036854775807",
        "-9223372036854775808,-9223372036854775808", "42,42"})
    void string2llAccepts(String text, long value) {
        assertThat(Numbers.parseLong(b(text))).isEqualTo(value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "+1", "01", "-0", " 1", "1 ", "-", "1.0", "9223372036854775808",
        "-9223372036854775809", "123456789012345678901", "0x10", "1e3"})
    void string2llRefuses(String text) {
        assertThatThrownBy(() -> Numbers.parseLong(b(text))).isInstanceOf(CommandError.class)
                .hasMessage("ERR value is not an integer or out of range");
    }

    /** Each value: Redis 7.0.15's INCRBYFLOAT of the first by the second (x87 long double, %.17Lf, trimmed). */
    @ParameterizedTest
    @CsvSource({"10.1,0,10.1", "11.1,5000,5011.10000000000000009", "3,0.1,3.1", "0.1,0.2,0.3", "1.5,-1.5,0",
        "-0.1,0.09,-0.01", "123456789012345678,1,123456789012345679", "0x10,1,17", "17,.5,17.5",
        "22.5,0x.8p1,23.5", "11.10000000000000009,-8.1,3.00000000000000009"})
    void longDoubleAdditionPrintsAsRedisDoes(String a, String by, String expected) {
        BigDecimal sum = Numbers.add(Numbers.parseLongDouble(b(a), "x"), Numbers.parseLongDouble(b(by), "x"));
        assertThat(new String(Numbers.formatLongDouble(sum), StandardCharsets.US_ASCII)).isEqualTo(expected);
    }

    @Test
    void infinitiesParseAndOverflowsDoNot() {
        assertThat(Numbers.parseLongDouble(b("inf"), "x")).isNull();
        assertThat(Numbers.parseLongDouble(b("-Infinity"), "x")).isNull();
        assertThat(Numbers.add(Numbers.parseLongDouble(b("1e4932"), "x"), Numbers.parseLongDouble(b("1e4932"), "x")))
                .isNull();
        for (String bad : new String[] {"nan", "1.2e4932", "1e-5000", "1e", "0x", " 1", "1_0", "--1"}) {
            assertThatThrownBy(() -> Numbers.parseLongDouble(b(bad), "ERR bad")).as(bad)
                    .isInstanceOf(CommandError.class).hasMessage("ERR bad");
        }
    }

    @Test
    void cursorsFollowStrtoul() {
        assertThat(Args.cursor(b(""))).isZero();
        assertThat(Args.cursor(b("\u0000"))).as("strtoul stops at a NUL: cursor 0, as Redis reads it").isZero();
        assertThat(Args.cursor(b("5\u0000abc"))).isEqualTo(5);
        assertThat(Args.cursor(b("+5"))).isEqualTo(5);
        assertThat(Args.cursor(b("-1"))).isEqualTo(-1L);
        assertThat(Args.cursor(b("18446744073709551615"))).isEqualTo(-1L);
        for (String bad : new String[] {" 0", "18446744073709551616", "x", "+", "1 "}) {
            assertThatThrownBy(() -> Args.cursor(b(bad))).as(bad).hasMessage("ERR invalid cursor");
        }
    }

    @Test
    void globMatchesAsStringmatchlen() {
        assertThat(Glob.matches(b("h?llo"), b("hello"), false)).isTrue();
        assertThat(Glob.matches(b("h*o"), b("hello"), false)).isTrue();
        assertThat(Glob.matches(b("h[ae]llo"), b("hallo"), false)).isTrue();
        assertThat(Glob.matches(b("h[^e]llo"), b("hello"), false)).isFalse();
        assertThat(Glob.matches(b("h[a-b]llo"), b("hbllo"), false)).isTrue();
        assertThat(Glob.matches(b("h\\*"), b("h*"), false)).isTrue();
        assertThat(Glob.matches(b("a*"), b("a"), false)).isTrue();
        assertThat(Glob.matches(b("*"), b(""), false)).isFalse();
        assertThat(Glob.matches(b("[\u00e9]"), b("\u00e9"), false)).isTrue();
    }
}
