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
    void aCheckpointHoldsAStreamWithItsGroupsAndItsNextIds() {
        try (Harness h = new Harness(dir.resolve("live"))) {
            for (int i = 0; i < 250; i++) {
                h.run("XADD s * n " + i);
            }
            h.run("XGROUP CREATE s g 0");
            h.run("XREADGROUP GROUP g alice COUNT 30 STREAMS s >");
            h.run("XDEL s " + h.run("XRANGE s - + COUNT 1").split("\\\\r\\\\n")[3]);
            byte[] digest = h.ks.digest();
            assertThat(h.ks.checkpoint(dir.resolve("cp"))).isEqualTo(h.ks.appliedSequence());
            try (Harness copy = new Harness(dir.resolve("cp"))) {
                copy.nowMs = h.nowMs;
                copy.seq = h.seq;
                assertThat(copy.ks.digest()).isEqualTo(digest);
                for (String read : new String[] {"XINFO STREAM s FULL COUNT 0", "XPENDING s g", "XLEN s"}) {
                    assertThat(copy.run(read)).isEqualTo(h.run(read));
                }
                assertThat(copy.run("XADD s * n next")).isEqualTo(h.run("XADD s * n next"));
                assertThat(copy.run("XTRIM s MAXLEN ~ 60")).isEqualTo(h.run("XTRIM s MAXLEN ~ 60"));
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
