package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The epoch a node has seen, as {@link EpochFile} records it in its state directory. */
@Timeout(10)
class EpochFileTest {

    @TempDir
    Path dir;

    @Test
    void theEpochIsReplacedWholeAndReadBack() throws IOException {
        Path state = dir.resolve("replication");
        assertThat(EpochFile.read(state)).isZero();
        EpochFile.write(state, 3);
        assertThat(EpochFile.read(state)).isEqualTo(3);
        EpochFile.write(state, 12);
        assertThat(EpochFile.read(state)).isEqualTo(12);
        assertThat(state.resolve("epoch")).hasContent("12");
        assertThat(state.resolve("epoch.tmp")).doesNotExist();
    }

    @Test
    void aTemporaryFileACrashLeftChangesNothing() throws IOException {
        EpochFile.write(dir, 5);
        Files.writeString(dir.resolve("epoch.tmp"), "9"); // torn before its rename
        assertThat(EpochFile.read(dir)).isEqualTo(5);
        EpochFile.write(dir, 6);
        assertThat(EpochFile.read(dir)).isEqualTo(6);
        assertThat(dir.resolve("epoch.tmp")).doesNotExist();
    }

    @Test
    void anEpochThatCannotBeWrittenLeavesTheOldOne() throws IOException {
        EpochFile.write(dir, 5);
        Files.createDirectories(dir.resolve("epoch.tmp/in-the-way"));
        assertThatThrownBy(() -> EpochFile.write(dir, 6)).isInstanceOf(IOException.class);
        assertThat(EpochFile.read(dir)).isEqualTo(5);
    }

    @Test
    void anEpochOnlyAdvancesAndIsRecordedBeforeItIsCurrent() throws IOException {
        EpochFile.write(dir, 4);
        EpochFile epoch = new EpochFile();
        epoch.load(dir);
        assertThat(epoch.current()).isEqualTo(4);
        epoch.advance(3);
        assertThat(epoch.current()).as("never back").isEqualTo(4);
        epoch.advance(7);
        assertThat(epoch.current()).isEqualTo(7);
        assertThat(EpochFile.read(dir)).isEqualTo(7);
        Files.createDirectories(dir.resolve("epoch.tmp/in-the-way"));
        assertThatThrownBy(() -> epoch.advance(8)).hasMessageStartingWith("cannot record epoch 8 in " + dir);
        assertThat(epoch.current()).as("not current unless recorded").isEqualTo(7);
        assertThat(EpochFile.read(dir)).isEqualTo(7);
    }
}
