package tandem.protocol.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import tandem.api.home.NodeHome;
import tandem.protocol.home.FrameworkHomeTest;

/** A value a component changes in its own configuration reaches both places the node keeps it. */
@Timeout(10)
class ConfigWriteBackTest {

    /** A framework's home when {@code tandem.home} is not set. */
    private static final NodeHome UNSET = FrameworkHomeTest.unset();

    @TempDir
    Path home;

    /** The PID's properties as ConfigurationAdmin holds them, and the PIDs asked for. */
    private final Dictionary<String, Object> stored = new Hashtable<>();
    private final List<String> asked = new ArrayList<>();
    private IOException failure;

    /** ConfigurationAdmin holding one configuration in memory (no framework runs in a unit test). */
    private ConfigurationAdmin admin() {
        Configuration configuration = (Configuration) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Configuration.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperties" -> stored.isEmpty() ? null : stored;
                    case "update" -> {
                        if (failure != null) {
                            throw failure;
                        }
                        @SuppressWarnings("unchecked")
                        Dictionary<String, Object> d = (Dictionary<String, Object>) args[0];
                        Collections.list(d.keys()).forEach(k -> stored.put(k, d.get(k)));
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (ConfigurationAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConfiguration") && args.length == 2 && "?".equals(args[1])) {
                        asked.add((String) args[0]);
                        return configuration;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void theValueGoesToTheCfgFileAndToConfigurationAdmin() throws IOException {
        Path cfg = Files.createDirectories(home.resolve("etc")).resolve("tandem.psync.cfg");
        Files.writeString(cfg, "# kept\nreplicaof = 127.0.0.1:1\nack.interval.ms = 500\n");
        stored.put("ack.interval.ms", "500");
        new ConfigWriteBack(admin(), "tandem.psync", () -> home).put("replicaof", "127.0.0.1:7001");
        assertThat(cfg).hasContent("# kept\nreplicaof = 127.0.0.1:7001\nack.interval.ms = 500");
        assertThat(asked).containsExactly("tandem.psync");
        assertThat(stored.get("replicaof")).isEqualTo("127.0.0.1:7001");
        assertThat(stored.get("ack.interval.ms")).as("the other properties stay").isEqualTo("500");
    }

    @Test
    void withoutACfgFileOrAHomeOnlyConfigurationAdminKeepsIt() {
        new ConfigWriteBack(admin(), "tandem.replication", () -> home).put("primary", "");
        assertThat(home.resolve("etc/tandem.replication.cfg")).as("a missing file stays missing").doesNotExist();
        new ConfigWriteBack(admin(), "tandem.replication", UNSET).put("ack.policy", "disk");
        assertThat(stored.get("primary")).isEqualTo("");
        assertThat(stored.get("ack.policy")).isEqualTo("disk");
    }

    @Test
    void aFailureNamesTheKeyAndWhere() throws IOException {
        Path etc = Files.createDirectories(home.resolve("etc"));
        Files.writeString(etc.resolve("tandem.psync.cfg"), "replicaof =\n");
        Files.createDirectories(etc.resolve("tandem.psync.cfg.tmp/in-the-way"));
        ConfigWriteBack writeBack = new ConfigWriteBack(admin(), "tandem.psync", () -> home);
        assertThatThrownBy(() -> writeBack.put("replicaof", "127.0.0.1:7001"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("cannot write replicaof to " + etc.resolve("tandem.psync.cfg") + ": ");
        assertThat(stored.isEmpty()).as("not stored where the file could not follow").isTrue();

        failure = new IOException("the store is read-only");
        ConfigWriteBack noFile = new ConfigWriteBack(admin(), "tandem.replication", UNSET);
        assertThatThrownBy(() -> noFile.put("primary", ""))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessage("cannot store primary=: the store is read-only");
    }
}
