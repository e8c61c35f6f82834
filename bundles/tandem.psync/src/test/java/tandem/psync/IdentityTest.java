package tandem.psync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Replication ids, spec 001's window_contains, promotion and the identity file. */
@Timeout(10)
class IdentityTest {

    @TempDir
    Path dir;

    @Test
    void windowContainsTheCurrentIdUpToTheLiveOffsetAndTheSecondaryUpToItsBoundaryInclusive() {
        Identity a = Identity.fresh(0);
        assertThat(a.windowContains(a.replicationId(), 100, 100)).isTrue();
        assertThat(a.windowContains(a.replicationId().toUpperCase(), 0, 100)).isTrue();
        assertThat(a.windowContains(a.replicationId(), 101, 100)).as("ahead of this node").isFalse();
        assertThat(a.windowContains(Identity.newId(), 10, 100)).as("another history").isFalse();
        Identity b = a.promoted(70);
        assertThat(b.replicationId()).isNotEqualTo(a.replicationId());
        assertThat(b.secondaryId()).isEqualTo(a.replicationId());
        assertThat(b.epoch()).isEqualTo(1);
        assertThat(b.windowContains(a.replicationId(), 70, 200)).as("the boundary is inclusive").isTrue();
        assertThat(b.windowContains(a.replicationId(), 71, 200)).as("written after the promotion").isFalse();
        assertThat(b.windowContains(b.replicationId(), 200, 200)).isTrue();
    }

    @Test
    void aReplicaWithoutACompleteHistoryClaimsNothing() {
        Identity cleared = Identity.fresh(3).cleared();
        assertThat(cleared.hasHistory()).isFalse();
        assertThat(cleared.windowContains(Identity.NONE, 0, 0)).isFalse();
        assertThat(cleared.promoted(50).secondaryOffset()).isEqualTo(-1);
        String primary = Identity.newId();
        Identity adopted = cleared.adopted(primary);
        assertThat(adopted.replicationId()).isEqualTo(primary);
        assertThat(adopted.epoch()).isEqualTo(3);
        Identity shifted = adopted.shifted(Identity.newId(), 900);
        assertThat(shifted.secondaryId()).isEqualTo(primary);
        assertThat(shifted.secondaryOffset()).isEqualTo(900);
    }

    @Test
    void theFileRoundTripsAndADamagedOneIsRefusedNamingIt() throws IOException {
        Identity first = Identity.load(dir);
        assertThat(Files.readString(dir.resolve(Identity.FILE))).contains("replid=" + first.replicationId());
        Identity promoted = first.promoted(12);
        promoted.store(dir);
        assertThat(Identity.load(dir)).isEqualTo(promoted);
        assertThat(dir.resolve(Identity.FILE + ".tmp")).doesNotExist();
        Files.writeString(dir.resolve(Identity.FILE), "replid=xyz\n");
        assertThatThrownBy(() -> Identity.load(dir)).isInstanceOf(IOException.class)
                .hasMessageContaining(Identity.FILE).hasMessageContaining("not 40 hex digits");
    }
}
