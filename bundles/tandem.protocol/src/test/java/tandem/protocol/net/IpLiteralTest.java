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

    @org.junit.jupiter.api.Test
    void hostPortSplitsALiteralAndAPortAndNamesWhatIsWrong() {
        assertThat(IpLiteral.hostPort("127.0.0.1:6379")).containsExactly("127.0.0.1", "6379");
        assertThat(IpLiteral.hostPort(" [::1]:7001 ")).containsExactly("::1", "7001");
        assertThat(IpLiteral.hostPort("  ")).isNull();
        assertThatThrownBy(() -> IpLiteral.hostPort("localhost:6379")).hasMessageContaining("host names are refused");
        assertThatThrownBy(() -> IpLiteral.hostPort("127.0.0.1")).hasMessage("must be IP:PORT");
        assertThatThrownBy(() -> IpLiteral.hostPort("127.0.0.1:x")).hasMessage("must be IP:PORT");
        assertThatThrownBy(() -> IpLiteral.hostPort("127.0.0.1:0"))
                .hasMessage("the port must be between 1 and 65535");
    }
}
