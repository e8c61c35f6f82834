package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import tandem.testsupport.Await;

/**
 * A randomized fault checker for the quorum fence and failover, journal protocol: a primary and two replicas, each
 * replica's link to the primary through a loopback proxy, two independent clients that record every write the
 * primary acknowledged. Each trial injects a fault drawn from a seeded random source: one link cut and healed, both
 * cut (the primary must fence itself), a flapping link, {@code kill -9} of a replica or of the primary (restarted),
 * {@code kill -9} of the primary while a link is cut, or a failover (both links cut, the most advanced replica
 * promoted, the old primary made a replica of it, its divergent writes audited). After each trial the cluster must
 * heal (every replica streaming, clients acknowledged again) and every write ever acknowledged must be on the
 * primary of the moment with its value.
 *
 * <p>CI runs {@value #CI_TRIALS} trials per policy with a fixed seed. On demand, for the figures in
 * {@code docs/quorum-checker.md}: {@code -Dtandem.checker.trials=1000 -Dtandem.checker.seed=<n>}
 * ({@code itests/benchmarks/run-quorum-checker.sh}).
 */
class QuorumCheckerSystemTest {

    static final int CI_TRIALS = 4;
    private static final System.Logger LOG = System.getLogger("tandem.system");
    private static final long WINDOW_MS = 1000;

    static List<String> policies() {
        return List.of(System.getProperty("tandem.checker.policies", "disk+ram,two-disks").split(","));
    }

    /** One node's place in the cluster: the primary, or a replica reaching it through its proxy. */
    private static final class Member {
        final String name;
        final TandemNode node;
        final int replicationPort;
        ByteProxy proxy; // this replica's link to the primary; null on the primary

        Member(String name, TandemNode node, int replicationPort) {
            this.name = name;
            this.node = node;
            this.replicationPort = replicationPort;
        }
    }

    /** A client writing {@code <prefix>:<n>} = n to whichever node is the primary, recording each acknowledged n. */
    private static final class Client extends Thread {
        final String prefix;
        final Map<Long, Boolean> acked = new ConcurrentHashMap<>();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong fencedNanos = new AtomicLong();
        volatile int port;
        volatile boolean stop;
        volatile long n; // attempts; written by this thread only

        Client(String prefix, int port) {
            super("checker-" + prefix);
            this.prefix = prefix;
            this.port = port;
            setDaemon(true);
        }

        @Override
        public void run() {
            long fencedSince = 0;
            while (!stop) {
                int target = port;
                // a write held while no replica can acknowledge it stays held; the client gives it up after 2 s
                // (outcome unknown, never counted) and the next write meets the fence
                try (Jedis jedis = new Jedis("127.0.0.1", target, 2000, 2000)) {
                    while (!stop && port == target) {
                        long k = n + 1;
                        n = k;
                        try {
                            if ("OK".equals(jedis.set(prefix + ":" + k, Long.toString(k)))) {
                                acked.put(k, Boolean.TRUE);
                                if (fencedSince != 0) {
                                    fencedNanos.addAndGet(System.nanoTime() - fencedSince);
                                    fencedSince = 0;
                                }
                            }
                        } catch (JedisDataException e) {
                            refused.incrementAndGet();
                            if (e.getMessage().startsWith("CLUSTERDOWN") && fencedSince == 0) {
                                fencedSince = System.nanoTime();
                            }
                            backOff();
                        }
                    }
                } catch (RuntimeException e) {
                    backOff(); // a node killed, a connection closed by a demotion: the outcome of that write is unknown
                }
            }
        }

        // a load generator's pause between refused attempts, not a wait for a condition
        private static void backOff() {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }

        long ackedCount() {
            return acked.size();
        }
    }

    private record Figures(String policy, long seed, int trials, Map<String, Integer> faults, long acked,
            long lost, long refused, long fencedMillis, long audited, long millis) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    @Timeout(value = 6, unit = TimeUnit.HOURS) // the on-demand run; CI's slice takes a few minutes
    void everyAcknowledgedWriteSurvivesRandomFaults(String policy) throws Exception {
        int trials = Integer.getInteger("tandem.checker.trials", CI_TRIALS);
        long seed = Long.getLong("tandem.checker.seed", 20261203L);
        Random random = new Random(seed ^ policy.hashCode());
        long started = System.nanoTime();
        List<Member> members = new ArrayList<>();
        List<Client> clients = new ArrayList<>();
        Map<String, Integer> faults = new java.util.TreeMap<>();
        try {
            for (String name : List.of("a", "b", "c")) {
                int rp = TandemNode.freePort();
                members.add(new Member(name, TandemNode.start("checker-" + name, "--replication-port",
                        Integer.toString(rp), "--ack-policy", policy, "--config", JournalCluster.FAST_RECONNECT,
                        "--config", "tandem.fencing:freshness.window.ms=" + WINDOW_MS, "--config",
                        "tandem.replication:heartbeat.ms=200", "--config",
                        // a link opened while the proxy holds every byte fails its handshake after this, not 10 s
                        "tandem.replication:handshake.timeout.ms=1500"), rp));
            }
            for (Member on : members) {
                for (Member who : members) {
                    if (on != who) {
                        JournalCluster.authorize(who.node, on.node);
                    }
                }
            }
            Member primary = members.get(0);
            for (Member r : members.subList(1, 3)) {
                follow(r, primary);
            }
            for (int i = 0; i < 2; i++) {
                Client c = new Client("ck" + i, primary.node.port());
                c.start();
                clients.add(c);
            }
            awaitHealthy(primary, members, clients);

            for (int trial = 1; trial <= trials; trial++) {
                List<String> kinds = List.of("cut-one", "cut-both", "flap", "kill-replica", "kill-primary",
                        "kill-primary-while-cut", "failover", "kill-replica-while-cut");
                String fault = kinds.get(random.nextInt(kinds.size()));
                faults.merge(fault, 1, Integer::sum);
                LOG.log(System.Logger.Level.INFO, "checker {0} trial {1}/{2}: {3} (primary {4})", policy, trial,
                        trials, fault, primary.name);
                primary = inject(fault, random, primary, members, clients);
                awaitHealthy(primary, members, clients);
                assertThat(lost(primary, clients)).as("acknowledged writes missing on %s after trial %s (%s)",
                        primary.name, trial, fault).isEmpty();
                // a run stopped early still has its figures: every trial so far passed with these
                LOG.log(System.Logger.Level.INFO, "checker {0} after trial {1}: {2} acknowledged, 0 lost, {3} refused",
                        policy, trial, clients.stream().mapToLong(Client::ackedCount).sum(),
                        clients.stream().mapToLong(c -> c.refused.get()).sum());
            }
            for (Client c : clients) {
                c.stop = true;
                c.join(30_000);
            }
            Member last = primary;
            for (Member m : replicas(primary, members)) {
                // read afresh each time: the primary applies its own Ticks a moment after they are durable
                Await.until("replica " + m.name + " holds the primary's keyspace", Duration.ofSeconds(60), () -> {
                    try {
                        return JournalCluster.sequence(m.node) == JournalCluster.sequence(last.node)
                                && m.node.digest().equals(last.node.digest());
                    } catch (IOException e) {
                        return false;
                    }
                });
            }
            long audited = 0;
            for (Member m : members) {
                try (var files = Files.list(m.node.home().resolve("data"))) {
                    audited += files.filter(f -> f.getFileName().toString().startsWith("split_brain_discarded_"))
                            .count();
                }
            }
            Figures f = new Figures(policy, seed, trials, faults,
                    clients.stream().mapToLong(Client::ackedCount).sum(), lost(primary, clients).size(),
                    clients.stream().mapToLong(c -> c.refused.get()).sum(),
                    clients.stream().mapToLong(c -> c.fencedNanos.get()).sum() / 1_000_000, audited,
                    (System.nanoTime() - started) / 1_000_000);
            LOG.log(System.Logger.Level.INFO, "checker figures: {0}", f);
            report(f);
        } finally {
            clients.forEach(c -> c.stop = true);
            for (Member m : members) {
                m.node.close();
                if (m.proxy != null) {
                    m.proxy.close();
                }
            }
        }
    }

    /** Makes {@code replica} follow {@code primary} through a fresh proxy, and waits until it streams. */
    private static void follow(Member replica, Member primary) throws IOException {
        if (replica.proxy != null) {
            replica.proxy.close();
        }
        replica.proxy = new ByteProxy(primary.replicationPort);
        JournalCluster.shell(replica.node, "repl:replicaof 127.0.0.1:" + replica.proxy.port());
    }

    private static List<Member> replicas(Member primary, List<Member> members) {
        return members.stream().filter(m -> m != primary).toList();
    }

    /** @return the primary after the fault */
    private Member inject(String fault, Random random, Member primary, List<Member> members, List<Client> clients)
            throws IOException {
        List<Member> replicas = replicas(primary, members);
        Member one = replicas.get(random.nextInt(2));
        switch (fault) {
            case "cut-one" -> {
                one.proxy.partition();
                awaitAttempts(clients, 20 + random.nextInt(200));
                one.proxy.heal();
            }
            case "cut-both" -> {
                replicas.forEach(r -> r.proxy.partition());
                awaitFenced(primary);
                replicas.forEach(r -> r.proxy.heal());
            }
            case "flap" -> {
                for (int i = 0, flaps = 2 + random.nextInt(5); i < flaps; i++) {
                    one.proxy.partition();
                    awaitAttempts(clients, 5 + random.nextInt(30));
                    one.proxy.heal();
                    awaitAttempts(clients, 5 + random.nextInt(30));
                }
            }
            case "kill-replica" -> {
                one.node.kill();
                awaitAttempts(clients, random.nextInt(50));
                one.node.restart();
            }
            case "kill-replica-while-cut" -> {
                Member other = replicas.get(0) == one ? replicas.get(1) : replicas.get(0);
                other.proxy.partition();
                awaitAttempts(clients, random.nextInt(50));
                one.node.kill();
                awaitAttempts(clients, random.nextInt(50));
                other.proxy.heal();
                one.node.restart();
            }
            case "kill-primary" -> {
                primary.node.kill();
                primary.node.restart();
                return afterPrimaryRestart(primary, members);
            }
            case "kill-primary-while-cut" -> {
                one.proxy.partition();
                awaitAttempts(clients, random.nextInt(100));
                primary.node.kill();
                one.proxy.heal();
                primary.node.restart();
                return afterPrimaryRestart(primary, members);
            }
            case "failover" -> {
                replicas.forEach(r -> r.proxy.partition());
                awaitFenced(primary);
                return failover(primary, members);
            }
            default -> throw new IllegalArgumentException(fault);
        }
        return primary;
    }

    /**
     * A restarted primary is fenced until its replicas show they are not ahead; one that is ahead (it holds what the
     * primary streamed but had not made durable) is promoted, as the runbook says.
     */
    private Member afterPrimaryRestart(Member primary, List<Member> members) throws IOException {
        Await.until("the restarted primary's fence is decided", Duration.ofSeconds(60), () -> {
            String fence = JournalCluster.info(primary.node).get("tandem_fence");
            return fence == null ? replicas(primary, members).stream().allMatch(
                    r -> "up".equals(JournalCluster.info(r.node).get("master_link_status")))
                    : fence.contains("beyond this node");
        });
        String fence = JournalCluster.info(primary.node).get("tandem_fence");
        if (fence == null) {
            return primary;
        }
        LOG.log(System.Logger.Level.INFO, "checker: a replica is ahead of the restarted primary: failover ({0})",
                fence);
        return failover(primary, members);
    }

    /** Promotes the most advanced replica, points the other one and the old primary at it. */
    private Member failover(Member old, List<Member> members) throws IOException {
        List<Member> replicas = replicas(old, members);
        Member next = JournalCluster.sequence(replicas.get(0).node) >= JournalCluster.sequence(replicas.get(1).node)
                ? replicas.get(0) : replicas.get(1);
        Member other = replicas.get(0) == next ? replicas.get(1) : replicas.get(0);
        JournalCluster.shell(next.node, "repl:promote --force");
        next.proxy.close();
        next.proxy = null;
        follow(other, next);
        follow(old, next);
        return next;
    }

    private void awaitHealthy(Member primary, List<Member> members, List<Client> clients) {
        for (Client c : clients) {
            c.port = primary.node.port();
        }
        for (Member r : replicas(primary, members)) {
            JournalCluster.awaitStreaming(r.node);
        }
        long[] from = clients.stream().mapToLong(Client::ackedCount).toArray();
        Await.until("every client acknowledged again by " + primary.name, Duration.ofSeconds(120), () -> {
            for (int i = 0; i < clients.size(); i++) {
                if (clients.get(i).ackedCount() < from[i] + 10) {
                    return false;
                }
            }
            return true;
        });
    }

    private static void awaitFenced(Member primary) {
        Await.until("the isolated primary fences itself", Duration.ofSeconds(60),
                () -> "fenced".equals(JournalCluster.info(primary.node).get("tandem_quorum_fence")));
    }

    /** Waits until the clients have attempted {@code n} more writes, acknowledged or not: the fault's duration. */
    private static void awaitAttempts(List<Client> clients, int n) {
        long from = clients.stream().mapToLong(c -> c.n).sum();
        Await.until(n + " more attempts", Duration.ofSeconds(60),
                () -> clients.stream().mapToLong(c -> c.n).sum() >= from + n);
    }

    /** @return every acknowledged write the primary does not hold with its value */
    private static List<String> lost(Member primary, List<Client> clients) {
        List<String> missing = new ArrayList<>();
        try (Jedis jedis = new Jedis("127.0.0.1", primary.node.port(), 10_000, 60_000)) {
            for (Client c : clients) {
                List<Long> ns = new ArrayList<>(c.acked.keySet());
                for (int i = 0; i < ns.size(); i += 1000) {
                    List<Long> batch = ns.subList(i, Math.min(ns.size(), i + 1000));
                    List<String> values = jedis.mget(batch.stream().map(n -> c.prefix + ":" + n)
                            .toArray(String[]::new));
                    for (int j = 0; j < batch.size(); j++) {
                        if (!Long.toString(batch.get(j)).equals(values.get(j))) {
                            missing.add(c.prefix + ":" + batch.get(j));
                        }
                    }
                }
            }
        }
        return missing;
    }

    /** Appends the run's figures to {@code target/quorum-checker.txt}, which the on-demand script copies to docs. */
    private static void report(Figures f) throws IOException {
        Path out = Path.of("target", "quorum-checker.txt");
        Files.createDirectories(out.getParent());
        String row = String.format("| %s | %d | %d | %s | %d | %d | %d | %d | %d | %.1f min | %s |%n", f.policy(),
                f.trials(), f.seed(), f.faults(), f.acked(), f.lost(), f.refused(), f.fencedMillis(), f.audited(),
                f.millis() / 60_000.0, Instant.now());
        Files.writeString(out, row, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }
}
