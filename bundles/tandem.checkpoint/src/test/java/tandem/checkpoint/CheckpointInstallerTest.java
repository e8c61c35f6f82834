package tandem.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.checkpoint.Fixtures.assertSameFiles;
import static tandem.checkpoint.Fixtures.checkpointDir;
import static tandem.checkpoint.Fixtures.snapshot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import tandem.checkpoint.CheckpointInstaller.Recovery;
import tandem.checkpoint.CheckpointInstaller.Step;

@Timeout(30)
class CheckpointInstallerTest {

    /** Thrown from a step hook: the process "dies" there, nothing after the step runs. */
    private static final class Crash extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    @TempDir
    Path tmp;

    private Path root;
    private Path store;
    private Map<String, byte[]> oldStore;
    private Map<String, byte[]> newStore;

    /** An old store (two files, a nested dir as RocksDB has none but a store might) and a staged checkpoint. */
    private void setUp(boolean withStore) throws IOException {
        root = tmp.resolve("checkpoints");
        store = tmp.resolve("db");
        if (withStore) {
            checkpointDir(store, 1, Map.of("000001.sst", 5000, "CURRENT", 16));
            checkpointDir(store.resolve("archive"), 2, Map.of("old.log", 10));
        }
        oldStore = snapshot(store);
        Fixtures.stage(root, checkpointDir(tmp.resolve("source"), 3, Map.of("000009.sst", 7000, "CURRENT", 16)), 42);
        newStore = snapshot(root.resolve("staged"));
    }

    private CheckpointInstaller installer(int keep) {
        return new CheckpointInstaller(root, store, keep);
    }

    private CheckpointInstaller crashingAt(Step step) {
        return new CheckpointInstaller(root, store, 2, s -> {
            if (s == step) {
                throw new Crash();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Step.class)
    void aCrashAtAnyStepRecoversToTheNewStoreNeverHalf(Step step) throws IOException {
        setUp(true);
        assertThatThrownBy(() -> crashingAt(step).install()).isInstanceOf(Crash.class);

        Recovery r = installer(2).recover();
        assertThat(r).isEqualTo(step == Step.STORE_SET_ASIDE || step == Step.STORE_SET_ASIDE_SYNCED
                ? Recovery.FINISHED_INSTALL : Recovery.NOTHING);
        assertSameFiles(snapshot(store), newStore);
        assertThat(Files.exists(root.resolve("staged"))).isFalse();
        assertThat(installer(2).replaced()).containsExactly(root.resolve("replaced.1").toAbsolutePath());
        assertSameFiles(snapshot(root.resolve("replaced.1")), oldStore);
        assertThat(StagedCheckpoint.read(store).replicationOffset()).isEqualTo(42);

        assertThat(installer(2).recover()).isEqualTo(Recovery.NOTHING); // idempotent
        assertSameFiles(snapshot(store), newStore);
    }

    @ParameterizedTest
    @EnumSource(value = Step.class, names = {"STAGED_MOVED_IN", "STAGED_MOVED_IN_SYNCED", "PRUNED"})
    void aCrashWhenThereWasNoStoreRecoversToTheNewStore(Step step) throws IOException {
        setUp(false);
        assertThatThrownBy(() -> crashingAt(step).install()).isInstanceOf(Crash.class);
        assertThat(installer(2).recover()).isEqualTo(Recovery.NOTHING);
        assertSameFiles(snapshot(store), newStore);
        assertThat(installer(2).replaced()).isEmpty();
    }

    @Test
    void aCrashBeforeTheInstallBeganLeavesTheOldStoreAndTheStagedCheckpoint() throws IOException {
        setUp(true);
        // step 0: install() never ran (the node died after staging)
        for (int i = 0; i < 2; i++) {
            assertThat(installer(2).recover()).isEqualTo(Recovery.STAGED_PENDING);
            assertSameFiles(snapshot(store), oldStore);
            assertSameFiles(snapshot(root.resolve("staged")), newStore);
        }
        assertThat(installer(2).staged().replicationOffset()).isEqualTo(42);
        // the caller decides to install it after all
        StagedCheckpoint installed = installer(2).install();
        assertThat(installed.directory()).isEqualTo(store.toAbsolutePath());
        assertSameFiles(snapshot(store), newStore);
        assertThat(installer(2).staged()).isNull();
    }

    @Test
    void aStagedCheckpointWithoutStoreIsFinishedAtRecover() throws IOException {
        setUp(false);
        assertThat(installer(2).recover()).isEqualTo(Recovery.FINISHED_INSTALL);
        assertSameFiles(snapshot(store), newStore);
        assertThat(installer(2).recover()).isEqualTo(Recovery.NOTHING);
    }

    @Test
    void onlyTheNewestKReplacedStoresAreKept() throws IOException {
        setUp(true);
        Map<String, byte[]> previous = oldStore;
        for (int i = 1; i <= 4; i++) {
            if (i > 1) {
                previous = snapshot(store);
                Fixtures.stage(root, checkpointDir(tmp.resolve("src" + i), 10 + i, Map.of("f" + i, 100 * i)), i);
            }
            installer(2).install();
        }
        assertThat(installer(2).replaced()).containsExactly(root.resolve("replaced.3").toAbsolutePath(),
                root.resolve("replaced.4").toAbsolutePath());
        assertSameFiles(snapshot(root.resolve("replaced.4")), previous);
        assertThat(StagedCheckpoint.read(store).replicationOffset()).isEqualTo(4);

        // a smaller K takes effect at the next recover
        installer(0).recover();
        assertThat(installer(0).replaced()).isEmpty();
    }

    @Test
    void numbersAfterAGapContinueFromTheHighest() throws IOException {
        setUp(true);
        Files.createDirectories(root.resolve("replaced.7"));
        Files.createDirectories(root.resolve("replaced.x")); // not ours: never counted, never deleted
        installer(5).install();
        assertThat(installer(5).replaced()).containsExactly(root.resolve("replaced.7").toAbsolutePath(),
                root.resolve("replaced.8").toAbsolutePath());
        assertSameFiles(snapshot(root.resolve("replaced.8")), oldStore);
        installer(0).recover();
        assertThat(Files.exists(root.resolve("replaced.x"))).isTrue();
    }

    @Test
    void installWithoutAStagedCheckpointFailsAndTouchesNothing() throws IOException {
        root = tmp.resolve("checkpoints");
        store = checkpointDir(tmp.resolve("db"), 1, Map.of("a", 10));
        Map<String, byte[]> before = snapshot(store);
        assertThatThrownBy(() -> installer(2).install()).isInstanceOf(NoSuchFileException.class);
        assertSameFiles(snapshot(store), before);
        assertThat(installer(2).staged()).isNull();
    }

    @Test
    void aStagedDirectoryWithoutMetadataIsNotInstalled() throws IOException {
        root = tmp.resolve("checkpoints");
        store = tmp.resolve("db");
        checkpointDir(root.resolve("staged"), 1, Map.of("a", 10));
        assertThatThrownBy(() -> installer(2).recover()).isInstanceOf(NoSuchFileException.class);
        assertThat(Files.exists(store)).isFalse();
        assertThatThrownBy(() -> installer(2).install()).isInstanceOf(NoSuchFileException.class);
        assertThat(Files.exists(root.resolve("staged/a"))).isTrue();
    }

    @Test
    void recoverClearsWhatAnInterruptedReceiveLeftAndIsANoOpOnAFreshNode() throws IOException {
        root = tmp.resolve("checkpoints");
        store = tmp.resolve("db");
        assertThat(installer(2).recover()).isEqualTo(Recovery.NOTHING);
        assertThat(Files.exists(store)).isFalse();

        checkpointDir(root.resolve("incoming"), 1, Map.of("half.sst", 10));
        checkpointDir(root.resolve("discarded"), 2, Map.of("old.sst", 10));
        assertThat(installer(2).recover()).isEqualTo(Recovery.NOTHING);
        assertThat(Files.exists(root.resolve("incoming"))).isFalse();
        assertThat(Files.exists(root.resolve("discarded"))).isFalse();
        assertThat(Files.exists(store)).isFalse();
    }

    @Test
    void theStagedDirectoryCannotBeTheStore() {
        assertThatThrownBy(() -> new CheckpointInstaller(tmp, tmp.resolve("staged"), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CheckpointInstaller(tmp, tmp.resolve("db"), -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
