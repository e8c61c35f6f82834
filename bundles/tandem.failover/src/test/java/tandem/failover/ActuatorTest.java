package tandem.failover;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.failover.FailoverStatus.Failover;

/** What a member does with the group's state: by its role, and by the protocol it follows through. */
@Timeout(30)
class ActuatorTest {

    private static final String PEERS = "n1@127.0.0.1:1,n2@127.0.0.1:2,n3@127.0.0.1:3";

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private volatile String role = "replica";
    private volatile String upstream = "127.0.0.1:7001";
    private volatile GroupState group = GroupState.EMPTY
            .join(new GroupState.Member("n1", "127.0.0.1:6001", "127.0.0.1:7001", false))
            .join(new GroupState.Member("n2", "127.0.0.1:6002", "127.0.0.1:7002", false))
            .join(new GroupState.Member("n3", "127.0.0.1:6003", "127.0.0.1:7003", false))
            .promote(new Failover("", "n1", 1, 0, 0, "first"));

    private Actuator actuator(String id) {
        FailoverSettings s = FailoverSettings.of(GroupPeerTest.config(id, PEERS, "/tmp/x", false, 1000, 600),
                Path.of("/tmp"));
        return new Actuator(() -> s, () -> group, () -> 0, new Node());
    }

    private void failOverTo(String id) {
        group = group.promote(new Failover(group.primary(), id, group.epoch() + 1, 0, 900, "test"));
    }

    @Test
    void aJournalReplicaFollowsTheNewPrimaryAtItsReplicationAddressAndANamedOneLeads() {
        Actuator n3 = actuator("n3");
        n3.reconcile();
        assertThat(calls).as("already following n1").isEmpty();
        failOverTo("n2");
        n3.reconcile();
        assertThat(calls).containsExactly("replicaOf 127.0.0.1:7002");
        calls.clear();
        upstream = "127.0.0.1:7002";
        actuator("n2").reconcile();
        assertThat(calls).containsExactly("promote");
    }

    @Test
    void aPsyncReplicaFollowsTheNewPrimaryByPsyncAtItsRespAddressAndIsNeverPromoted() {
        role = LocalNode.PSYNC_REPLICA;
        upstream = "127.0.0.1:6001";
        Actuator n3 = actuator("n3");
        n3.reconcile();
        assertThat(calls).as("already following n1 by psync").isEmpty();
        failOverTo("n2");
        n3.reconcile();
        assertThat(calls).containsExactly("replicaOfByPsync 127.0.0.1:6002");
        calls.clear();
        upstream = "127.0.0.1:6002";
        n3.reconcile();
        assertThat(calls).isEmpty();
        failOverTo("n3"); // a group state written by hand, or an older version: still never a promotion by psync
        n3.reconcile();
        assertThat(calls).isEmpty();
    }

    private final class Node implements LocalNode {
        @Override public String role() { return role; }
        @Override public String upstream() { return upstream; }
        @Override public String resp() { return ""; }
        @Override public String replication() { return ""; }
        @Override public long journalEpoch() { return 1; }
        @Override public long tip() { return 0; }
        @Override public String policy() { return "disk+ram"; }
        @Override public int closeClients() { return 0; }

        @Override
        public String promote() {
            calls.add("promote");
            return "promoted";
        }

        @Override
        public String replicaOf(String address) {
            calls.add("replicaOf " + address);
            return "following";
        }

        @Override
        public String replicaOfByPsync(String resp) {
            calls.add("replicaOfByPsync " + resp);
            return "following";
        }
    }
}
