package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class RoleTest {

    @TempDir
    Path dir;

    @Test
    void noFileMeansNoRoleWasEverDeclared() {
        assertThat(new Role(dir.resolve("node")).read()).isNull();
    }

    @Test
    void aReplicaAndAPrimaryAreReadBackAsWritten() throws Exception {
        Role role = new Role(dir.resolve("node"));
        role.write(new Role.Declared("127.0.0.1:7101", "journal"));
        assertThat(Files.readString(dir.resolve("node").resolve(Role.FILE), StandardCharsets.UTF_8))
                .isEqualTo("journal 127.0.0.1:7101\n");
        assertThat(new Role(dir.resolve("node")).read()).isEqualTo(new Role.Declared("127.0.0.1:7101", "journal"));
        role.write(new Role.Declared("[::1]:7001", "psync"));
        assertThat(new Role(dir.resolve("node")).read()).isEqualTo(new Role.Declared("[::1]:7001", "psync"));
        role.write(new Role.Declared(null, "journal"));
        assertThat(Files.readString(dir.resolve("node").resolve(Role.FILE), StandardCharsets.UTF_8))
                .as("a primary the journal protocol declared: a restart waits for it to declare again")
                .isEqualTo("journal\n");
        assertThat(new Role(dir.resolve("node")).read()).isEqualTo(new Role.Declared(null, "journal"));
        assertThat(new Role(dir.resolve("node")).read().awaitsProtocol()).isTrue();
        role.write(new Role.Declared(null, null));
        assertThat(Files.readString(dir.resolve("node").resolve(Role.FILE), StandardCharsets.UTF_8)).isEqualTo("\n");
        assertThat(new Role(dir.resolve("node")).read()).isEqualTo(new Role.Declared(null, null));
        assertThat(new Role(dir.resolve("node")).read().awaitsProtocol()).as("a promotion's primary").isFalse();
        assertThat(new Role.Declared("127.0.0.1:7101", "journal").awaitsProtocol()).as("a replica").isFalse();
    }

    @Test
    void anUnreadableFileIsNoRoleAndIsReplacedByTheNextDeclaration() throws Exception {
        Files.createDirectories(dir.resolve("node").resolve(Role.FILE)); // a directory where the file should be
        Role role = new Role(dir.resolve("node"));
        assertThat(role.read()).isNull();
        role.write(new Role.Declared(null, null)); // logged, not thrown: the role still applies in memory
        assertThat(Files.isDirectory(dir.resolve("node").resolve(Role.FILE))).isTrue();
    }
}
