package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.osgi.util.converter.Converters;

import tandem.api.store.Keyspace.Origin;

/**
 * A checkpoint of another store takes the place of this one: whole, with its origin, crash-safe at every step, and
 * refused without a change when it is not what it claims to be.
 */
@Timeout(60)
class StoreInstallTest {

    /** Thrown from a step hook: the process "dies" there, nothing after the step runs. */
    private static final class Crash extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    private static final byte[] CHAIN = new byte[32];

    static {
        Arrays.fill(CHAIN, (byte) 0x5a);
    }

    @TempDir
    Path home;

    private StoreComponent.Config config() {
        Map<String, Object> props = new HashMap<>();
        props.put("flush.interval.ms", 10);
        return Converters.standardConverter().convert(props).to(StoreComponent.Config.class);
    }

    /** A store elsewhere with {@code n} keys and a hash, checkpointed into {@code cp}; @return its digest */
    private byte[] otherStore(Path cp, int n) {
        try (Harness other = new Harness(home.resolve("other-" + cp.getFileName()))) {
            for (int i = 0; i < n; i++) {
                other.exec("SET", "remote" + i, "v" + i);
            }
            other.exec("HSET", "h", "f", "1");
            assertThat(other.ks.checkpoint(cp)).isEqualTo(other.seq);
            return other.ks.digest();
        }
    }

    private static void put(StoreComponent store, long seq, String key) {
        store.apply(seq, Harness.T0 * 1_000_000L, store.resolve(Harness.bytes("SET", key, "1")), new RespRecorder());
        store.commit();
    }

    @Test
    void aCheckpointReplacesTheStoreAndCarriesItsOriginUntilReconciledAcrossARestart() throws IOException {
        StoreComponent store = new StoreComponent(config(), () -> home);
        for (int i = 1; i <= 5; i++) {
            put(store, i, "local" + i);
        }
        assertThat(store.origin()).isNull();
        Path cp = home.resolve("data/checkpoint/staged");
        Files.createDirectories(cp.getParent());
        byte[] digest = otherStore(cp, 300);

        store.install(cp, 301, CHAIN);
        assertThat(store.appliedSequence()).isEqualTo(301);
        assertThat(store.digest()).isEqualTo(digest);
        assertThat(store.origin()).isEqualTo(new Origin(301, CHAIN));
        assertThat(Files.exists(cp)).as("moved, not copied").isFalse();
        assertThat(Files.exists(home.resolve("data/store.replaced"))).isFalse();
        put(store, 302, "after"); // it applies on from the checkpoint's sequence
        store.deactivate();

        StoreComponent again = new StoreComponent(config(), () -> home);
        try {
            assertThat(again.origin()).as("the origin survives a restart").isEqualTo(new Origin(301, CHAIN));
            assertThat(again.appliedSequence()).isEqualTo(302);
            again.reconciled();
            assertThat(again.origin()).isNull();
        } finally {
            again.deactivate();
        }
        StoreComponent third = new StoreComponent(config(), () -> home);
        try {
            assertThat(third.origin()).as("reconciled durably").isNull();
        } finally {
            third.deactivate();
        }
    }

    @Test
    void theEpochOfTheLastEpochBumpIsKeptAcrossARestartAndTravelsWithACheckpoint() throws IOException {
        StoreComponent store = new StoreComponent(config(), () -> home);
        assertThat(store.epoch()).isZero();
        put(store, 1, "a");
        store.epochBump(2, 7);
        store.commit();
        assertThat(store.epoch()).isEqualTo(7);
        Path cp = home.resolve("data/checkpoint/mine");
        Files.createDirectories(cp.getParent());
        assertThat(store.checkpoint(cp)).isEqualTo(2);
        store.deactivate();

        StoreComponent again = new StoreComponent(config(), () -> home);
        try {
            assertThat(again.epoch()).as("after a restart").isEqualTo(7);
        } finally {
            again.deactivate();
        }
        Path otherHome = home.resolve("other");
        Files.createDirectories(otherHome.resolve("data/checkpoint"));
        Path moved = otherHome.resolve("data/checkpoint/staged");
        Files.move(cp, moved);
        StoreComponent other = new StoreComponent(config(), () -> otherHome);
        try {
            assertThat(other.epoch()).isZero();
            other.install(moved, 2, CHAIN);
            assertThat(other.epoch()).as("installed from the checkpoint").isEqualTo(7);
        } finally {
            other.deactivate();
        }
    }

    @Test
    void aCheckpointAtAnotherSequenceOrNotAStoreIsRefusedAndChangesNothing() throws IOException {
        StoreComponent store = new StoreComponent(config(), () -> home);
        try {
            put(store, 1, "mine");
            byte[] before = store.digest();
            Path cp = home.resolve("cp");
            otherStore(cp, 10);
            assertThatThrownBy(() -> store.install(cp, 99, CHAIN)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("holds applied sequence 11, not 99");
            Path junk = Files.createDirectories(home.resolve("junk"));
            Files.writeString(junk.resolve("CURRENT"), "nonsense\n");
            assertThatThrownBy(() -> store.install(junk, 1, CHAIN)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not open");
            assertThatThrownBy(() -> store.install(cp, 11, new byte[3])).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.digest()).isEqualTo(before);
            assertThat(store.appliedSequence()).isEqualTo(1);
            assertThat(store.origin()).isNull();
            assertThat(Files.exists(cp)).as("left to its owner").isTrue();
        } finally {
            store.deactivate();
        }
    }

    @ParameterizedTest
    @EnumSource(StoreDirectory.Step.class)
    void aCrashAtAnyStepLeavesTheOldStoreOrTheNewOneWithItsOriginNeverAMix(StoreDirectory.Step step)
            throws IOException {
        Path db = home.resolve("db");
        byte[] oldDigest;
        try (Harness mine = new Harness(db)) {
            mine.exec("SET", "mine", "1");
            oldDigest = mine.ks.digest();
        }
        Path cp = home.resolve("cp");
        byte[] newDigest = otherStore(cp, 50);
        StoreDirectory crashing = new StoreDirectory(db, s -> {
            if (s == step) {
                throw new Crash();
            }
        });
        assertThatThrownBy(() -> {
            crashing.commit(cp, new Origin(51, CHAIN));
            crashing.complete(); // RocksDB was closed: the harness above is
        }).isInstanceOf(Crash.class);

        StoreDirectory restarted = new StoreDirectory(db);
        restarted.recover();
        assertThat(restarted.recover()).as("idempotent").isFalse();
        try (Harness after = new Harness(db)) {
            boolean installed = step != StoreDirectory.Step.ORIGIN_WRITTEN;
            assertThat(after.ks.digest()).isEqualTo(installed ? newDigest : oldDigest);
            assertThat(restarted.origin()).isEqualTo(installed ? new Origin(51, CHAIN) : null);
        }
        assertThat(Files.exists(home.resolve("db.installing"))).isFalse();
        assertThat(Files.exists(home.resolve("db.replaced"))).isFalse();
    }

    @Test
    void aStaleSetAsideStoreFromAnInterruptedCleanUpIsRemovedBeforeTheNextInstall() throws IOException {
        Path db = home.resolve("db");
        try (Harness mine = new Harness(db)) {
            mine.exec("SET", "mine", "1");
        }
        Files.createDirectories(home.resolve("db.replaced/leftover"));
        Path cp = home.resolve("cp");
        byte[] digest = otherStore(cp, 5);
        StoreDirectory dir = new StoreDirectory(db);
        dir.commit(cp, new Origin(6, CHAIN));
        dir.complete();
        try (Harness after = new Harness(db)) {
            assertThat(after.ks.digest()).isEqualTo(digest);
        }
        assertThat(Files.exists(home.resolve("db.replaced"))).isFalse();
        assertThatThrownBy(dir::complete).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no install");
    }

    @Test
    void readingTheAppliedSequenceOfACheckpointWritesNothingIntoIt() throws IOException {
        Path cp = home.resolve("cp");
        otherStore(cp, 3);
        String[] before;
        try (var files = Files.list(cp)) {
            before = files.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
        assertThat(RocksKeyspace.appliedSequenceOf(cp)).isEqualTo(4);
        try (var files = Files.list(cp)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly(before);
        }
    }
}
