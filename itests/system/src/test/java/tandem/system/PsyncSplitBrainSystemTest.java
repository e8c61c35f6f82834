package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import tandem.testsupport.Await;

/**
 * Spec 001's split brain with real processes, psync protocol: a replica made with {@code REPLICAOF} through a
 * loopback proxy in front of the primary's RESP port, a writer that counts a write acknowledged once {@code WAIT 1}
 * says a replica has it. The proxy is cut: the primary goes on taking writes (the {@code disk} policy answers them)
 * until the quorum fence refuses them with {@code -CLUSTERDOWN}; {@code REPLICAOF NO ONE} promotes the replica, which
 * holds every acknowledged write; {@code REPLICAOF} on the old primary makes it ask {@code PSYNC} with its own history,
 * which the new primary cannot continue: {@code +FULLRESYNC}, and the writes it gives up are in its audit file, byte
 * for byte, none of them acknowledged.
 */
@Timeout(240)
class PsyncSplitBrainSystemTest {

    private static TandemNode primary;
    private static TandemNode replica;
    private static ByteProxy proxy;

    @BeforeAll
    static void start() throws IOException {
        primary = node("psb-primary");
        replica = node("psb-replica");
        proxy = new ByteProxy(primary.port());
        assertThat(replica.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(proxy.port())).out().trim())
                .isEqualTo("OK");
        Await.until("the replica streams", Duration.ofSeconds(60),
                () -> "up".equals(JournalCluster.info(replica).get("master_link_status")));
    }

    private static TandemNode node(String name) throws IOException {
        return TandemNode.start(name, "--replication-port", Integer.toString(TandemNode.freePort()), "--config",
                "tandem.psync:reconnect.max.ms=300", "--config", "tandem.fencing:freshness.window.ms=2000");
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(primary, replica, proxy);
    }

    /** Writes {@code psb:<n>} = n, each followed by {@code WAIT 1 500}: acknowledged up to where WAIT said 1. */
    private static final class WaitingWriter extends Thread {
        final AtomicLong sent = new AtomicLong();
        final AtomicLong acked = new AtomicLong();
        final AtomicReference<String> refusal = new AtomicReference<>();

        @Override
        public void run() {
            try (Jedis jedis = new Jedis("127.0.0.1", primary.port(), 5000, 30_000)) {
                while (refusal.get() == null) {
                    long n = sent.incrementAndGet();
                    jedis.set("psb:" + n, Long.toString(n));
                    if (jedis.waitReplicas(1, 500) >= 1) {
                        acked.set(n);
                    }
                }
            } catch (JedisDataException e) {
                refusal.set(e.getMessage());
            } catch (RuntimeException e) {
                refusal.set(e.toString());
            }
        }
    }

    @Test
    void anIsolatedPsyncPrimaryFencesItselfAndItsDivergentWritesAreAuditedWhenItRejoins() throws Exception {
        WaitingWriter writer = new WaitingWriter();
        writer.start();
        Await.until("acknowledged writes", Duration.ofSeconds(60), () -> writer.acked.get() >= 50);

        proxy.partition();
        writer.join(60_000);
        assertThat(writer.refusal.get()).isEqualTo("CLUSTERDOWN quorum lost, writes rejected");
        assertThat(writer.sent.get()).as("writes taken after the last acknowledged one")
                .isGreaterThan(writer.acked.get());

        assertThat(replica.redisCli("REPLICAOF", "NO", "ONE").out().trim()).isEqualTo("OK");
        try (Jedis onNew = new Jedis("127.0.0.1", replica.port())) {
            for (long n = 1; n <= writer.acked.get(); n++) {
                assertThat(onNew.get("psb:" + n)).as("acknowledged psb:%s", n).isEqualTo(Long.toString(n));
            }
        }
        Map<String, String> divergent = SplitBrainAudits.difference(primary, replica);
        assertThat(divergent).isNotEmpty();

        proxy.heal();
        assertThat(primary.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(replica.port())).out().trim())
                .isEqualTo("OK");
        Path data = primary.home().resolve("data");
        Await.until("the audit file is written", Duration.ofSeconds(60),
                () -> SplitBrainAudits.auditFile(data) != null);
        Await.until("the old primary holds the new one's data", Duration.ofSeconds(60), () -> {
            try {
                return primary.digest().equals(replica.digest());
            } catch (IOException e) {
                return false;
            }
        });

        byte[] audit = SplitBrainAudits.read(data);
        Map<String, String> header = SplitBrainAudits.header(audit);
        assertThat(header).containsEntry("epoch_old", "0").containsEntry("epoch_new", "1")
                .containsEntry("ops_evicted", "0");
        assertThat(header.get("old_primary")).endsWith(":" + primary.port());
        assertThat(header.get("new_primary")).isEqualTo("127.0.0.1:" + replica.port() + " (psync)");
        List<List<String>> ops = SplitBrainAudits.ops(audit);
        assertThat(ops).hasSize(Integer.parseInt(header.get("ops_discarded")));
        SplitBrainAudits.assertAudited(ops, divergent, Map.of("psb", writer.acked.get()));
        assertThat(JournalCluster.info(primary)).containsEntry("tandem_split_brain_events", "1");
    }
}
