package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import tandem.testsupport.Await;

/**
 * Automatic failover with real processes and no one at the shell: a primary and two journal replicas under
 * {@code disk+ram}, each with a {@code tandem.failover} member of one Raft group. {@code kill -9} of the primary under
 * writing clients → the group promotes the replica with the most history, the other follows it, every acknowledged
 * write is on both; the old primary, restarted, learns from the group that it is a replica and rejoins. One cluster
 * for the class; tests run in order.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AutoFailoverSystemTest {

    private static final System.Logger LOG = System.getLogger("tandem.system");
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final Pattern PRIMARY = Pattern.compile("primary:\\s+(\\S+) \\(epoch (\\d+)\\)");

    private JournalCluster cluster;
    /** By group id: n1 (the first primary), n2, n3. */
    private final Map<String, TandemNode> nodes = new LinkedHashMap<>();
    private String killed;
    private String promoted;

    @BeforeAll
    void start() throws IOException {
        String peers = peers();
        cluster = JournalCluster.start("autofo", "disk+ram", failover("n1", peers));
        nodes.put("n1", cluster.primary);
        nodes.put("n2", cluster.addReplica(false, cluster.replicationPort, failover("n2", peers)));
        nodes.put("n3", cluster.addReplica(false, cluster.replicationPort, failover("n3", peers)));
        for (TandemNode on : nodes.values()) {
            for (TandemNode who : nodes.values()) {
                if (who != on) {
                    JournalCluster.authorize(who, on);
                }
            }
        }
        JournalCluster.awaitStreaming(nodes.get("n2"));
        JournalCluster.awaitStreaming(nodes.get("n3"));
    }

    /** @return {@code peers} for a group of n1, n2 and n3 on free Raft ports */
    static String peers() throws IOException {
        return "n1@127.0.0.1:" + TandemNode.freePort() + ",n2@127.0.0.1:" + TandemNode.freePort() + ",n3@127.0.0.1:"
                + TandemNode.freePort();
    }

    /** @return the configuration of member {@code id} of the group {@code peers} */
    static String[] failover(String id, String peers) {
        return new String[] {"tandem.failover:node.id=" + id, "tandem.failover:peers=" + peers,
            JournalCluster.FAST_RECONNECT};
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * @return whether every member knows the same Raft leader, the same epoch and applied the same Raft log. A
     *         member that (re)started knows the leader from its first append, but counts towards the majority only
     *         once the leader's appends get through and it has caught up, which with Ratis 3.3.0 can take seconds
     *         (the member answers INCONSISTENCY meanwhile); until then a second failure leaves no majority that
     *         answers
     */
    static boolean raftHealthy(java.util.Collection<TandemNode> nodes) {
        java.util.Set<String> views = new java.util.HashSet<>();
        for (TandemNode n : nodes) {
            Map<String, String> info = JournalCluster.info(n);
            String leader = info.get("tandem_failover_raft_leader");
            if (leader == null || leader.isEmpty()) {
                return false;
            }
            views.add(leader + "/" + info.get("tandem_failover_epoch") + "/"
                    + info.get("tandem_failover_raft_applied"));
        }
        return views.size() == 1;
    }

    /**
     * Waits until the group is whole: a primary that every node names and that says it is one, every other node
     * streaming from it, and every member knowing the same Raft leader and epoch and caught up with the Raft log (see
     * {@link #raftHealthy}).
     *
     * @return the primary's id
     */
    static String awaitWhole(Map<String, TandemNode> nodes, Duration deadline) {
        String[] primary = new String[1];
        Await.until("the group is whole: one primary every node names, the others streaming from it", deadline,
                () -> {
                    String p = nodes.values().stream().map(n -> JournalCluster.info(n).get("tandem_failover_primary"))
                            .filter(id -> id != null && !id.isEmpty()).findFirst().orElse(null);
                    if (p == null || !nodes.containsKey(p)
                            || !"master".equals(JournalCluster.info(nodes.get(p)).get("role"))) {
                        return false;
                    }
                    for (Map.Entry<String, TandemNode> e : nodes.entrySet()) {
                        Map<String, String> info = JournalCluster.info(e.getValue());
                        if (!p.equals(info.get("tandem_failover_primary"))
                                || !e.getKey().equals(p) && !"up".equals(info.get("master_link_status"))) {
                            return false;
                        }
                    }
                    primary[0] = p;
                    return true;
                });
        Await.until("every member knows the Raft leader", deadline, () -> raftHealthy(nodes.values()));
        return primary[0];
    }

    /** @return the primary the group names, as {@code node}'s {@code failover:status} shows it, or null */
    private static String groupPrimary(TandemNode node) {
        try {
            Matcher m = PRIMARY.matcher(node.shell("failover:status").out());
            return m.find() ? m.group(1) : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String set(TandemNode node, String key) {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 2000)) {
            return jedis.set(key, "1");
        } catch (JedisException e) {
            return e.getMessage();
        }
    }

    @Test
    @Order(1)
    void theGroupNamesTheNodeThatStartedAsPrimaryAndOnlyItTakesWrites() throws IOException {
        for (TandemNode n : nodes.values()) {
            Await.until("the group names n1 the primary, seen from " + n.port(), DEADLINE,
                    () -> "n1".equals(groupPrimary(n)));
        }
        Await.until("n1 holds the group's lease and takes a write", DEADLINE,
                () -> "OK".equals(set(nodes.get("n1"), "first")));
        assertThat(set(nodes.get("n2"), "refused")).startsWith("READONLY");
        TandemNode n1 = nodes.get("n1");
        assertThat(JournalCluster.info(n1)).containsEntry("tandem_failover_primary", "n1")
                .containsEntry("tandem_failover_epoch", "1").containsEntry("master_failover_state", "no-failover");
        assertThat(n1.http("/health").body()).containsPattern("\"failover\":\\s*\\{")
                .containsPattern("\"primary\":\\s*\"n1\"");
        assertThat(n1.http("/metrics").body()).contains("tandem_failover_epoch 1")
                .contains("tandem_failover_primary 1");
        Await.until("the failover health check is OK on n1", DEADLINE, () -> {
            try {
                String hc = n1.shell("hc:exec -v failover").out();
                return hc.contains("Tandem failover") && hc.contains("OK") && hc.contains("primary n1 (epoch 1)");
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Test
    @Order(2)
    void killingThePrimaryPromotesTheMostAdvancedReplicaWithNoOneAtTheShell() throws Exception {
        List<GroupClient> clients = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            clients.add(GroupClient.start("c" + i, new ArrayList<>(nodes.values())));
        }
        Set<String> sentinels = new java.util.LinkedHashSet<>();
        nodes.values().forEach(n -> sentinels.add("127.0.0.1:" + n.port()));
        redis.clients.jedis.JedisSentinelPool pool = new redis.clients.jedis.JedisSentinelPool("tandem", sentinels);
        clients.add(GroupClient.start("jedis-sentinel", key -> {
            try (Jedis j = pool.getResource()) {
                return j.set(key, "1");
            }
        }));
        io.lettuce.core.RedisURI.Builder uri = io.lettuce.core.RedisURI.builder().withSentinelMasterId("tandem")
                .withTimeout(Duration.ofSeconds(2));
        nodes.values().forEach(n -> uri.withSentinel("127.0.0.1", n.port()));
        io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(uri.build());
        var connection = lettuce.connect();
        clients.add(GroupClient.start("lettuce-sentinel", key -> connection.sync().set(key, "1")));
        RedisPy py = RedisPy.start(nodes.values());
        clients.forEach(c -> c.awaitAcked(200));
        py.awaitAcked(100);
        Await.until("every member knows the Raft leader", DEADLINE, () -> raftHealthy(nodes.values()));
        killed = "n1";
        nodes.get(killed).kill();
        long ackedBefore = clients.stream().mapToLong(c -> c.acked.size()).sum();
        clients.forEach(c -> c.awaitAcked(c.acked.size() + 50));
        py.awaitAcked(py.acked() + 50);
        List<Long> pyAcked = py.stop();
        long writableAfterMs = clients.stream().mapToLong(GroupClient::longestGapNanos).max().orElseThrow() / 1_000_000;
        clients.forEach(GroupClient::halt);
        connection.close();
        lettuce.shutdown();
        pool.close();
        for (GroupClient c : clients) {
            assertThat(c.failure.get()).as(c.name).isNull();
            LOG.log(System.Logger.Level.INFO, "{0}: {1} ms without an acknowledged write (kill -9 of the primary)",
                    c.name, c.longestGapNanos() / 1_000_000);
        }

        TandemNode n2 = nodes.get("n2");
        promoted = groupPrimary(n2);
        assertThat(promoted).isIn("n2", "n3");
        TandemNode primary = nodes.get(promoted);
        TandemNode follower = nodes.get(promoted.equals("n2") ? "n3" : "n2");
        assertThat(JournalCluster.info(primary).get("role")).isEqualTo("master");
        JournalCluster.awaitStreaming(follower);
        JournalCluster.awaitSequenceOf(primary, follower);
        for (GroupClient c : clients) {
            c.assertAckedOn(primary);
            c.assertAckedOn(follower);
        }
        GroupClient.assertAckedOn(primary, "py", pyAcked);
        GroupClient.assertAckedOn(follower, "py", pyAcked);
        JournalCluster.assertStateOf(primary, follower);
        assertThat(primary.shell("failover:status").out()).contains("last:       epoch 2: n1 -> " + promoted);
        LOG.log(System.Logger.Level.INFO, "automatic failover: {0} writes acknowledged before the kill, no client "
                + "went longer than {1} ms without an acknowledged write ({2} promoted)", ackedBefore,
                writableAfterMs, promoted);
    }

    @Test
    @Order(3)
    void theOldPrimaryRestartedLearnsFromTheGroupThatItIsAReplica() throws Exception {
        TandemNode old = nodes.get(killed);
        old.restart();
        TandemNode primary = nodes.get(promoted);
        Await.until("the restarted old primary follows " + promoted, DEADLINE,
                () -> "up".equals(JournalCluster.info(old).get("master_link_status")));
        assertThat(set(old, "refused")).startsWith("READONLY");
        assertThat(set(primary, "after-rejoin")).isEqualTo("OK");
        TandemNode other = nodes.get(promoted.equals("n2") ? "n3" : "n2");
        JournalCluster.awaitSequenceOf(primary, old, other);
        JournalCluster.assertStateOf(primary, old, other);
        assertThat(groupPrimary(old)).isEqualTo(promoted);
    }

    @Test
    @Order(4)
    void updatingTheFailoverBundleOnThePrimaryUnderWritesTriggersNoFailover() throws Exception {
        TandemNode primary = nodes.get(promoted);
        assertNoFailoverAcross("upd", "update " + primary.bundleId("Tandem failover group"));
    }

    @Test
    @Order(5)
    void updatingTheRatisBundleOnThePrimaryUnderWritesTriggersNoFailover() throws Exception {
        long ratis = nodes.get(promoted).bundleId("Apache Ratis (OSGi wrapper)");
        // Ratis' own threads outlive the old class loader (research/ratis.md): a real upgrade is a restart, but an
        // update with a refresh must still cost no failover
        assertNoFailoverAcross("ratis", "update " + ratis + "; refresh " + ratis);
    }

    /**
     * Runs {@code command} in the primary's shell under a writing client: writes pause while the failover member is
     * away (its lease is a required admission) and resume on the same primary, in the same epoch, nothing lost.
     */
    private void assertNoFailoverAcross(String name, String command) throws Exception {
        TandemNode primary = nodes.get(promoted);
        Matcher epoch = PRIMARY.matcher(primary.shell("failover:status").out());
        assertThat(epoch.find()).isTrue();
        GroupClient client = GroupClient.start(name, new ArrayList<>(nodes.values()));
        client.awaitAcked(100);
        TandemNode.Result done = primary.shell(command);
        assertThat(done.exit()).as(done.err()).isZero();
        Await.until("the member takes writes again after " + command, DEADLINE,
                () -> "OK".equals(set(primary, "after-" + name)));
        Await.until("the member reports the group again", DEADLINE, () -> groupPrimary(primary) != null);
        client.awaitAcked(client.acked.size() + 100);
        client.halt();
        assertThat(client.failure.get()).isNull();
        Matcher after = PRIMARY.matcher(primary.shell("failover:status").out());
        assertThat(after.find()).isTrue();
        assertThat(after.group(1)).as("the primary stays").isEqualTo(promoted);
        assertThat(after.group(2)).as("no failover: the epoch stays").isEqualTo(epoch.group(2));
        client.assertAckedOn(primary);
    }

    @Test
    @Order(6)
    void aFrozenPrimaryStopsWritingBeforeItsSuccessorStartsAndRejoinsAsAReplica() throws Exception {
        TandemNode frozen = nodes.get(promoted);
        List<GroupClient> clients = List.of(GroupClient.start("f0", new ArrayList<>(nodes.values())),
                GroupClient.start("f1", new ArrayList<>(nodes.values())));
        clients.forEach(c -> c.awaitAcked(200));
        long pid = frozen.process().pid();
        // a stop-the-world pause (GC, a VM freeze, SIGSTOP): the group sees the primary silent, as after a partition
        TandemNode.run(Duration.ofSeconds(10), "kill", "-STOP", Long.toString(pid));
        String successor;
        try {
            TandemNode witness = nodes.get(killed);
            Await.until("the group names a successor of the frozen " + promoted, DEADLINE, () -> {
                String p = groupPrimary(witness);
                return p != null && !p.equals(promoted);
            });
            successor = groupPrimary(witness);
            clients.forEach(c -> c.awaitAcked(c.acked.size() + 100));
        } finally {
            TandemNode.run(Duration.ofSeconds(10), "kill", "-CONT", Long.toString(pid));
        }
        // its lease lapsed while it was frozen: it refuses at once, then follows the successor
        Await.until("the thawed former primary follows " + successor, DEADLINE,
                () -> "up".equals(JournalCluster.info(frozen).get("master_link_status")));
        assertThat(set(frozen, "refused")).startsWith("READONLY");
        clients.forEach(GroupClient::halt);
        TandemNode primary = nodes.get(successor);
        for (GroupClient c : clients) {
            assertThat(c.failure.get()).as(c.name).isNull();
            c.assertAckedOn(primary);
        }
        List<TandemNode> others = nodes.values().stream().filter(n -> n != primary).toList();
        JournalCluster.awaitSequenceOf(primary, others.toArray(new TandemNode[0]));
        JournalCluster.assertStateOf(primary, others.toArray(new TandemNode[0]));
    }

    @Test
    @Order(7)
    void failoverSwitchesToTheChosenReplicaUnderWritesAndLosesNothing() throws Exception {
        TandemNode primary = nodes.values().stream().filter(n -> "master".equals(JournalCluster.info(n).get("role")))
                .filter(n -> {
                    try {
                        return n.shell("failover:status").out().contains("lease:");
                    } catch (IOException e) {
                        return false;
                    }
                }).findFirst().orElseThrow();
        TandemNode target = nodes.values().stream().filter(n -> n != primary).findFirst().orElseThrow();
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port(), 5000);
                Jedis replica = new Jedis("127.0.0.1", target.port(), 5000)) {
            assertThat(failover(replica, "FAILOVER")).isEqualTo("ERR FAILOVER is not valid when server is a replica.");
            assertThat(failover(jedis, "FAILOVER", "ABORT")).isEqualTo("ERR No failover in progress.");
            assertThat(failover(jedis, "FAILOVER", "FORCE")).startsWith("ERR FAILOVER with force option requires");
            assertThat(failover(jedis, "FAILOVER", "TIMEOUT", "0")).isEqualTo(
                    "ERR FAILOVER timeout must be greater than 0");
            assertThat(failover(jedis, "FAILOVER", "TO", "127.0.0.1", "1")).isEqualTo(
                    "ERR FAILOVER target HOST and PORT is not a replica.");
        }
        List<GroupClient> clients = List.of(GroupClient.start("s0", new ArrayList<>(nodes.values())),
                GroupClient.start("s1", new ArrayList<>(nodes.values())));
        clients.forEach(c -> c.awaitAcked(200));
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port(), 5000)) {
            assertThat(failover(jedis, "FAILOVER", "TO", "127.0.0.1", Integer.toString(target.port()), "TIMEOUT",
                    "10000")).isEqualTo("OK");
        }
        Await.until("the target is the primary", DEADLINE, () -> "master".equals(
                JournalCluster.info(target).get("role")) && "OK".equals(set(target, "after-switchover")));
        clients.forEach(c -> c.awaitAcked(c.acked.size() + 100));
        clients.forEach(GroupClient::halt);
        Await.until("the former primary follows the target", DEADLINE,
                () -> "up".equals(JournalCluster.info(primary).get("master_link_status")));
        for (GroupClient c : clients) {
            assertThat(c.failure.get()).as(c.name).isNull();
            c.assertAckedOn(target);
            LOG.log(System.Logger.Level.INFO, "FAILOVER: {0} went {1} ms without an acknowledged write", c.name,
                    c.longestGapNanos() / 1_000_000);
        }
        assertThat(target.shell("failover:status").out()).contains("switchover (FAILOVER)");
        List<TandemNode> others = nodes.values().stream().filter(n -> n != target).toList();
        JournalCluster.awaitSequenceOf(target, others.toArray(new TandemNode[0]));
        JournalCluster.assertStateOf(target, others.toArray(new TandemNode[0]));
    }

    private static String failover(Jedis jedis, String... args) {
        try {
            Object reply = jedis.sendCommand(() -> redis.clients.jedis.util.SafeEncoder.encode(args[0]),
                    java.util.Arrays.copyOfRange(args, 1, args.length));
            return reply instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8)
                    : String.valueOf(reply);
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            return e.getMessage();
        }
    }

    /** redis-py's Sentinel client in a Python process ({@code sentinel_writer.py}), writing until told to stop. */
    static final class RedisPy {

        private final Process process;
        private final java.nio.file.Path progress;
        private final java.nio.file.Path stop;
        private final java.nio.file.Path out;

        private RedisPy(Process process, java.nio.file.Path dir) {
            this.process = process;
            this.progress = dir.resolve("progress");
            this.stop = dir.resolve("stop");
            this.out = dir.resolve("out");
        }

        static RedisPy start(java.util.Collection<TandemNode> nodes) throws IOException {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("redis-py");
            java.nio.file.Path script = dir.resolve("sentinel_writer.py");
            try (var in = AutoFailoverSystemTest.class.getResourceAsStream("sentinel_writer.py")) {
                java.nio.file.Files.copy(in, script);
            }
            String ports = String.join(",", nodes.stream().map(n -> Integer.toString(n.port())).toList());
            Process p = new ProcessBuilder("/usr/bin/python3", script.toString(), ports, "tandem", "py",
                    dir.resolve("progress").toString(), dir.resolve("stop").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
            return new RedisPy(p, dir);
        }

        long acked() {
            try {
                return java.nio.file.Files.exists(progress)
                        ? Long.parseLong(java.nio.file.Files.readString(progress).trim()) : 0;
            } catch (IOException | NumberFormatException e) {
                return 0;
            }
        }

        void awaitAcked(long count) {
            Await.until("redis-py has " + count + " writes acknowledged", Duration.ofSeconds(60),
                    () -> acked() >= count || !process.isAlive());
            assertThat(process.isAlive()).as("redis-py runs: %s", output()).isTrue();
        }

        /**
         * @return the longest time without an acknowledged write among the gaps that ended after {@code fromNanos}
         *         ({@link System#nanoTime()}: the same monotonic clock as Python's), 0 when none of 100 ms or more
         */
        long longestGapNanosSince(long fromNanos) {
            java.nio.file.Path gaps = java.nio.file.Path.of(progress + ".gaps");
            try {
                if (!java.nio.file.Files.exists(gaps)) {
                    return 0;
                }
                long longest = 0;
                for (String line : java.nio.file.Files.readAllLines(gaps)) {
                    String[] f = line.trim().split(" ");
                    if (f.length == 2 && Long.parseLong(f[1]) > fromNanos) {
                        longest = Math.max(longest, Long.parseLong(f[0]));
                    }
                }
                return longest;
            } catch (IOException | NumberFormatException e) {
                throw new AssertionError("redis-py's gaps in " + gaps + " cannot be read", e);
            }
        }

        /** Stops the client; @return the writes it had acknowledged */
        List<Long> stop() throws IOException, InterruptedException {
            java.nio.file.Files.createFile(stop);
            assertThat(process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(output()).isZero();
            LOG.log(System.Logger.Level.INFO, "redis-py Sentinel client: {0}", output().trim());
            String acked = java.nio.file.Files.readString(java.nio.file.Path.of(progress + ".acked")).trim();
            return acked.isEmpty() ? List.of() : java.util.Arrays.stream(acked.split(" ")).map(Long::valueOf)
                    .toList();
        }

        private String output() {
            try {
                return java.nio.file.Files.readString(out);
            } catch (IOException e) {
                return "";
            }
        }
    }

    /**
     * A client that writes {@code <name>:<n>} in a loop and records what was acknowledged: through a Sentinel
     * library (Jedis, Lettuce), or knowing every node as a Sentinel-less application with a list of addresses would,
     * writing to the node that last took a write and, on a refusal or a dead connection, trying the next.
     */
    static final class GroupClient implements Runnable {

        final String name;
        final Set<Long> acked = ConcurrentHashMap.newKeySet();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final List<TandemNode> nodes;
        /** A Sentinel client's write, which finds the primary by itself; null for a client that walks the nodes. */
        private final java.util.function.Function<String, String> sentinelSet;
        /** When the last write was acknowledged, and the longest wait between two ({@link System#nanoTime()}). */
        private volatile long lastOkNanos;
        private volatile long longestGapNanos;
        private final AtomicLong n = new AtomicLong();
        /** When write {@code i} was acknowledged ({@link System#nanoTime()}, index i; 0 = never), for loss windows. */
        private long[] ackedAt = new long[1 << 16];
        private volatile boolean stop;
        private Thread thread;

        private GroupClient(String name, List<TandemNode> nodes, java.util.function.Function<String, String> set) {
            this.name = name;
            this.nodes = nodes;
            this.sentinelSet = set;
        }

        static GroupClient start(String name, List<TandemNode> nodes) {
            return start(new GroupClient(name, nodes, null));
        }

        /** A client of a Sentinel library: {@code set} writes a key through it and returns the reply. */
        static GroupClient start(String name, java.util.function.Function<String, String> set) {
            return start(new GroupClient(name, List.of(), set));
        }

        private static GroupClient start(GroupClient c) {
            c.thread = new Thread(c, "group-client-" + c.name);
            c.thread.start();
            return c;
        }

        @Override
        public void run() {
            int at = 0;
            Jedis jedis = null;
            try {
                while (!stop) {
                    long i = n.incrementAndGet();
                    boolean ok = false;
                    if (sentinelSet != null) {
                        try {
                            ok = "OK".equals(sentinelSet.apply(name + ":" + i));
                        } catch (RuntimeException e) {
                            // the library's own error while the primary changes: retried with the next key
                        }
                    }
                    for (int tries = 0; sentinelSet == null && tries < nodes.size() && !ok && !stop; tries++) {
                        try {
                            if (jedis == null) {
                                jedis = new Jedis(nodes.get(at).host(), nodes.get(at).port(), 500);
                            }
                            ok = "OK".equals(jedis.set(name + ":" + i, Long.toString(i)));
                        } catch (JedisException e) {
                            // refused (READONLY, a lapsed lease) or the node is gone: the next node
                        }
                        if (!ok) {
                            if (jedis != null) {
                                jedis.close();
                                jedis = null;
                            }
                            at = (at + 1) % nodes.size();
                        }
                    }
                    if (ok) {
                        long now = System.nanoTime();
                        ackedAt(i, now);
                        acked.add(i);
                        if (lastOkNanos != 0) {
                            longestGapNanos = Math.max(longestGapNanos, now - lastOkNanos);
                        }
                        lastOkNanos = now;
                    } else {
                        java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            } finally {
                if (jedis != null) {
                    jedis.close();
                }
            }
        }

        private synchronized void ackedAt(long i, long nanos) {
            if (i >= ackedAt.length) {
                ackedAt = java.util.Arrays.copyOf(ackedAt, (int) Math.max(i + 1, 2L * ackedAt.length));
            }
            ackedAt[(int) i] = nanos;
        }

        /** @return when {@code <name>:<i>} was acknowledged ({@link System#nanoTime()}), or 0 if it never was */
        synchronized long ackedAtNanos(long i) {
            return i < ackedAt.length ? ackedAt[(int) i] : 0;
        }

        void awaitAcked(long count) {
            Await.until(name + " has " + count + " writes acknowledged", Duration.ofSeconds(60),
                    () -> acked.size() >= count || failure.get() != null);
        }

        /** @return the longest time between two acknowledged writes: what a failover cost this client */
        long longestGapNanos() {
            return longestGapNanos;
        }

        /** Starts measuring the longest gap afresh (a checker's next trial). */
        void resetGap() {
            longestGapNanos = 0;
        }

        /** Drops acknowledged writes a lossy failover lost ({@code <name>:<n>}), so that they count once. */
        void forget(java.util.Collection<String> keys) {
            for (String k : keys) {
                if (k.startsWith(name + ":")) {
                    acked.remove(Long.parseLong(k.substring(name.length() + 1)));
                }
            }
        }

        void halt() {
            stop = true;
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void assertAckedOn(TandemNode node) {
            assertAckedOn(node, name, acked);
        }

        /** Every {@code <name>:<n>} of {@code acked} is on {@code node}. */
        static void assertAckedOn(TandemNode node, String name, java.util.Collection<Long> acked) {
            try (Jedis jedis = new Jedis(node.host(), node.port(), 5000)) {
                List<String> keys = acked.stream().sorted().map(i -> name + ":" + i).toList();
                for (int from = 0; from < keys.size(); from += 500) {
                    List<String> chunk = keys.subList(from, Math.min(keys.size(), from + 500));
                    List<String> values = jedis.mget(chunk.toArray(new String[0]));
                    for (int i = 0; i < chunk.size(); i++) {
                        assertThat(values.get(i)).as("%s on %d", chunk.get(i), node.port()).isNotNull();
                    }
                }
            }
        }
    }
}
