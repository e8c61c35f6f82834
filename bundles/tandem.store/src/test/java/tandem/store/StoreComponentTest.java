package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

import tandem.api.store.CommandDescriptor;

@Timeout(30)
class StoreComponentTest {

    @TempDir
    Path home;

    private static StoreComponent.Config config(Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return Converters.standardConverter().convert(props).to(StoreComponent.Config.class);
    }

    @Test
    void defaultsAreValid() {
        StoreSettings s = StoreSettings.of(config(), "/srv/node1");
        assertThat(s.directory()).isEqualTo(Path.of("/srv/node1/data/store"));
        assertThat(s.flushIntervalMs()).isEqualTo(1000);
        assertThat(s.expireKeysPerTick()).isEqualTo(100);
        assertThat(s.scanCursors()).isEqualTo(1024);
        StoreSettings dotted = StoreSettings.of(config("directory", "/tmp/x", "flush.interval.ms", "50",
                "expire.keys.per.tick", 7, "scan.cursors", "9"), null);
        assertThat(dotted).isEqualTo(new StoreSettings(Path.of("/tmp/x"), 50, 7, 9));
    }

    @Test
    void everyInvalidValueIsRefusedWithThePropertyNamed() {
        assertThatThrownBy(() -> StoreSettings.of(config("flush.interval.ms", 5), null))
                .hasMessage("tandem.store: flush.interval.ms=5 is invalid: must be between 10 and 3600000");
        assertThatThrownBy(() -> StoreSettings.of(config("expire.keys.per.tick", 0), null))
                .hasMessage("tandem.store: expire.keys.per.tick=0 is invalid: must be between 1 and 1000000");
        assertThatThrownBy(() -> StoreSettings.of(config("scan.cursors", -1), null))
                .hasMessage("tandem.store: scan.cursors=-1 is invalid: must be between 1 and 1000000");
    }

    @Test
    void activatesAppliesModifiesAndReopens() {
        StoreComponent store = new StoreComponent(config("flush.interval.ms", 10), () -> home);
        RespRecorder r = new RespRecorder();
        store.apply(1, Harness.T0 * 1_000_000L, store.resolve(Harness.bytes("set", "k", "v")), r);
        store.commit();
        assertThat(r.escaped()).isEqualTo("+OK\\r\\n");
        assertThat(store.status().directory()).isEqualTo(home.resolve("data/store").toString());
        assertThat(store.describe("set")).extracting(CommandDescriptor::arity, CommandDescriptor::write)
                .containsExactly(-3, true);
        assertThat(store.describe("xyzzy")).isNull();
        assertThat(store.commands()).hasSize(186);

        store.modified(config("flush.interval.ms", 20, "expire.keys.per.tick", 1, "scan.cursors", 2,
                "directory", "/elsewhere"));
        assertThat(store.settings().expireKeysPerTick()).isEqualTo(1);
        assertThat(store.settings().directory()).isEqualTo(home.resolve("data/store")); // at next activation
        store.modified(config("flush.interval.ms", 1)); // refused: the running configuration stays
        assertThat(store.settings().flushIntervalMs()).isEqualTo(20);
        store.deactivate();

        StoreComponent again = new StoreComponent(config(), () -> home);
        try {
            assertThat(again.appliedSequence()).isEqualTo(1);
            assertThat(again.status().flushedSequence()).isEqualTo(1);
            RespRecorder get = new RespRecorder();
            again.read(Harness.T0 * 1_000_000L, again.resolve(Harness.bytes("get", "k")), get);
            assertThat(get.escaped()).isEqualTo("$1\\r\\nv\\r\\n");
        } finally {
            again.deactivate();
        }
    }

    @Test
    void descriptorsFollowRedis7() {
        StoreComponent store = new StoreComponent(config(), () -> home);
        try {
            assertThat(store.describe("mset")).isEqualTo(new CommandDescriptor("mset", -3, true, 1, -1, 2,
                    java.util.List.of("write", "denyoom"), "string", "1.0.1", "Set multiple keys to multiple values"));
            assertThat(store.describe("get").write()).isFalse();
            assertThat(store.commands()).allSatisfy(d -> {
                if (java.util.Set.of("object", "memory", "script", "function", "xgroup", "xinfo").contains(d.name())) {
                    assertThat(d.flags()).as("a container has none in Redis: its subcommands have them").isEmpty();
                } else if (d.group().equals("scripting")) {
                    assertThat(d.flags()).as("a script may read or write").contains("noscript")
                            .doesNotContain("write");
                } else {
                    assertThat(d.flags()).contains(d.write() ? "write" : "readonly");
                }
                assertThat(d.summary()).isNotBlank();
            });
        } finally {
            store.deactivate();
        }
    }
}
