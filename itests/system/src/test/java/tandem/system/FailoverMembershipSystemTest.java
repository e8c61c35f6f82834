package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import tandem.system.AutoFailoverSystemTest.GroupClient;
import tandem.testsupport.Await;

/**
 * Membership changes from the shell: a group of a primary, a replica and a witness takes a second replica in with
 * {@code failover:add} and lets the witness go with {@code failover:remove}; the new member then counts towards the
 * majority — with the witness gone and the primary killed, the two replicas alone promote one of themselves, and
 * every write acknowledged under {@code disk+ram} is on it.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailoverMembershipSystemTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private JournalCluster cluster;
    private TandemNode replica;
    private TandemNode witness;
    private TandemNode joiner;
    private String peers;
    private int joinerRaftPort;

    @BeforeAll
    void start() throws IOException {
        peers = "p@127.0.0.1:" + TandemNode.freePort() + ",r@127.0.0.1:" + TandemNode.freePort() + ",w@127.0.0.1:"
                + TandemNode.freePort();
        cluster = JournalCluster.start("members", "disk+ram", "tandem.failover:node.id=p",
                "tandem.failover:peers=" + peers, JournalCluster.FAST_RECONNECT);
        replica = cluster.addReplica(false, cluster.replicationPort, "tandem.failover:node.id=r",
                "tandem.failover:peers=" + peers);
        witness = TandemNode.start("members-w", "--replication-port", Integer.toString(TandemNode.freePort()),
                "--config", "tandem.failover:node.id=w", "--config", "tandem.failover:peers=" + peers, "--config",
                "tandem.failover:witness=true");
        // the joiner names the members it will find, and itself, and waits to be added
        joinerRaftPort = TandemNode.freePort();
        joiner = cluster.addReplica(false, cluster.replicationPort, "tandem.failover:node.id=c",
                "tandem.failover:peers=" + peers + ",c@127.0.0.1:" + joinerRaftPort, "tandem.failover:join=true");
        List<TandemNode> data = List.of(cluster.primary, replica, joiner);
        for (TandemNode on : data) {
            for (TandemNode who : data) {
                if (on != who) {
                    JournalCluster.authorize(who, on);
                }
            }
        }
        JournalCluster.awaitStreaming(replica);
        JournalCluster.awaitStreaming(joiner);
    }

    @AfterAll
    void stop() {
        for (TandemNode n : new TandemNode[] {witness, joiner}) {
            if (n != null) {
                n.close();
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aMemberAddedFromTheShellCountsTowardsTheMajority() throws Exception {
        Await.until("the group knows its leader", DEADLINE,
                () -> AutoFailoverSystemTest.raftHealthy(List.of(cluster.primary, replica, witness)));
        assertThat(members(cluster.primary)).containsOnlyKeys("p", "r", "w");

        TandemNode.Result added = replica.shell("failover:add c@127.0.0.1:" + joinerRaftPort);
        assertThat(added.out()).as(added.err()).startsWith("members: ").contains("c@127.0.0.1:" + joinerRaftPort);
        for (TandemNode n : List.of(cluster.primary, replica, witness, joiner)) {
            Await.until("a node lists four members", DEADLINE, () -> members(n).keySet().equals(
                    java.util.Set.of("p", "r", "w", "c")));
        }
        Await.until("the new member knows the Raft leader", DEADLINE,
                () -> AutoFailoverSystemTest.raftHealthy(List.of(cluster.primary, replica, witness, joiner)));
        assertThat(replica.shell("failover:add c@127.0.0.1:" + joinerRaftPort).out())
                .startsWith("not added: c is a member already");
        assertThat(replica.shell("failover:add c2@localhost:1").out()).startsWith("not added: address=localhost is "
                + "invalid: must be an IP address literal");
        assertThat(joiner.shell("failover:remove p").out()).startsWith("not removed: p is the primary");

        TandemNode.Result removed = joiner.shell("failover:remove w");
        assertThat(removed.out()).as(removed.err()).startsWith("members: ").doesNotContain("w@");
        for (TandemNode n : List.of(cluster.primary, replica, joiner)) {
            Await.until("a node lists three members", DEADLINE, () -> members(n).keySet().equals(
                    java.util.Set.of("p", "r", "c")));
        }
        witness.close(); // removed: it no longer counts, and with it gone the majority needs both replicas

        GroupClient client = GroupClient.start("m", List.of(cluster.primary, replica, joiner));
        client.awaitAcked(200);
        Await.until("the three members agree on the Raft leader", DEADLINE,
                () -> AutoFailoverSystemTest.raftHealthy(List.of(cluster.primary, replica, joiner)));
        cluster.primary.kill();
        client.awaitAcked(client.acked.size() + 100);
        client.halt();
        assertThat(client.failure.get()).isNull();
        String now = JournalCluster.info(replica).get("tandem_failover_primary");
        assertThat(now).isIn("r", "c");
        TandemNode promoted = now.equals("r") ? replica : joiner;
        TandemNode other = promoted == replica ? joiner : replica;
        assertThat(JournalCluster.info(promoted).get("role")).isEqualTo("master");
        client.assertAckedOn(promoted);
        JournalCluster.awaitStreaming(other);
    }

    private static final Pattern MEMBER = Pattern.compile("(?m)^  (\\S+)(?: \\(witness\\))?  (\\S+)  resp=");

    /** @return the members {@code failover:status} lists on {@code node}, by id, with their roles */
    private static Map<String, String> members(TandemNode node) {
        Map<String, String> out = new java.util.TreeMap<>();
        try {
            Matcher m = MEMBER.matcher(node.shell("failover:status").out());
            while (m.find()) {
                out.put(m.group(1), m.group(2));
            }
        } catch (IOException e) {
            // a node that is down lists nothing
        }
        return out;
    }
}
