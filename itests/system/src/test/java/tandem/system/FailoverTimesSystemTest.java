package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentinelPool;

import tandem.system.AutoFailoverSystemTest.GroupClient;
import tandem.system.AutoFailoverSystemTest.RedisPy;

/**
 * The time to a writable primary after {@code kill -9} of the primary, measured where it matters, at the clients:
 * Jedis's {@link JedisSentinelPool}, Lettuce's Sentinel {@code RedisURI} and redis-py's {@code Sentinel}, each given
 * the three nodes as its sentinels, write without pause; each trial kills the primary of the moment, and the longest
 * time each client then went without an acknowledged write is its time to a writable primary (what a failover cost
 * it, its own reconnection included). The killed node is restarted and rejoins as a replica before the next trial.
 * Two profiles: the defaults ({@code down.after.ms=1000}, {@code lease.ms=600}, {@code report.interval.ms=100}) and
 * detection tuned ({@code 500}, {@code 300}, {@code 50}). Nothing acknowledged may be lost.
 *
 * <p>CI runs {@value #CI_TRIALS} trial of the tuned profile; on demand {@code itests/benchmarks/run-failover-times.sh}
 * runs both profiles, more trials, and writes the percentiles to {@code docs/failover.md}. The figures are reported,
 * never asserted.
 */
class FailoverTimesSystemTest {

    static final int CI_TRIALS = 1;
    private static final System.Logger LOG = System.getLogger("tandem.system");
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final List<String> CLIENTS = List.of("jedis", "lettuce", "redis-py");

    /**
     * The profiles measured: {@code -Dtandem.failover.times.profiles=defaults,tuned} on demand; CI measures the tuned
     * one alone ({@code AutoFailoverSystemTest} fails over with the defaults).
     */
    static java.util.stream.Stream<String> profiles() {
        return java.util.Arrays.stream(System.getProperty("tandem.failover.times.profiles", "tuned").split(","));
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("profiles")
    @Timeout(value = 2, unit = TimeUnit.HOURS) // the on-demand run; CI's trial takes under a minute per profile
    void timeToAWritablePrimaryAfterKillingThePrimary(String profile) throws Exception {
        int trials = Integer.getInteger("tandem.failover.times.trials", CI_TRIALS);
        String peers = "n1@127.0.0.1:" + TandemNode.freePort() + ",n2@127.0.0.1:" + TandemNode.freePort()
                + ",n3@127.0.0.1:" + TandemNode.freePort();
        Map<String, TandemNode> nodes = new LinkedHashMap<>();
        Map<String, List<Long>> gaps = new LinkedHashMap<>();
        CLIENTS.forEach(c -> gaps.put(c, new ArrayList<>()));
        List<String> tuning = profile.equals("tuned") ? List.of("tandem.failover:down.after.ms=500",
                "tandem.failover:lease.ms=300", "tandem.failover:report.interval.ms=50") : List.of();
        try (JournalCluster cluster = JournalCluster.start("times-" + profile, "disk+ram", config("n1", peers,
                tuning))) {
            nodes.put("n1", cluster.primary);
            nodes.put("n2", cluster.addReplica(false, cluster.replicationPort, config("n2", peers, tuning)));
            nodes.put("n3", cluster.addReplica(false, cluster.replicationPort, config("n3", peers, tuning)));
            for (TandemNode on : nodes.values()) {
                for (TandemNode who : nodes.values()) {
                    if (who != on) {
                        JournalCluster.authorize(who, on);
                    }
                }
            }
            AutoFailoverSystemTest.awaitWhole(nodes, DEADLINE); // a Sentinel client asks for the primary as it starts
            Set<String> sentinels = new java.util.LinkedHashSet<>();
            nodes.values().forEach(n -> sentinels.add("127.0.0.1:" + n.port()));
            io.lettuce.core.RedisURI.Builder uri = io.lettuce.core.RedisURI.builder().withSentinelMasterId("tandem")
                    .withTimeout(Duration.ofSeconds(2));
            nodes.values().forEach(n -> uri.withSentinel("127.0.0.1", n.port()));
            io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(uri.build());
            List<GroupClient> clients = new ArrayList<>();
            RedisPy py = null;
            try (JedisSentinelPool pool = new JedisSentinelPool("tandem", sentinels);
                    var connection = lettuce.connect()) {
                clients.add(GroupClient.start("jedis", key -> {
                    try (Jedis j = pool.getResource()) {
                        return j.set(key, "1");
                    }
                }));
                clients.add(GroupClient.start("lettuce", key -> connection.sync().set(key, "1")));
                py = RedisPy.start(nodes.values());
                for (int trial = 1; trial <= trials; trial++) {
                    String primary = awaitHealthy(nodes, clients, py);
                    clients.forEach(GroupClient::resetGap);
                    long killedAt = System.nanoTime();
                    nodes.get(primary).kill();
                    for (GroupClient c : clients) {
                        c.awaitAcked(c.acked.size() + 50);
                    }
                    py.awaitAcked(py.acked() + 50);
                    gaps.get("jedis").add(clients.get(0).longestGapNanos() / 1_000_000);
                    gaps.get("lettuce").add(clients.get(1).longestGapNanos() / 1_000_000);
                    gaps.get("redis-py").add(py.longestGapNanosSince(killedAt) / 1_000_000);
                    LOG.log(System.Logger.Level.INFO, "failover times {0} trial {1}/{2}: kill -9 of {3}; without a "
                            + "write: jedis {4} ms, lettuce {5} ms, redis-py {6} ms", profile, trial, trials, primary,
                            last(gaps, "jedis"), last(gaps, "lettuce"), last(gaps, "redis-py"));
                    nodes.get(primary).restart();
                }
                String primary = awaitHealthy(nodes, clients, py);
                List<Long> pyAcked = py.stop();
                py = null;
                clients.forEach(GroupClient::halt);
                for (GroupClient c : clients) {
                    assertThat(c.failure.get()).as(c.name).isNull();
                    c.assertAckedOn(nodes.get(primary));
                }
                GroupClient.assertAckedOn(nodes.get(primary), "py", pyAcked);
            } finally {
                clients.forEach(GroupClient::halt);
                if (py != null) {
                    py.stop();
                }
                lettuce.shutdown();
            }
        }
        report(profile, trials, gaps);
    }

    private static String[] config(String id, String peers, List<String> tuning) {
        List<String> c = new ArrayList<>(List.of("tandem.failover:node.id=" + id, "tandem.failover:peers=" + peers,
                JournalCluster.FAST_RECONNECT));
        c.addAll(tuning);
        return c.toArray(new String[0]);
    }

    private static long last(Map<String, List<Long>> gaps, String client) {
        List<Long> g = gaps.get(client);
        return g.get(g.size() - 1);
    }

    /**
     * Waits until the group is whole again: one primary every node names, both others streaming from it, the Raft
     * leader known everywhere (a restarted peer is reached by the leader only after a reconnection backoff), and every
     * client writing.
     *
     * @return the primary's id
     */
    private static String awaitHealthy(Map<String, TandemNode> nodes, List<GroupClient> clients, RedisPy py) {
        String primary = AutoFailoverSystemTest.awaitWhole(nodes, DEADLINE);
        for (GroupClient c : clients) {
            c.awaitAcked(c.acked.size() + 20);
        }
        py.awaitAcked(py.acked() + 50);
        return primary;
    }

    /** Appends a row per client to {@code target/failover-times.txt}, which the on-demand script copies to docs. */
    private static void report(String profile, int trials, Map<String, List<Long>> gaps) throws IOException {
        StringBuilder rows = new StringBuilder();
        for (Map.Entry<String, List<Long>> e : gaps.entrySet()) {
            List<Long> sorted = e.getValue().stream().sorted().toList();
            rows.append(String.format("| %s | %s | %d | %d | %d | %d | %s |%n", profile, e.getKey(), trials,
                    sorted.get(sorted.size() / 2), sorted.get(Math.min(sorted.size() - 1,
                            (int) (sorted.size() * 0.99))), sorted.get(sorted.size() - 1), Instant.now()));
        }
        LOG.log(System.Logger.Level.INFO, "failover times:\n{0}", rows);
        Path out = Path.of("target", "failover-times.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, rows, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
