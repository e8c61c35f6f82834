package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import tandem.system.AutoFailoverSystemTest.GroupClient;
import tandem.testsupport.Await;

/**
 * A failover group whose members follow the primary by both protocols: n1 the primary, n2 its journal replica, n3 its
 * psync replica (as a Redis replica would be), under the {@code auto} ack policy. {@code kill -9} of n1 under
 * writing clients → the group promotes n2 (a psync replica is never a candidate), and re-points n3 by psync to n2's
 * RESP port, where it continues without a full sync: n2 took n1's psync id from the journal protocol and keeps it
 * valid up to its EpochBump. Every acknowledged write is on n2 and n3; n1, restarted, follows n2 by the journal
 * protocol. One cluster for the class; tests run in order.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MixedProtocolFailoverSystemTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private JournalCluster cluster;
    private TandemNode n3;
    private final Map<String, TandemNode> nodes = new LinkedHashMap<>();
    private String n1Replid;

    @BeforeAll
    void start() throws IOException {
        String peers = AutoFailoverSystemTest.peers();
        cluster = JournalCluster.start("mixedfo", "auto", AutoFailoverSystemTest.failover("n1", peers));
        nodes.put("n1", cluster.primary);
        nodes.put("n2", cluster.addReplica(false, cluster.replicationPort,
                AutoFailoverSystemTest.failover("n2", peers)));
        JournalCluster.authorize(nodes.get("n2"), nodes.get("n1"));
        JournalCluster.authorize(nodes.get("n1"), nodes.get("n2"));
        // a psync replica by its configuration, from its first start: a member that starts as a primary the group
        // does not name is made a journal replica of the group's primary
        List<String> args = new ArrayList<>(List.of("--replication-port", Integer.toString(TandemNode.freePort()),
                "--config", "tandem.psync:reconnect.max.ms=300", "--config",
                "tandem.psync:replicaof=127.0.0.1:" + cluster.primary.port()));
        for (String c : AutoFailoverSystemTest.failover("n3", peers)) {
            args.add("--config");
            args.add(c);
        }
        n3 = TandemNode.start("mixedfo-psync", args.toArray(new String[0]));
        nodes.put("n3", n3);
        JournalCluster.awaitStreaming(nodes.get("n2"));
        JournalCluster.awaitStreaming(n3);
    }

    @AfterAll
    void stop() throws Exception {
        PerClass.closeAll(n3);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void theJournalReplicaCarriesThePrimarysPsyncIdAndThePsyncReplicaIsAGroupMember() {
        String primary = AutoFailoverSystemTest.awaitWhole(nodes, DEADLINE);
        assertThat(primary).isEqualTo("n1");
        n1Replid = nodes.get("n1").info("replication").get("master_replid");
        assertThat(n3.info("replication").get("master_replid")).as("n3 full-synced from n1").isEqualTo(n1Replid);
        assertThat(nodes.get("n2").home().resolve("data/psync/state")).content()
                .as("n2 took n1's psync id from StreamStart").contains("replid=" + n1Replid).contains("via=journal");
        assertThat(JournalCluster.info(n3)).containsEntry("tandem_failover_primary", "n1");
    }

    @Test
    @Order(2)
    void killingThePrimaryPromotesTheJournalReplicaAndThePsyncReplicaContinuesThereWithoutAFullSync()
            throws Exception {
        List<GroupClient> clients = List.of(GroupClient.start("m0", new ArrayList<>(nodes.values())),
                GroupClient.start("m1", new ArrayList<>(nodes.values())));
        clients.forEach(c -> c.awaitAcked(300));
        Await.until("every member knows the Raft leader", DEADLINE,
                () -> AutoFailoverSystemTest.raftHealthy(nodes.values()));
        nodes.get("n1").kill();
        clients.forEach(c -> c.awaitAcked(c.acked.size() + 200));
        clients.forEach(GroupClient::halt);
        for (GroupClient c : clients) {
            assertThat(c.failure.get()).as(c.name).isNull();
        }
        TandemNode n2 = nodes.get("n2");
        assertThat(JournalCluster.info(n2).get("role")).isEqualTo("master");
        assertThat(JournalCluster.info(n2)).containsEntry("tandem_failover_primary", "n2");
        Await.until("n3 follows n2 by psync", DEADLINE, () -> {
            Map<String, String> info = n3.info("replication");
            return Integer.toString(n2.port()).equals(info.get("master_port"))
                    && "up".equals(info.get("master_link_status"));
        });
        Map<String, String> promoted = n2.info("replication");
        assertThat(promoted.get("master_replid")).as("a new id").isNotEqualTo(n1Replid);
        assertThat(promoted.get("master_replid2")).as("n1's stays valid up to the EpochBump").isEqualTo(n1Replid);
        assertThat(n2.stat("sync_full")).as("n3 continued: no full sync").isZero();
        assertThat(n2.stat("sync_partial_ok")).isEqualTo(1);
        assertThat(n3.info("replication").get("master_replid")).isEqualTo(promoted.get("master_replid"));
        JournalCluster.awaitDigestOf(n2, n3);
        for (GroupClient c : clients) {
            c.assertAckedOn(n2);
            c.assertAckedOn(n3);
        }
    }

    @Test
    @Order(3)
    void theOldPrimaryRestartedFollowsTheNewOneByTheJournalProtocolAndTheGroupIsWholeAgain() throws Exception {
        TandemNode old = nodes.get("n1");
        old.restart();
        assertThat(AutoFailoverSystemTest.awaitWhole(nodes, DEADLINE)).isEqualTo("n2");
        GroupClient client = GroupClient.start("m2", new ArrayList<>(nodes.values()));
        client.awaitAcked(200);
        client.halt();
        assertThat(client.failure.get()).isNull();
        TandemNode n2 = nodes.get("n2");
        JournalCluster.awaitSequenceOf(n2, old);
        JournalCluster.awaitDigestOf(n2, old, n3);
        client.assertAckedOn(old);
        client.assertAckedOn(n3);
        assertThat(n2.stat("sync_full")).as("n3 never full-synced from n2").isZero();
    }
}
