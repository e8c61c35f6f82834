package tandem.health;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.osgi.util.converter.Converters;

@Timeout(10)
class HealthSettingsTest {

    private static HttpEndpoint.Config config(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return Converters.standardConverter().convert(m).to(HttpEndpoint.Config.class);
    }

    @Test
    void defaultsAreValidAndOffIsMinusOne() {
        assertThatCode(() -> HealthSettings.validate(config())).doesNotThrowAnyException();
        assertThatCode(() -> HealthSettings.validate(config("port", -1))).doesNotThrowAnyException();
        assertThatCode(() -> HealthSettings.validate(config("bind", "::1"))).doesNotThrowAnyException();
    }

    @Test
    void portZeroFollowsTheRespPortPlus3000() {
        tandem.api.server.ServerStatus resp = (tandem.api.server.ServerStatus) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {tandem.api.server.ServerStatus.class},
                (proxy, method, args) -> method.getName().equals("port") ? 6379 : null);
        org.assertj.core.api.Assertions.assertThat(HttpEndpoint.port(config(), resp)).isEqualTo(9379);
        org.assertj.core.api.Assertions.assertThat(HttpEndpoint.port(config(), null)).isEqualTo(-1);
        org.assertj.core.api.Assertions.assertThat(HttpEndpoint.port(config("port", 8080), resp)).isEqualTo(8080);
        org.assertj.core.api.Assertions.assertThat(HttpEndpoint.port(config("port", -1), resp)).isEqualTo(-1);
    }

    @Test
    void eachRefusalNamesItsProperty() {
        assertThatThrownBy(() -> HealthSettings.validate(config("port", -2)))
                .hasMessageContaining("tandem.health: port");
        assertThatThrownBy(() -> HealthSettings.validate(config("port", 70000))).hasMessageContaining("port");
        assertThatThrownBy(() -> HealthSettings.validate(config("threads", 2))).hasMessageContaining("threads");
        assertThatThrownBy(() -> HealthSettings.validate(config("bind", "localhost")))
                .hasMessageContaining("tandem.health: bind 'localhost'");
    }
}
