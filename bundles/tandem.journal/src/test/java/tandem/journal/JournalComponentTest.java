package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.home.NodeHome;

@Timeout(20)
class JournalComponentTest {

    /** What the framework's home is when {@code tandem.home} is not set: the working directory, not named. */
    private static final NodeHome UNSET = new NodeHome() {
        @Override
        public Path directory() {
            return Path.of("").toAbsolutePath();
        }

        @Override
        public boolean isSet() {
            return false;
        }
    };

    @TempDir
    Path home;

    private static JournalComponent.Config config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(JournalComponent.Config.class);
    }

    @Test
    void theDefaultDirectoryIsUnderTandemHome() throws Exception {
        JournalComponent c = new JournalComponent(config(Map.of()), () -> home);
        try {
            assertThat(c.status().directory()).isEqualTo(home.resolve("data/journal").toString());
            long seq = Fixtures.append(c, 1, 0, Fixtures.APP, Fixtures.command("SET", "a", "1"));
            c.awaitDurable(seq);
            assertThat(c.settings().segmentSize()).isEqualTo(256L * 1024 * 1024);
            assertThat(c.settings().maxBatchEntries()).isEqualTo(4096);
            assertThat(c.settings().lineageArchivesKeep()).isEqualTo(3);
            assertThat(c.settings().waitStrategy()).isEqualTo(WaitStrategy.BLOCKING);

            Map<String, Object> live = new HashMap<>();
            live.put("wait.strategy", "spin-yield");
            live.put("max.batch.entries", 16);
            live.put("directory", home.resolve("elsewhere").toString());
            c.modified(config(live));
            assertThat(c.settings().waitStrategy()).isEqualTo(WaitStrategy.SPIN_YIELD);
            assertThat(c.settings().maxBatchEntries()).isEqualTo(16);
            assertThat(c.settings().directory()).isEqualTo(home.resolve("data/journal"));
            c.modified(config(Map.of("segment.size", 10))); // refused: the running configuration stays
            assertThat(c.settings().maxBatchEntries()).isEqualTo(16);
            assertThat(c.lastSequence()).isEqualTo(seq);
        } finally {
            c.deactivate();
        }
    }

    @Test
    void invalidValuesNameTheirProperty() {
        NodeHome h = () -> home;
        assertInvalid(Map.of("segment.size", 1024), h, "tandem.journal: segment.size=1024 is invalid");
        assertInvalid(Map.of("wait.strategy", "sleepy"), h, "wait.strategy=sleepy");
        assertInvalid(Map.of("max.batch.entries", 0), h, "max.batch.entries=0");
        assertInvalid(Map.of("retention.max.bytes", -1), h, "retention.max.bytes=-1");
        assertInvalid(Map.of("retention.max.age.seconds", -5), h, "retention.max.age.seconds=-5");
        assertInvalid(Map.of("lineage.archives.keep", -1), h, "lineage.archives.keep=-1");
        assertInvalid(Map.of(), UNSET, "directory= is invalid: is not set and the framework property tandem.home "
                + "is not set either");
        assertInvalid(Map.of("directory", "relative/journal"), UNSET, "directory=relative/journal is invalid: must "
                + "be an absolute path");
    }

    @Test
    void aRelativeDirectoryIsResolvedAgainstTandemHome() {
        JournalSettings s = JournalSettings.of(config(Map.of("directory", "j")), () -> home);
        assertThat(s.directory()).isEqualTo(home.resolve("j"));
    }

    private static void assertInvalid(Map<String, Object> props, NodeHome home, String message) {
        assertThatThrownBy(() -> JournalSettings.of(config(props), home))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }
}
