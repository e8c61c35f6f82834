package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.api.replication.PsyncHistory;


/**
 * A promotion's steps in their order, with a real journal and epoch file and a hub that records its calls; the
 * protocol's side (the component's restart in the new role) is recorded too.
 */
@Timeout(30)
class PromotionTest {

    @TempDir
    Path root;

    private final List<String> protocol = new CopyOnWriteArrayList<>();
    private Tenure node;
    private TestHub hub;
    private RestartFence fence;
    private volatile ReplicationSettings settings;
    /** The psync protocol's record of the history, when a test makes it active: it records into the hub's events. */
    private volatile PsyncHistory psync;

    @BeforeEach
    void start() throws IOException {
        node = new Tenure(root, 3);
        hub = node.hub;
        fence = node.fence;
        settings = new ReplicationSettings("127.0.0.1", 7379, "127.0.0.1", 7380, "auto", 128 * 1024, 1000, 10_000,
                1_000, 4L * 128 * 1024, node.state, List.of("tcp"));
    }

    @AfterEach
    void stop() {
        node.close();
    }

    private Promotion promotion() {
        return new Promotion(node.journal, hub, node.epoch, fence, new Promotion.Protocol() {
            @Override
            public ReplicationSettings settings() {
                return settings;
            }

            @Override
            public ReplicaLink upstream() {
                return null; // the link to the primary is down
            }

            @Override
            public void stopFollowing() {
                protocol.add("stop following");
            }

            @Override
            public void restart() {
                protocol.add("restart as " + settings.primary());
            }

            @Override
            public void startAsPrimary() {
                settings = settings.withPrimary(null);
                protocol.add("start as primary");
            }

            @Override
            public String listening() {
                return "127.0.0.1:7379";
            }

            @Override
            public PsyncHistory psyncHistory() {
                return psync;
            }
        });
    }

    /** A psync protocol that follows by the journal protocol the primary whose id is {@code R0}. */
    private PsyncHistory psync(boolean failing) {
        return new PsyncHistory() {
            private String id = "a".repeat(40);

            @Override
            public String historyId() {
                return id;
            }

            @Override
            public void followedByJournal(String replicationId) {
                id = replicationId;
                hub.events.add("psync follows " + replicationId);
            }

            @Override
            public void leading(long offset) throws IOException {
                if (failing) {
                    throw new IOException("No space left on device");
                }
                hub.events.add("psync leading at offset " + offset);
                id = "b".repeat(40);
            }
        };
    }

    @Test
    void aReplicaLeadsTheNextEpochRecordedFirstAndRestartsAsAPrimary() throws Exception {
        Nodes.append(node.journal, 5, "k");
        String out = promotion().promote(false);
        assertThat(out).isEqualTo("promoted: primary at epoch 4 (EpochBump at sequence 1); replicas connect to "
                + "127.0.0.1:7379");
        assertThat(protocol).containsExactly("stop following", "start as primary");
        assertThat(hub.events).containsExactly("lead 4");
        assertThat(EpochFile.read(node.state)).as("recorded before the node leads it").isEqualTo(4);
        assertThat(node.journal.durableSequence()).as("what it received is durable").isEqualTo(5);
    }

    @Test
    void aPromotionThatFailsFollowsTheSamePrimaryAgain() {
        hub.leadFailure = new IllegalStateException("the node core is paused");
        assertThatThrownBy(() -> promotion().promote(false)).isSameAs(hub.leadFailure);
        assertThat(protocol).containsExactly("stop following", "restart as 127.0.0.1:7380");
        assertThat(settings.primary()).isEqualTo("127.0.0.1:7380");
    }

    @Test
    void thePsyncProtocolKeepsTheFormerIdValidUpToTheEndOfTheJournalBeforeTheNodeLeads() throws Exception {
        Nodes.append(node.journal, 5, "k");
        psync = psync(false);
        promotion().promote(false);
        long end = node.journal.offsetAfter(5);
        assertThat(end).isPositive();
        assertThat(hub.events).as("before the node leads: no PSYNC is served under the former id past the journal")
                .containsExactly("psync leading at offset " + end, "lead 4");
    }

    @Test
    void aPromotionThatFailsAfterThePsyncIdMovedGivesTheFormerIdBack() {
        psync = psync(false);
        hub.leadFailure = new IllegalStateException("the node core is paused");
        assertThatThrownBy(() -> promotion().promote(false)).isSameAs(hub.leadFailure);
        assertThat(hub.events).containsExactly("psync leading at offset 0", "psync follows " + "a".repeat(40));
        assertThat(psync.historyId()).isEqualTo("a".repeat(40));
        assertThat(protocol).containsExactly("stop following", "restart as 127.0.0.1:7380");
    }

    @Test
    void aPsyncIdThatCannotBeRecordedFailsThePromotionBeforeTheNodeLeads() throws Exception {
        psync = psync(true);
        assertThatThrownBy(() -> promotion().promote(false)).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessage("promotion failed: the psync id cannot be recorded: No space left on device");
        assertThat(hub.events).isEmpty();
        assertThat(protocol).containsExactly("stop following", "restart as 127.0.0.1:7380");
        assertThat(EpochFile.read(node.state)).as("no epoch taken").isEqualTo(3);
    }

    @Test
    void aPrimaryIsPromotedOnlyToLiftItsFenceAndOnlyByForce() throws Exception {
        settings = settings.withPrimary(null);
        assertThatThrownBy(() -> promotion().promote(true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("this node is a primary already");
        fence.superseded(9);
        String fenced = fence.error();
        assertThatThrownBy(() -> promotion().promote(false)).isInstanceOf(IllegalStateException.class)
                .hasMessage("this primary is fenced (" + fenced + "); repl:promote --force lifts the fence");
        assertThat(promotion().promote(true)).isEqualTo("the fence is lifted: client writes are accepted");
        assertThat(fence.error()).isNull();
        assertThat(hub.fence).isNull();
        assertThat(protocol).as("the protocol runs on as it was").isEmpty();
        assertThat(hub.events).doesNotContain("lead 4");
    }
}
