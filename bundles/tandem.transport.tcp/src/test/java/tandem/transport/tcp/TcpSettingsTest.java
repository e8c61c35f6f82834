package tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.UnknownHostException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Configuration validation and the resolver-free address parser. */
@Timeout(10)
class TcpSettingsTest {

    private static TcpSettings settings(Object... keyValues) {
        return TcpSettings.of(TcpTransportTest.config(keyValues));
    }

    @Test
    void defaults() {
        assertThat(settings()).isEqualTo(new TcpSettings(1, 4 * 1024 * 1024, 1024 * 1024, true, false));
    }

    @Test
    void valuesAreRead() {
        assertThat(settings("io.threads", "3", "write.buffer.high.bytes", 65536, "write.buffer.low.bytes", "1024",
                "tcp.nodelay", "false", "tls", "true")).isEqualTo(new TcpSettings(3, 65536, 1024, false, true));
    }

    @Test
    void eachRefusalNamesItsProperty() {
        assertThatIllegalArgumentException().isThrownBy(() -> settings("io.threads", 0))
                .withMessage("tandem.transport.tcp: io.threads=0 is invalid: must be between 1 and 64");
        assertThatIllegalArgumentException().isThrownBy(() -> settings("write.buffer.high.bytes", 10))
                .withMessageContaining("write.buffer.high.bytes=10");
        assertThatIllegalArgumentException().isThrownBy(() -> settings("write.buffer.low.bytes", -1))
                .withMessageContaining("write.buffer.low.bytes=-1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> settings("write.buffer.high.bytes", 4096, "write.buffer.low.bytes", 4096))
                .withMessage("tandem.transport.tcp: write.buffer.low.bytes=4096 is invalid: must be less than "
                        + "write.buffer.high.bytes=4096");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "0.0.0.0", "10.1.2.255", "::1", "::", "fe80::1", "::ffff:10.0.0.1"})
    void literalsParse(String literal) throws Exception {
        assertThat(IpLiteral.parse("host", literal)).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "example.com", "node-1", "256.0.0.1", "1.2.3", "1.2.3.4.5", "", ":::1::"})
    void anythingElseIsRefusedNamingIt(String text) {
        assertThatThrownBy(() -> IpLiteral.parse("bind address", text)).isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("bind address '" + text + "'");
    }
}
