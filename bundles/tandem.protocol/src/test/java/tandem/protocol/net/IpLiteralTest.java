package tandem.protocol.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class IpLiteralTest {

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "0.0.0.0", "255.255.255.255", "::1", "::", "fe80::1", "::ffff:10.0.0.1"})
    void literalsParse(String text) {
        assertThat(IpLiteral.parse(text)).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "cafe", "beef", "example.com", "", "1.2.3", "a.b.c.d"})
    void namesAreRefusedWithoutALookup(String text) {
        // "cafe" and "beef" are hex words: a resolver would be asked if they reached InetAddress.getByName bare
        assertThatThrownBy(() -> IpLiteral.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host names are refused");
    }

    @ParameterizedTest
    @ValueSource(strings = {"999.1.1.1", "1:::::::::1"})
    void malformedLiteralsAreRefused(String text) {
        assertThatThrownBy(() -> IpLiteral.parse(text)).hasMessage("is not a valid IP address");
    }
}
