package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;

import tandem.system.AutoFailoverSystemTest.GroupClient;
import tandem.testsupport.Await;

/**
 * A randomized fault checker for automatic failover: three nodes of one failover group (a primary and two journal
 * replicas), each on a host of its own ({@link Netns}: a network namespace with its own address), and two clients
 * that walk the nodes and record every write answered {@code +OK}. Each trial draws a fault from a seeded random
 * source — {@code kill -9} of the primary, of a replica or of the Raft leader (restarted); a network partition that
 * cuts the primary, a replica or the Raft leader off from the other two (the clients still reach every node); a
 * stop-the-world pause of the primary long enough for a failover or too short for one, a pause of a replica; a slow
 * disk under the primary or a replica ({@link SlowDisk}: its writes capped at a few per second); a {@code FAILOVER}
 * — and nobody promotes anything: the group does. A primary cut off from the majority must refuse writes once the
 * others have named its successor. After each trial the group must heal by itself (a primary that takes writes, both
 * other nodes streaming from it) and every write ever acknowledged must be on the primary of the moment, except under
 * {@code disk} with lossy failover, where what is missing is counted and compared with the bound docs/failover.md
 * states.
 *
 * <p>The seed is drawn per run and printed; {@code -Dtandem.failover.checker.seed=<n>} replays one. CI runs
 * {@value #CI_TRIALS} trials per policy; on demand {@code itests/benchmarks/run-failover-checker.sh} runs 1,000 and
 * writes the figures to {@code docs/failover-checker.md}.
 */
class FailoverCheckerSystemTest {

    static final int CI_TRIALS = 3;
    /** Trials on one group before the next starts afresh ({@code -Dtandem.failover.checker.round}). */
    static final int ROUND = 100;
    private static final System.Logger LOG = System.getLogger("tandem.system");
    private static final Duration HEAL = Duration.ofSeconds(90);
    private static final long DOWN_AFTER_MS = 1000;
    private static final List<String> FAULTS = List.of("kill-primary", "kill-replica", "kill-leader",
            "partition-primary", "partition-replica", "partition-leader", "pause-primary", "flap-primary",
            "pause-replica", "slow-disk-primary", "slow-disk-replica", "switchover");

    /** The faults a run draws from: all, or those {@code -Dtandem.failover.checker.faults=a,b} names. */
    static List<String> faults() {
        String only = System.getProperty("tandem.failover.checker.faults", "");
        List<String> chosen = only.isBlank() ? FAULTS : List.of(only.split(","));
        if (!FAULTS.containsAll(chosen)) {
            throw new IllegalArgumentException("tandem.failover.checker.faults: " + only + " names a fault not in "
                    + FAULTS);
        }
        return chosen;
    }

    static List<String> policies() {
        return List.of(System.getProperty("tandem.failover.checker.policies", "disk+ram,two-disks,disk").split(","));
    }

    /**
     * A run's figures so far. {@code gapsMillis}: per trial, the longest time a client went without an acknowledged
     * write; {@code killGapsMillis}: the same for the trials that killed the primary, the time to a writable primary.
     */
    private record Figures(String policy, long seed, int trials, Map<String, Integer> faults, long acked,
            long lost, Map<String, Loss> losses, List<Long> gapsMillis, List<Long> killGapsMillis, long millis) {
    }

    /**
     * The writes a lossy policy lost in trials of one fault: how many, and when the earliest and the latest of them
     * were acknowledged, in milliseconds from the fault's start (negative: before it). The latest is what the
     * documented bound speaks of: a cut-off primary acknowledges on its own until its lease lapses.
     */
    private record Loss(long writes, long earliestMillis, long latestMillis) {

        Loss plus(Loss o) {
            return new Loss(writes + o.writes, Math.min(earliestMillis, o.earliestMillis), Math.max(latestMillis,
                    o.latestMillis));
        }

        @Override
        public String toString() {
            return String.format("%d acked %+d to %+d ms", writes, earliestMillis, latestMillis);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    @Timeout(value = 8, unit = TimeUnit.HOURS) // the on-demand run; CI's slice takes about a minute per policy
    void everyAcknowledgedWriteSurvivesAutomaticFailover(String policy) throws Exception {
        int trials = Integer.getInteger("tandem.failover.checker.trials", CI_TRIALS);
        long seed = Long.getLong("tandem.failover.checker.seed", System.nanoTime());
        LOG.log(System.Logger.Level.INFO, "failover checker {0}: seed {1} (replay with "
                + "-Dtandem.failover.checker.seed={1})", policy, Long.toString(seed));
        Random random = new Random(seed ^ policy.hashCode());
        boolean lossy = policy.equals("disk");
        int round = Integer.getInteger("tandem.failover.checker.round", ROUND);
        Run run = new Run(policy, seed, System.nanoTime());
        while (run.trials < trials) {
            round(run, random, lossy, Math.min(round, trials - run.trials), trials);
        }
        Figures f = run.figures(0);
        LOG.log(System.Logger.Level.INFO, "failover checker figures: {0}", f);
        report(f);
    }

    /** What a run's finished rounds and trials add up to. */
    private static final class Run {

        final String policy;
        final long seed;
        final long started;
        final Map<String, Integer> faults = new TreeMap<>();
        final List<Long> gaps = new ArrayList<>();
        final List<Long> killGaps = new ArrayList<>();
        final Map<String, Loss> losses = new TreeMap<>();
        int trials;
        long lost;
        /** The writes acknowledged in finished rounds (lost ones included). */
        long acked;

        Run(String policy, long seed, long started) {
            this.policy = policy;
            this.seed = seed;
            this.started = started;
        }

        Figures figures(long ackedThisRound) {
            return new Figures(policy, seed, trials, faults, acked + ackedThisRound, lost, losses, gaps, killGaps,
                    (System.nanoTime() - started) / 1_000_000);
        }
    }

    /**
     * {@code count} trials on a group of its own. Every trial checks every write acknowledged so far in its round,
     * so a round's length bounds the check's cost and the nodes' heaps (each write is a key of its own); a round
     * that passes removes its nodes' homes, one that fails keeps them for the post-mortem.
     */
    private static void round(Run run, Random random, boolean lossy, int count, int trials) throws Exception {
        String policy = run.policy;
        Map<String, TandemNode> nodes = new LinkedHashMap<>();
        List<GroupClient> clients = new ArrayList<>();
        Netns net = Netns.create(3);
        Map<String, Netns.Host> hosts = Map.of("a", net.hosts().get(0), "b", net.hosts().get(1), "c",
                net.hosts().get(2));
        SlowDisk slow = null;
        List<String> drawn = faults();
        long lostBefore = run.lost;
        boolean passed = false;
        try {
            String peers = String.join(",", List.of("a", "b", "c").stream().map(id -> id + "@"
                    + hosts.get(id).ip() + ":7400").toList()); // a port of its own on each host
            int primaryReplication = 0;
            for (String id : List.of("a", "b", "c")) {
                int rp = TandemNode.freePort();
                List<String> args = new ArrayList<>(List.of("--replication-port", Integer.toString(rp),
                        "--ack-policy", policy, "--config", JournalCluster.FAST_RECONNECT, "--config",
                        "tandem.failover:node.id=" + id, "--config", "tandem.failover:peers=" + peers, "--config",
                        "tandem.failover:lossy=" + lossy));
                if (primaryReplication == 0) {
                    primaryReplication = rp;
                } else {
                    args.addAll(List.of("--primary", hosts.get("a").ip() + ":" + primaryReplication));
                }
                nodes.put(id, TandemNode.startIn(hosts.get(id), "fochecker-" + id, args.toArray(new String[0])));
            }
            slow = SlowDisk.under(nodes.get("a").home());
            Faults injector = new Faults(net, hosts, slow);
            for (TandemNode on : nodes.values()) {
                for (TandemNode who : nodes.values()) {
                    if (on != who) {
                        JournalCluster.authorize(who, on);
                    }
                }
            }
            for (int i = 0; i < 2; i++) {
                clients.add(GroupClient.start("fc" + i, new ArrayList<>(nodes.values())));
            }
            awaitHealthy(nodes, clients);

            for (int i = 0; i < count; i++) {
                int trial = ++run.trials;
                String fault = drawn.get(random.nextInt(drawn.size()));
                run.faults.merge(fault, 1, Integer::sum);
                String primary = primary(nodes);
                LOG.log(System.Logger.Level.INFO, "failover checker {0} trial {1}/{2}: {3} (primary {4})", policy,
                        trial, trials, fault, primary);
                clients.forEach(GroupClient::resetGap);
                long faultStarted = System.nanoTime();
                injector.inject(fault, random, primary, nodes, clients);
                String now = awaitHealthy(nodes, clients);
                run.gaps.add(clients.stream().mapToLong(GroupClient::longestGapNanos).max().orElse(0) / 1_000_000);
                if (fault.equals("kill-primary")) {
                    run.killGaps.add(run.gaps.get(run.gaps.size() - 1));
                }
                List<String> missing = missing(nodes.get(now), clients);
                if (lossy) {
                    run.lost += missing.size();
                    if (!missing.isEmpty()) {
                        Loss loss = loss(missing, clients, faultStarted);
                        LOG.log(System.Logger.Level.INFO, "failover checker {0} trial {1} ({2}) lost {3}", policy,
                                trial, fault, loss);
                        run.losses.merge(fault, loss, Loss::plus);
                    }
                    clients.forEach(c -> c.forget(missing)); // counted once; the next trials check the rest
                } else {
                    assertThat(missing).as("acknowledged writes missing on %s after trial %s (%s), seed %s", now,
                            trial, fault, run.seed).isEmpty();
                }
                long acked = clients.stream().mapToLong(c -> c.acked.size()).sum();
                LOG.log(System.Logger.Level.INFO, "failover checker {0} after trial {1}: primary {2}, {3} "
                        + "acknowledged in this round, {4} lost, {5} ms without a write", policy, trial, now, acked,
                        run.lost, run.gaps.get(run.gaps.size() - 1));
                // a long run's figures so far, kept should the run be stopped before its end
                progress(run.figures(acked + run.lost - lostBefore));
            }
            clients.forEach(GroupClient::halt);
            for (GroupClient c : clients) {
                assertThat(c.failure.get()).as(c.name).isNull();
            }
            run.acked += clients.stream().mapToLong(c -> c.acked.size()).sum() + run.lost - lostBefore;
            passed = true;
        } finally {
            clients.forEach(GroupClient::halt);
            nodes.values().forEach(n -> {
                resume(n);
                n.close();
            });
            if (slow != null) {
                slow.close();
            }
            net.close();
            if (passed) {
                for (TandemNode n : nodes.values()) {
                    removeTree(n.home());
                }
            }
        }
    }

    private static void removeTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The faults that need the test's hosts and the disk's throttle. */
    private record Faults(Netns net, Map<String, Netns.Host> hosts, SlowDisk disk) {

        void inject(String fault, Random random, String primary, Map<String, TandemNode> nodes,
                List<GroupClient> clients) throws IOException {
            List<String> others = nodes.keySet().stream().filter(id -> !id.equals(primary)).toList();
            String replica = others.get(random.nextInt(others.size()));
            switch (fault) {
                case "kill-primary" -> {
                    TandemNode p = nodes.get(primary);
                    p.kill();
                    Await.until("the group names a new primary", HEAL, () -> {
                        String now = primary(nodes, primary);
                        return now != null && !now.equals(primary);
                    });
                    p.restart();
                }
                case "kill-replica" -> {
                    TandemNode r = nodes.get(replica);
                    r.kill();
                    awaitProgress(clients, 20 + random.nextInt(200));
                    r.restart();
                }
                case "kill-leader" -> {
                    String leader = leader(nodes);
                    TandemNode l = nodes.get(leader == null ? replica : leader);
                    l.kill();
                    awaitProgressOrTime(clients, 20 + random.nextInt(100), Duration.ofMillis(3 * DOWN_AFTER_MS));
                    l.restart();
                }
                case "pause-primary" -> {
                    TandemNode p = nodes.get(primary);
                    pause(p);
                    try {
                        Await.until("the group replaces the paused primary", HEAL, () -> {
                            String now = primary(nodes, primary);
                            return now != null && !now.equals(primary);
                        });
                        awaitProgressOrTime(clients, random.nextInt(200), Duration.ofMillis(random.nextInt(1500)));
                    } finally {
                        resume(p);
                    }
                }
                case "flap-primary" -> {
                    // shorter than the lease: nothing should change, but the test does not insist
                    TandemNode p = nodes.get(primary);
                    pause(p);
                    try {
                        Await.until("a short pause", Duration.ofSeconds(5), Duration.ofMillis(20),
                                nanosSince(System.nanoTime(), 100 + random.nextInt(300)));
                    } finally {
                        resume(p);
                    }
                }
                case "pause-replica" -> {
                    TandemNode r = nodes.get(replica);
                    pause(r);
                    try {
                        awaitProgressOrTime(clients, 20 + random.nextInt(100), Duration.ofMillis(500
                                + random.nextInt(2000)));
                    } finally {
                        resume(r);
                    }
                }
                case "partition-primary" -> {
                    TandemNode p = nodes.get(primary);
                    net.partition(List.of(hosts.get(primary)));
                    try {
                        Await.until("the majority side names a new primary", HEAL, () -> {
                            String now = primary(nodes, primary);
                            return now != null && !now.equals(primary);
                        });
                        // its lease lapsed before the group could choose a successor: the old primary refuses writes
                        // refused before it is journaled: READONLY (the lease), or CLUSTERDOWN when the quorum
                        // fence's window ran out first on a slow machine
                        try (Jedis jedis = new Jedis(p.host(), p.port(), 5000)) {
                            assertThatThrownBy(() -> jedis.set("partition-probe", "1")).as("a write to the cut-off "
                                    + "old primary %s after its successor was named", primary)
                                    .isInstanceOf(redis.clients.jedis.exceptions.JedisDataException.class)
                                    .message().matches("(READONLY|CLUSTERDOWN) .*");
                        }
                        awaitProgressOrTime(clients, random.nextInt(200), Duration.ofMillis(random.nextInt(1500)));
                    } finally {
                        net.heal();
                    }
                }
                case "partition-replica", "partition-leader" -> {
                    String leader = fault.equals("partition-leader") ? leader(nodes) : null;
                    net.partition(List.of(hosts.get(leader == null ? replica : leader)));
                    try {
                        awaitProgressOrTime(clients, 20 + random.nextInt(200), Duration.ofMillis(500
                                + random.nextInt(2500)));
                    } finally {
                        net.heal();
                    }
                }
                case "slow-disk-primary", "slow-disk-replica" -> {
                    TandemNode n = nodes.get(fault.endsWith("primary") ? primary : replica);
                    long pid = n.process().pid();
                    disk.slow(pid, 2 + random.nextInt(19));
                    try {
                        awaitProgressOrTime(clients, 20 + random.nextInt(200), Duration.ofMillis(500
                                + random.nextInt(2500)));
                    } finally {
                        disk.restore(pid);
                    }
                }
                case "switchover" -> {
                    TandemNode to = nodes.get(replica);
                    try (Jedis jedis = new Jedis(nodes.get(primary).host(), nodes.get(primary).port(), 5000)) {
                        Object reply = jedis.sendCommand(() -> redis.clients.jedis.util.SafeEncoder.encode(
                                "FAILOVER"), "TO", to.host(), Integer.toString(to.port()), "TIMEOUT", "10000");
                        LOG.log(System.Logger.Level.INFO, "FAILOVER: {0}", reply instanceof byte[] b
                                ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : reply);
                    } catch (redis.clients.jedis.exceptions.JedisException e) {
                        LOG.log(System.Logger.Level.INFO, "FAILOVER refused: {0}", e.getMessage());
                    }
                }
                default -> throw new IllegalArgumentException(fault);
            }
        }
    }

    private static java.util.function.BooleanSupplier nanosSince(long from, long millis) {
        return () -> System.nanoTime() - from >= TimeUnit.MILLISECONDS.toNanos(millis);
    }

    private static void pause(TandemNode n) throws IOException {
        TandemNode.run(Duration.ofSeconds(10), "kill", "-STOP", Long.toString(n.process().pid()));
    }

    private static void resume(TandemNode n) {
        try {
            if (n.process() != null && n.process().isAlive()) {
                TandemNode.run(Duration.ofSeconds(10), "kill", "-CONT", Long.toString(n.process().pid()));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** @return the group's primary as the first live node that knows one reports it, or null */
    private static String primary(Map<String, TandemNode> nodes) {
        return primary(nodes, null);
    }

    /** @return the group's primary as a live node other than {@code not} reports it, or null */
    private static String primary(Map<String, TandemNode> nodes, String not) {
        for (Map.Entry<String, TandemNode> e : nodes.entrySet()) {
            if (e.getKey().equals(not) || !e.getValue().process().isAlive()) {
                continue;
            }
            String p = JournalCluster.info(e.getValue()).get("tandem_failover_primary");
            if (p != null && !p.isEmpty()) {
                return p;
            }
        }
        return null;
    }

    private static String leader(Map<String, TandemNode> nodes) {
        for (TandemNode n : nodes.values()) {
            String l = JournalCluster.info(n).get("tandem_failover_raft_leader");
            if (l != null && !l.isEmpty()) {
                return l;
            }
        }
        return null;
    }

    /**
     * Waits until the group has healed by itself: a primary that every live node names, both other nodes streaming
     * from it, and every client answered again.
     *
     * @return the primary's id
     */
    private static String awaitHealthy(Map<String, TandemNode> nodes, List<GroupClient> clients) {
        // the Raft side heals too before the next fault: a restarted peer is reached by the leader's gRPC only
        // after a reconnection backoff, and a second fault before that is a double one (no majority answers)
        try {
            String primary = AutoFailoverSystemTest.awaitWhole(nodes, HEAL);
            awaitProgress(clients, 10);
            return primary;
        } catch (AssertionError e) {
            dumpThreads(nodes);
            throw e;
        }
    }

    /** Writes each live node's thread stacks to {@code threads.txt} in its home: a group that did not heal. */
    private static void dumpThreads(Map<String, TandemNode> nodes) {
        for (TandemNode n : nodes.values()) {
            if (n.process().isAlive()) {
                try {
                    Files.writeString(n.home().resolve("threads.txt"), TandemNode.run(Duration.ofSeconds(30),
                            "jcmd", Long.toString(n.process().pid()), "Thread.print").out());
                } catch (IOException | RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "no thread dump of " + n.home() + ": " + e);
                }
            }
        }
    }

    private static void awaitProgress(List<GroupClient> clients, int more) {
        for (GroupClient c : clients) {
            c.awaitAcked(c.acked.size() + more);
        }
    }

    /** The fault's length: {@code more} acknowledged writes per client, or {@code time}, whichever comes first. */
    private static void awaitProgressOrTime(List<GroupClient> clients, int more, Duration time) {
        long from = System.nanoTime();
        long[] start = clients.stream().mapToLong(c -> c.acked.size()).toArray();
        Await.until("the fault's length", Duration.ofSeconds(60), () -> {
            if (System.nanoTime() - from >= time.toNanos()) {
                return true;
            }
            for (int i = 0; i < clients.size(); i++) {
                if (clients.get(i).acked.size() < start[i] + more) {
                    return false;
                }
            }
            return true;
        });
    }

    /** @return the lost writes' count and acknowledgement times relative to {@code faultStarted} */
    private static Loss loss(List<String> missing, List<GroupClient> clients, long faultStarted) {
        long earliest = Long.MAX_VALUE;
        long latest = Long.MIN_VALUE;
        for (String key : missing) {
            for (GroupClient c : clients) {
                if (key.startsWith(c.name + ":")) {
                    long at = c.ackedAtNanos(Long.parseLong(key.substring(c.name.length() + 1))) - faultStarted;
                    earliest = Math.min(earliest, at);
                    latest = Math.max(latest, at);
                }
            }
        }
        return new Loss(missing.size(), Math.floorDiv(earliest, 1_000_000), Math.floorDiv(latest, 1_000_000));
    }

    /** @return every acknowledged write the primary does not hold with its value */
    private static List<String> missing(TandemNode primary, List<GroupClient> clients) {
        List<String> missing = new ArrayList<>();
        try (Jedis jedis = new Jedis(primary.host(), primary.port(), 10_000, 60_000)) {
            for (GroupClient c : clients) {
                List<Long> ns = new ArrayList<>(c.acked);
                for (int i = 0; i < ns.size(); i += 1000) {
                    List<Long> batch = ns.subList(i, Math.min(ns.size(), i + 1000));
                    List<String> values = jedis.mget(batch.stream().map(n -> c.name + ":" + n)
                            .toArray(String[]::new));
                    for (int j = 0; j < batch.size(); j++) {
                        if (!Long.toString(batch.get(j)).equals(values.get(j))) {
                            missing.add(c.name + ":" + batch.get(j));
                        }
                    }
                }
            }
        }
        return missing;
    }

    /** Appends the run's figures to {@code target/failover-checker.txt}, which the on-demand script copies to docs. */
    private static void report(Figures f) throws IOException {
        Path out = Path.of("target", "failover-checker.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, row(f), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Files.deleteIfExists(progressFile(f));
    }

    /** Replaces {@code target/failover-checker-<policy>.progress} with the figures so far. */
    private static void progress(Figures f) throws IOException {
        Path out = progressFile(f);
        Files.createDirectories(out.getParent());
        Files.writeString(out, row(f));
    }

    private static Path progressFile(Figures f) {
        return Path.of("target", "failover-checker-" + f.policy() + ".progress");
    }

    private static String row(Figures f) {
        return String.format("| %s | %d | %d | %s | %d | %s | %s | %s | %.1f min | %s |%n", f.policy(), f.trials(),
                f.seed(), f.faults(), f.acked(), f.losses().isEmpty() ? Long.toString(f.lost()) : f.lost() + " "
                        + f.losses(), percentiles(f.gapsMillis()),
                percentiles(f.killGapsMillis()), f.millis() / 60_000.0, Instant.now());
    }

    /** @return {@code p50 / p99 / max ms} of {@code millis} */
    private static String percentiles(List<Long> millis) {
        List<Long> sorted = millis.stream().sorted().toList();
        if (sorted.isEmpty()) {
            return "-";
        }
        return sorted.get(sorted.size() / 2) + " / " + sorted.get(Math.min(sorted.size() - 1,
                (int) (sorted.size() * 0.99))) + " / " + sorted.get(sorted.size() - 1) + " ms";
    }
}
