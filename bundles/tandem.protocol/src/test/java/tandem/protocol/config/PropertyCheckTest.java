package tandem.protocol.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The one wording of a refused property, as the operator guide and the components' tests quote it. */
@Timeout(10)
class PropertyCheckTest {

    private final PropertyCheck check = new PropertyCheck("tandem.store");

    @Test
    void anErrorNamesThePidThePropertyAndTheValue() {
        assertThat(check.invalid("directory", "/x", "is not a valid path"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tandem.store: directory=/x is invalid: is not a valid path");
        assertThat(check.pid()).isEqualTo("tandem.store");
    }

    @Test
    void aValueInItsRangeIsReturnedAndOneOutsideIsRefused() {
        assertThat(check.range("scan.cursors", 1, 1, 1_000_000)).isEqualTo(1);
        assertThat(check.range("scan.cursors", 1_000_000, 1, 1_000_000)).isEqualTo(1_000_000);
        assertThatThrownBy(() -> check.range("scan.cursors", 0, 1, 1_000_000))
                .hasMessage("tandem.store: scan.cursors=0 is invalid: must be between 1 and 1000000");
        assertThatThrownBy(() -> check.range("port", Integer.MIN_VALUE, 0, 65535))
                .hasMessage("tandem.store: port=-2147483648 is invalid: must be between 0 and 65535");
    }

    @Test
    void aLongRangeReadsTheSame() {
        assertThat(check.range("segment.size", 1L << 40, 1L << 20, 1L << 40)).isEqualTo(1L << 40);
        assertThatThrownBy(() -> check.range("segment.size", (1L << 40) + 1, 1L << 20, 1L << 40))
                .hasMessage("tandem.store: segment.size=1099511627777 is invalid: must be between 1048576 and "
                        + "1099511627776");
    }

    @Test
    void anIpLiteralIsParsedAndAHostNameIsRefusedWithoutALookup() throws Exception {
        assertThat(check.ipLiteral("bind", "127.0.0.1")).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(check.ipLiteral("bind", "::1")).isEqualTo(InetAddress.getByName("::1"));
        assertThatThrownBy(() -> check.ipLiteral("bind", "localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tandem.store: bind=localhost is invalid: ");
    }
}
