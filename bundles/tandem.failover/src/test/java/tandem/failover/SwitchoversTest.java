package tandem.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.failover.FailoverStatus.Failover;
import tandem.failover.GroupCodec.Heard;

/** A switchover's steps and refusals, with Redis's error texts, on a node and a group the test holds. */
@Timeout(30)
class SwitchoversTest {

    private final FailoverSettings settings = FailoverSettings.of(GroupPeerTest.config("n1",
            "n1@127.0.0.1:1,n2@127.0.0.1:2,n3@127.0.0.1:3", "/tmp/x", false, 1000, 600), Path.of("/tmp"));
    private GroupState group = GroupState.EMPTY
            .join(new GroupState.Member("n1", "127.0.0.1:7001", "127.0.0.1:7101", false))
            .join(new GroupState.Member("n2", "127.0.0.1:7002", "127.0.0.1:7102", false))
            .join(new GroupState.Member("n3", "127.0.0.1:7003", "", true))
            .promote(new Failover("", "n1", 1, 0, 0, "first"));
    private List<Heard> heard = List.of(new Heard("n2", "replica", 5, 10), new Heard("n3", "witness", -1, 10));
    private final Node node = new Node();
    private long now;
    private final List<Failover> appended = new ArrayList<>();
    private final Switchovers switchovers = new Switchovers(() -> settings, () -> group, node, () -> heard, entry -> {
        appended.add(GroupCodec.readPromote(ByteBuffer.wrap(entry)));
        return new CompletableFuture<>(); // committed later, or never: the test applies the epoch itself
    }, () -> now);

    @Test
    void theTargetCatchesUpToTheJournalsEndThenOneEntryNamesIt() {
        switchovers.start(null, 0, false);
        assertThat(switchovers.current().state()).isEqualTo("waiting-for-sync");
        node.tip = 9;
        switchovers.advance(); // notes the end: 9
        switchovers.advance(); // n2 holds 5 of 9: waits
        assertThat(appended).isEmpty();
        heard = List.of(new Heard("n2", "replica", 9, 10));
        switchovers.advance();
        assertThat(appended).singleElement().satisfies(f -> {
            assertThat(f.to()).isEqualTo("n2");
            assertThat(f.from()).isEqualTo("n1");
            assertThat(f.epoch()).isEqualTo(2);
            assertThat(f.reason()).isEqualTo("switchover (FAILOVER): n2 holds sequence 9 of 9");
        });
        assertThat(switchovers.current().state()).isEqualTo("failover-in-progress");
        group = group.promote(appended.get(0));
        switchovers.advance();
        assertThat(switchovers.current()).isNull();
    }

    @Test
    void aTargetThatDoesNotCatchUpByTheTimeoutIsAbandonedUnlessForced() {
        switchovers.start("127.0.0.1:7002", 1, false);
        node.tip = 9;
        switchovers.advance();
        now += 1_000_000; // the 1 ms timeout passes
        switchovers.advance();
        assertThat(switchovers.current()).isNull();
        assertThat(appended).isEmpty();

        switchovers.start("127.0.0.1:7002", 1, true);
        switchovers.advance();
        now += 1_000_000;
        switchovers.advance();
        assertThat(appended).singleElement().satisfies(f -> assertThat(f.reason()).endsWith(", forced"));
    }

    @Test
    void refusalsHaveRedissErrors() {
        assertThatThrownBy(() -> switchovers.start(null, 0, true))
                .hasMessage("ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
        assertThatThrownBy(() -> switchovers.start("127.0.0.1:7003", 0, false))
                .hasMessage("ERR FAILOVER target HOST and PORT is not a replica.");
        assertThatThrownBy(() -> switchovers.abort()).hasMessage("ERR No failover in progress.");
        heard = List.of();
        assertThatThrownBy(() -> switchovers.start(null, 0, false))
                .hasMessage("ERR FAILOVER requires connected replicas.");
        heard = List.of(new Heard("n2", "replica", 5, 10));
        switchovers.start(null, 0, false);
        assertThatThrownBy(() -> switchovers.start(null, 0, false)).hasMessage("ERR FAILOVER already in progress.");
        switchovers.abort();
        assertThat(switchovers.current()).isNull();
        node.role = "replica";
        assertThatThrownBy(() -> switchovers.start(null, 0, false))
                .hasMessage("ERR FAILOVER is not valid when server is a replica.");
    }

    /** The node as the test sets it. */
    private static final class Node implements LocalNode {
        String role = "primary";
        long tip;

        @Override public String role() { return role; }
        @Override public String upstream() { return null; }
        @Override public String resp() { return "127.0.0.1:7001"; }
        @Override public String replication() { return "127.0.0.1:7101"; }
        @Override public long journalEpoch() { return 0; }
        @Override public long tip() { return tip; }
        @Override public String policy() { return "disk+ram"; }
        @Override public String promote() { throw new UnsupportedOperationException(); }
        @Override public String replicaOf(String address) { throw new UnsupportedOperationException(); }
        @Override public String replicaOfByPsync(String resp) { throw new UnsupportedOperationException(); }
        @Override public int closeClients() { return 0; }
    }
}
