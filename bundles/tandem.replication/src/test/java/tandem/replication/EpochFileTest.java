package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The epoch a node has seen, as {@link ReplicationComponent} records it in its state directory. */
@Timeout(10)
class EpochFileTest {

    @TempDir
    Path dir;

    @Test
    void theEpochIsReplacedWholeAndReadBack() throws IOException {
        Path state = dir.resolve("replication");
        assertThat(ReplicationComponent.readEpoch(state)).isZero();
        ReplicationComponent.writeEpoch(state, 3);
        assertThat(ReplicationComponent.readEpoch(state)).isEqualTo(3);
        ReplicationComponent.writeEpoch(state, 12);
        assertThat(ReplicationComponent.readEpoch(state)).isEqualTo(12);
        assertThat(state.resolve("epoch")).hasContent("12");
        assertThat(state.resolve("epoch.tmp")).doesNotExist();
    }

    @Test
    void aTemporaryFileACrashLeftChangesNothing() throws IOException {
        ReplicationComponent.writeEpoch(dir, 5);
        Files.writeString(dir.resolve("epoch.tmp"), "9"); // torn before its rename
        assertThat(ReplicationComponent.readEpoch(dir)).isEqualTo(5);
        ReplicationComponent.writeEpoch(dir, 6);
        assertThat(ReplicationComponent.readEpoch(dir)).isEqualTo(6);
        assertThat(dir.resolve("epoch.tmp")).doesNotExist();
    }

    @Test
    void anEpochThatCannotBeWrittenLeavesTheOldOne() throws IOException {
        ReplicationComponent.writeEpoch(dir, 5);
        Files.createDirectories(dir.resolve("epoch.tmp/in-the-way"));
        assertThatThrownBy(() -> ReplicationComponent.writeEpoch(dir, 6)).isInstanceOf(IOException.class);
        assertThat(ReplicationComponent.readEpoch(dir)).isEqualTo(5);
    }
}
