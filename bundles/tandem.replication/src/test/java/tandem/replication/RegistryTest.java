package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The replica registry on disk: what one instance registers, the next one (a restart) reads. */
@Timeout(10)
class RegistryTest {

    @TempDir
    Path dir;

    @Test
    void registeredReplicasSurviveARestartAndForgottenOnesStayForgotten() {
        Registry registry = new Registry(dir.resolve("state"));
        assertThat(registry.isEmpty()).isTrue();
        assertThat(registry.register("a2V5LTE=", 1000)).isTrue();
        assertThat(registry.register("a2V5LTI=", 2000)).isTrue();
        assertThat(registry.register("a2V5LTE=", 3000)).isFalse();
        assertThat(registry.forget("a2V5LTE=")).isTrue();
        assertThat(new Registry(dir.resolve("state")).ids()).containsExactly("a2V5LTI=");
        assertThat(dir.resolve("state/registry")).content().contains("a2V5LTI= 2000\n");
        assertThat(dir.resolve("state/registry.tmp")).doesNotExist();
    }

    @Test
    void aRegistrationThatCannotBeWrittenFailsAndLeavesTheFileAsItWas() throws IOException {
        Registry registry = new Registry(dir);
        registry.register("a2V5LTE=", 1000);
        String before = Files.readString(dir.resolve("registry"));
        Files.createDirectories(dir.resolve("registry.tmp/in-the-way"));
        assertThatThrownBy(() -> registry.register("a2V5LTI=", 2000)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot write the replica registry");
        assertThat(dir.resolve("registry")).hasContent(before.strip());
        assertThat(new Registry(dir).ids()).containsExactly("a2V5LTE=");
    }
}
