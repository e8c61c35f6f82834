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
    void eachRefusalNamesItsProperty() {
        assertThatThrownBy(() -> HealthSettings.validate(config("port", 0))).hasMessageContaining("tandem.health: port");
        assertThatThrownBy(() -> HealthSettings.validate(config("port", 70000))).hasMessageContaining("port");
        assertThatThrownBy(() -> HealthSettings.validate(config("threads", 2))).hasMessageContaining("threads");
        assertThatThrownBy(() -> HealthSettings.validate(config("bind", "localhost")))
                .hasMessageContaining("tandem.health: bind 'localhost'");
    }
}
