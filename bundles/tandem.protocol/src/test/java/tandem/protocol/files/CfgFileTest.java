package tandem.protocol.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class CfgFileTest {

    @TempDir
    Path dir;

    @Test
    void aKeyIsReplacedOrAddedAndEverythingElseStays() throws IOException {
        Path cfg = dir.resolve("tandem.psync.cfg");
        Files.writeString(cfg, "# the primary\nreplicaof =\nmasterauth = x\n");
        assertThat(CfgFile.put(cfg, "replicaof", "127.0.0.1:7001")).isTrue();
        assertThat(CfgFile.put(cfg, "ack.interval.ms", "500")).isTrue();
        assertThat(Files.readString(cfg)).isEqualTo("# the primary\nreplicaof = 127.0.0.1:7001\nmasterauth = x\n"
                + "ack.interval.ms = 500\n");
        assertThat(dir.resolve("tandem.psync.cfg.tmp")).doesNotExist();
        assertThat(CfgFile.put(dir.resolve("missing.cfg"), "k", "v")).isFalse();
        assertThat(dir.resolve("missing.cfg")).doesNotExist();
    }

    @Test
    void theFileKeepsItsPermissions() throws IOException {
        Path cfg = dir.resolve("tandem.server.cfg");
        Files.writeString(cfg, "requirepass = secret\n");
        Files.setPosixFilePermissions(cfg, PosixFilePermissions.fromString("rw-------"));
        assertThat(CfgFile.put(cfg, "port", "7001")).isTrue();
        assertThat(Files.getPosixFilePermissions(cfg)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(cfg).hasContent("requirepass = secret\nport = 7001");
    }

    @Test
    void aFileThatCannotBeReplacedStaysAsItWas() throws IOException {
        Path cfg = dir.resolve("tandem.psync.cfg");
        Files.writeString(cfg, "replicaof =\n");
        Files.createDirectories(dir.resolve("tandem.psync.cfg.tmp/in-the-way"));
        assertThatThrownBy(() -> CfgFile.put(cfg, "replicaof", "127.0.0.1:7001")).isInstanceOf(IOException.class);
        assertThat(cfg).hasContent("replicaof =");
    }
}
