package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import tandem.system.AutoFailoverSystemTest.GroupClient;
import tandem.testsupport.Await;

/**
 * A primary, one journal replica and a witness (a voter that holds no data) make a group of three voters that
 * survives {@code kill -9} of the primary: the replica is promoted, and every write acknowledged under
 * {@code disk+ram} is on it; the witness never takes a write.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WitnessFailoverSystemTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private JournalCluster cluster;
    private TandemNode replica;
    private TandemNode witness;

    @BeforeAll
    void start() throws IOException {
        String peers = "p@127.0.0.1:" + TandemNode.freePort() + ",r@127.0.0.1:" + TandemNode.freePort()
                + ",w@127.0.0.1:" + TandemNode.freePort();
        cluster = JournalCluster.start("witness", "disk+ram", "tandem.failover:node.id=p",
                "tandem.failover:peers=" + peers, JournalCluster.FAST_RECONNECT);
        replica = cluster.addReplica(false, cluster.replicationPort, "tandem.failover:node.id=r",
                "tandem.failover:peers=" + peers);
        JournalCluster.authorize(replica, cluster.primary);
        JournalCluster.authorize(cluster.primary, replica);
        witness = TandemNode.start("witness-w", "--replication-port", Integer.toString(TandemNode.freePort()),
                "--config", "tandem.failover:node.id=w", "--config", "tandem.failover:peers=" + peers, "--config",
                "tandem.failover:witness=true");
        JournalCluster.awaitStreaming(replica);
    }

    @AfterAll
    void stop() {
        if (witness != null) {
            witness.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String set(TandemNode node) {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 2000)) {
            return jedis.set("k", "v");
        } catch (JedisException e) {
            return e.getMessage();
        }
    }

    @Test
    void killingThePrimaryPromotesTheReplicaAndTheWitnessNeverWrites() throws Exception {
        Await.until("the primary holds the group's lease", DEADLINE, () -> "OK".equals(set(cluster.primary)));
        // a node's first start: until its failover component is up (its configuration read, its Raft peer started)
        // it is what its replication settings say, a primary here (failover.md); nothing writes to it before
        Await.until("the witness's failover group is up", DEADLINE,
                () -> JournalCluster.info(witness).containsKey("tandem_failover_epoch"));
        assertThat(set(witness)).startsWith("READONLY this node is a witness");
        GroupClient client = GroupClient.start("w", List.of(cluster.primary, replica, witness));
        client.awaitAcked(200);
        // the witness started last: the leader's gRPC reaches it only after a reconnection backoff, and until then
        // the loss of the primary would leave no majority that answers
        Await.until("every member knows the Raft leader", DEADLINE,
                () -> AutoFailoverSystemTest.raftHealthy(List.of(cluster.primary, replica, witness)));
        cluster.primary.kill();
        client.awaitAcked(client.acked.size() + 100);
        client.halt();
        assertThat(client.failure.get()).isNull();
        assertThat(JournalCluster.info(replica).get("role")).isEqualTo("master");
        assertThat(replica.shell("failover:status").out()).contains("primary:    r (epoch 2)");
        client.assertAckedOn(replica);
        assertThat(set(witness)).startsWith("READONLY this node is a witness");
        assertThat(witness.info("keyspace")).doesNotContainKey("db0");
    }
}
