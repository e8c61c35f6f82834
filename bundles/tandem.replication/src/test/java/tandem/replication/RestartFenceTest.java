package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restart fence of a primary, with a real journal: what a crash (the marker left behind) with registered
 * replicas makes of the node core's fence, how replicas lift it, and what a clean stop leaves for the next start.
 */
@Timeout(30)
class RestartFenceTest {

    @TempDir
    Path root;

    private Tenure node;
    private TestHub hub;
    private Path state;
    private RestartFence fence;

    @BeforeEach
    void start() throws IOException {
        node = new Tenure(root, 0);
        hub = node.hub;
        state = node.state;
        fence = node.fence;
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void aCleanStartIsNotFencedAndACleanStopLeavesNoMarker() throws IOException {
        fence.guard(state, List.of("a", "b"));
        assertThat(fence.error()).isNull();
        assertThat(hub.fence).isNull();
        assertThat(state.resolve(RestartFence.MARKER)).as("left for the next start").exists();
        fence.end(state);
        assertThat(state.resolve(RestartFence.MARKER)).doesNotExist();
    }

    @Test
    void aCrashWithoutRegisteredReplicasIsNotFenced() throws IOException {
        Files.createFile(state.resolve(RestartFence.MARKER));
        fence.guard(state, List.of());
        assertThat(fence.error()).isNull();
    }

    @Test
    void aCrashIsFencedUntilEveryRegisteredReplicaShowedItIsNotAhead() throws IOException {
        Files.createFile(state.resolve(RestartFence.MARKER));
        fence.guard(state, List.of("a", "b"));
        assertThat(hub.fence).isEqualTo("FENCED this primary restarted after a crash; it accepts writes once every "
                + "registered replica has shown that it is not ahead (2 not yet), or after repl:promote --force");
        assertThat(fence.error()).isEqualTo(hub.fence);

        assertThat(fence.shown("stranger", "127.0.0.1:1", 99, true)).as("not registered: not fenced for").isTrue();
        assertThat(fence.shown("a", "127.0.0.1:2", 0, false)).isTrue();
        assertThat(hub.fence).contains("(1 not yet)");
        assertThat(fence.shown("b", "127.0.0.1:3", 7, true)).as("ahead: sent nothing").isFalse();
        assertThat(hub.fence).isEqualTo("FENCED this primary restarted after a crash; it accepts writes once every "
                + "registered replica has shown that it is not ahead (1 not yet; replica b at 127.0.0.1:3 holds "
                + "sequence 7 beyond this node's 0: promote it (repl:promote there) and make this node its replica, "
                + "or run repl:promote --force here to give up what it holds), or after repl:promote --force");

        fence.end(state);
        assertThat(state.resolve(RestartFence.MARKER)).as("a fenced stop keeps the marker").exists();
        assertThat(fence.shown("b", "127.0.0.1:3", 0, false)).isTrue();
        assertThat(fence.error()).isNull();
        assertThat(hub.events).endsWith("fence null");
    }

    @Test
    void aReplicaThatSawAHigherEpochFencesThePrimaryUntilItIsCleared() throws IOException {
        EpochFile.write(state, 3);
        node.epoch.load(state);
        fence.guard(state, List.of());
        fence.superseded(5);
        assertThat(fence.error()).isEqualTo("FENCED another node was promoted after this one: a replica has seen "
                + "epoch 5, this node is at 3; make this node a replica of the new primary with repl:replicaof "
                + "IP:PORT");
        fence.superseded(4);
        assertThat(fence.error()).as("the highest epoch seen").contains("epoch 5");
        fence.clear();
        assertThat(fence.error()).isNull();
        assertThat(hub.fence).isNull();
    }
}
