package tandem.protocol.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.System.Logger;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A valid change is taken whole; an invalid one is refused, with its reason logged, and nothing of it applies. */
@Timeout(10)
class ConfigChangeTest {

    private static final PropertyCheck CHECK = new PropertyCheck("tandem.test");

    /** What a component logged: its level and message. */
    private final List<String> logged = new ArrayList<>();

    private final Logger log = new Logger() {
        @Override
        public String getName() {
            return "tandem.test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            logged.add(level + " " + msg);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            logged.add(level + " " + MessageFormat.format(format, params));
        }
    };

    @Test
    void aValidChangeIsTakenAndNothingIsLogged() {
        assertThat(ConfigChange.validated(log, () -> CHECK.range("port", 7379, 0, 65535))).isEqualTo(7379);
        AtomicInteger applied = new AtomicInteger();
        ConfigChange.apply(log, applied::incrementAndGet);
        assertThat(applied).hasValue(1);
        assertThat(logged).isEmpty();
    }

    @Test
    void anInvalidChangeIsRefusedWithItsReasonAndTheRunningConfigurationStays() {
        assertThat(ConfigChange.<Integer>validated(log, () -> CHECK.range("port", 70000, 0, 65535))).isNull();
        AtomicInteger applied = new AtomicInteger();
        ConfigChange.apply(log, () -> {
            CHECK.range("heartbeat.ms", 0, 10, 60_000);
            applied.incrementAndGet();
        });
        assertThat(applied).hasValue(0);
        assertThat(logged).containsExactly(
                "ERROR configuration change refused, the running configuration stays: tandem.test: port=70000 is "
                        + "invalid: must be between 0 and 65535",
                "ERROR configuration change refused, the running configuration stays: tandem.test: heartbeat.ms=0 "
                        + "is invalid: must be between 10 and 60000");
    }
}
