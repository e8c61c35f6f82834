package tandem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.osgi.util.converter.Converters;

@Timeout(10)
class ServerSettingsTest {

    private static RespServer.Config config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(RespServer.Config.class);
    }

    private static ServerSettings settings(Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return ServerSettings.of(config(props));
    }

    @Test
    void defaultsAreValid() {
        ServerSettings s = settings();
        assertThat(s.port()).isEqualTo(6379);
        assertThat(s.bind()).isEqualTo("127.0.0.1");
        assertThat(s.maxClients()).isEqualTo(10000);
        assertThat(s.maxRequestSize()).isEqualTo(512 * 1024 * 1024);
        assertThat(s.transport()).isEqualTo("auto");
        assertThat(s.ioThreads()).isEqualTo(2);
    }

    @Test
    void dottedPropertyNamesMapToTheAttributes() {
        ServerSettings s = settings("max.clients", "7", "max.request.size", 4096, "io.threads", "3",
                "transport", "NIO", "bind", "::1", "port", "0");
        assertThat(s.maxClients()).isEqualTo(7);
        assertThat(s.maxRequestSize()).isEqualTo(4096);
        assertThat(s.ioThreads()).isEqualTo(3);
        assertThat(s.transport()).isEqualTo("nio");
        assertThat(s.bindAddress().getHostAddress()).isEqualTo("0:0:0:0:0:0:0:1");
        assertThat(s.port()).isZero();
    }

    @Test
    void everyInvalidValueIsRefusedWithThePropertyNamed() {
        assertRefused("tandem.server: port=70000 is invalid: must be between -1 and 65535", "port", 70000);
        assertRefused("tandem.server: port=-2 is invalid", "port", -2);
        assertRefused("tandem.server: port=-1 is invalid: with tls.port=-1 too the node would serve no client",
                "port", -1);
        assertRefused("tandem.server: tls.port=70000 is invalid: must be between -1 and 65535", "tls.port", 70000);
        assertRefused("tandem.server: bind=localhost is invalid: must be an IPv4 or IPv6 address literal", "bind",
                "localhost");
        assertRefused("tandem.server: bind=999.1.1.1 is invalid: is not a valid IP address", "bind", "999.1.1.1");
        assertRefused("tandem.server: bind=1:::::::::1 is invalid: is not a valid IP address", "bind", "1:::::::::1");
        assertRefused("tandem.server: max.clients=0 is invalid: must be between 1 and 1000000", "max.clients", 0);
        assertRefused("tandem.server: max.request.size=1023 is invalid", "max.request.size", 1023);
        assertRefused("tandem.server: transport=dpdk is invalid: must be auto, epoll or nio", "transport", "dpdk");
        assertRefused("tandem.server: io.threads=65 is invalid: must be between 1 and 64", "io.threads", 65);
    }

    private static void assertRefused(String message, String key, Object value) {
        assertThatThrownBy(() -> settings(key, value)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }
}
