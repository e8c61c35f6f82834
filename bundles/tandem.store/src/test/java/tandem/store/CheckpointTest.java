package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint is a consistent copy of the store that opens as a store at the applied sequence it reports. */
@Timeout(60)
class CheckpointTest {

    @TempDir
    Path dir;

    @Test
    void aCheckpointHoldsTheStoreAtItsAppliedSequenceWithoutAFlushFirst() {
        try (Harness h = new Harness(dir.resolve("live"))) {
            for (int i = 0; i < 500; i++) {
                h.exec("SET", "k" + i, "v" + i);
            }
            h.exec("HSET", "h", "f", "1");
            h.run("SET e x PX 5000");
            byte[] digest = h.ks.digest();
            long applied = h.ks.appliedSequence();
            assertThat(h.ks.checkpoint(dir.resolve("cp"))).isEqualTo(applied);
            h.exec("SET", "after", "1"); // the live store goes on; the copy does not move
            try (Harness copy = new Harness(dir.resolve("cp"))) {
                assertThat(copy.ks.appliedSequence()).isEqualTo(applied);
                assertThat(copy.ks.digest()).isEqualTo(digest);
                assertThat(copy.exec("GET", "k499")).isEqualTo("$4\\r\\nv499\\r\\n");
                assertThat(copy.exec("EXISTS", "after")).isEqualTo(":0\\r\\n");
            }
        }
    }

    @Test
    void aCheckpointIntoAnExistingDirectoryIsRefusedNamingIt() {
        try (Harness h = new Harness(dir.resolve("live"))) {
            h.exec("SET", "a", "1");
            h.ks.checkpoint(dir.resolve("cp"));
            assertThatThrownBy(() -> h.ks.checkpoint(dir.resolve("cp"))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(dir.resolve("cp").toString());
        }
    }
}
