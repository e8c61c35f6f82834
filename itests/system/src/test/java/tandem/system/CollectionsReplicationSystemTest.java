package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.args.ListPosition;
import redis.clients.jedis.params.ZAddParams;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;

import tandem.testsupport.Await;

/**
 * Lists, sets and sorted sets (issue 17) replicated by both protocols, with real processes: a primary
 * ({@code disk+ram}) with a journal-protocol replica ({@code --primary}) and a psync replica ({@code REPLICAOF}).
 * Concurrent writers push and pop lists, add, remove and pop set members, add, increment, pop and remove sorted-set
 * members, while consumers blocked in BLPOP, BZPOPMIN and BLMOVE are served by producers' pushes; then both replicas
 * hold the primary's {@code store:digest} and the same LRANGE/SMEMBERS/ZRANGE WITHSCORES. A fresh psync replica that
 * joins late by full sync, and a wiped journal replica that gets a snapshot (the primary keeps no old segment:
 * small segments, retention 0), hold the new types with the same digest and contents. One cluster for the class;
 * the tests run in order.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CollectionsReplicationSystemTest {

    private static final Duration CONVERGENCE = Duration.ofSeconds(60);
    private static final String INSTALLED = "installed the primary's snapshot";

    private static JournalCluster cluster;
    private static TandemNode journalReplica;
    private static TandemNode psyncReplica;
    private static final List<TandemNode> extra = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        // the late joiners take a replica away for a while: the quorum fence is FencingSystemTest's subject
        cluster = JournalCluster.start("coll-repl", "disk+ram", "tandem.journal:segment.size=65536",
                "tandem.journal:retention.max.bytes=0", "tandem.fencing:self.fence.on.replica.loss=false");
        journalReplica = cluster.addReplica(true);
        psyncReplica = psyncReplicaOf(cluster.primary, "coll-repl-psync");
    }

    @AfterAll
    static void stop() {
        for (TandemNode n : extra) {
            n.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A fresh node made a psync replica of {@code primary} with REPLICAOF; waits until it streams. */
    private static TandemNode psyncReplicaOf(TandemNode primary, String name) throws IOException {
        TandemNode n = TandemNode.start(name, "--replication-port", Integer.toString(TandemNode.freePort()),
                "--config", "tandem.psync:reconnect.max.ms=300");
        extra.add(n);
        TandemNode.Result r = n.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(primary.port()));
        assertThat(r.out().trim()).as(r.err()).isEqualTo("OK");
        JournalCluster.awaitStreaming(n);
        return n;
    }

    private static Jedis primary() {
        return new Jedis("127.0.0.1", cluster.primary.port(), 5000, 60_000);
    }

    // ------------------------------------------------------------------------------------------ workload

    /** A writer of shared list, set and sorted-set keys: a fixed number of random operations (seeded). */
    private static final class MixedWriter implements Runnable {
        final int id;
        final int ops;
        final Random random;
        final AtomicInteger done = new AtomicInteger();

        MixedWriter(int id, int ops, long seed) {
            this.id = id;
            this.ops = ops;
            this.random = new Random(seed);
        }

        @Override
        public void run() {
            try (Jedis j = primary()) {
                for (int n = 1; n <= ops; n++) {
                    step(j, n);
                    done.set(n);
                }
            }
        }

        private void step(Jedis j, int n) {
            String l = "rl:" + random.nextInt(3);
            String s = "rs:" + random.nextInt(3);
            String z = "rz:" + random.nextInt(3);
            String e = "w" + id + ":" + n;
            String member = "m" + random.nextInt(150);
            switch (random.nextInt(20)) {
                case 0, 1 -> j.rpush(l, e, e + "b");
                case 2 -> j.lpush(l, e);
                case 3 -> j.lpop(l);
                case 4 -> j.rpop(l, 2);
                case 5 -> j.lmove(l, "rl:" + random.nextInt(3), ListDirection.LEFT, ListDirection.RIGHT);
                case 6 -> j.ltrim(l, 0, 60);
                case 7, 8 -> j.sadd(s, member, "m" + random.nextInt(150), Integer.toString(random.nextInt(40)));
                case 9 -> j.srem(s, member, Integer.toString(random.nextInt(40)));
                case 10 -> j.spop(s);
                case 11 -> j.spop(s, 2);
                case 12, 13 -> j.zadd(z, random.nextInt(1000) / 8.0, member);
                case 14 -> j.zadd(z, random.nextInt(1000) / 8.0, member, ZAddParams.zAddParams().gt().ch());
                case 15 -> j.zincrby(z, random.nextInt(21) - 10 + 0.25, member);
                case 16 -> j.zpopmin(z);
                case 17 -> j.zpopmin(z, 3);
                case 18 -> j.zrem(z, member, "m" + random.nextInt(150));
                default -> j.linsert(l, ListPosition.AFTER, "w" + id + ":" + (n - 1), e);
            }
        }
    }

    /**
     * A consumer that blocks to take {@code count} elements of its key, and its producer that pushes them in bursts
     * of one to five, each burst once the consumer has taken the previous ones (so the consumer is mostly blocked
     * when the burst arrives and is served by it).
     */
    private abstract static class BlockingPair {
        final String name;
        final int count;
        final List<String> taken = new CopyOnWriteArrayList<>();
        final Random random;

        BlockingPair(String name, int count, long seed) {
            this.name = name;
            this.count = count;
            this.random = new Random(seed);
        }

        /** One blocking call; @return what it took, or null on its timeout */
        abstract String take(Jedis j);

        /** Pushes elements {@code from..to} (1-based). */
        abstract void push(Jedis j, int from, int to);

        void consume() {
            try (Jedis j = primary()) {
                while (taken.size() < count) {
                    String got = take(j);
                    if (got != null) {
                        taken.add(got);
                    }
                }
            }
        }

        void produce() {
            try (Jedis j = primary()) {
                int pushed = 0;
                while (pushed < count) {
                    int burst = Math.min(count - pushed, 1 + random.nextInt(5));
                    push(j, pushed + 1, pushed + burst);
                    pushed += burst;
                    int want = pushed;
                    Await.until(name + " consumer took " + want, Duration.ofSeconds(30), Duration.ofMillis(1),
                            () -> taken.size() >= want);
                }
            }
        }

        List<String> expected() {
            List<String> out = new ArrayList<>();
            for (int i = 1; i <= count; i++) {
                out.add(name + ":" + i);
            }
            return out;
        }
    }

    private static List<Thread> threads(AtomicReference<Throwable> failure, Runnable... tasks) {
        List<Thread> out = new ArrayList<>();
        for (Runnable task : tasks) {
            Thread t = new Thread(() -> {
                try {
                    task.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "collections-writer");
            t.setDaemon(true);
            out.add(t);
        }
        return out;
    }

    // -------------------------------------------------------------------------------------------- checks

    /** Waits until every replica holds the primary's digest, the primary's read again after theirs. */
    private static void awaitSameDigest(TandemNode... replicas) {
        JournalCluster.awaitSameDigest(cluster.primary, CONVERGENCE, replicas);
    }

    /** Every key of the node with its type and contents: LRANGE, SMEMBERS (sorted), ZRANGE WITHSCORES. */
    private static Map<String, String> contents(TandemNode node) {
        Map<String, String> out = new TreeMap<>();
        try (Jedis j = new Jedis("127.0.0.1", node.port(), 5000, 30_000)) {
            for (String key : j.keys("*")) {
                String type = j.type(key);
                String value = switch (type) {
                    case "list" -> j.lrange(key, 0, -1).toString();
                    case "set" -> new TreeSet<>(j.smembers(key)).toString();
                    case "zset" -> j.zrangeWithScores(key, 0, -1).toString();
                    case "string" -> j.get(key);
                    default -> "?";
                };
                out.put(key, type + " " + value);
            }
        }
        return out;
    }

    private static void assertSameContents(Map<String, String> primary, TandemNode... replicas) {
        for (TandemNode r : replicas) {
            Map<String, String> got = contents(r);
            assertThat(got.keySet()).as("keys on replica %d", r.port()).isEqualTo(primary.keySet());
            for (Map.Entry<String, String> e : primary.entrySet()) {
                assertThat(got.get(e.getKey())).as("%s on replica %d", e.getKey(), r.port()).isEqualTo(e.getValue());
            }
        }
    }

    private static int count(TandemNode node, String text) {
        return node.log().split(Pattern.quote(text), -1).length - 1;
    }

    private static int blockedClients(Jedis j) {
        return Integer.parseInt(TandemNode.infoField(j.info("clients"), "blocked_clients"));
    }

    // --------------------------------------------------------------------------------------------- tests

    @Test
    @Order(1)
    void concurrentListSetAndSortedSetWritersAndBlockedConsumersReachBothReplicas() throws Exception {
        long seed = Long.getLong("tandem.test.seed", System.nanoTime());
        System.getLogger("tandem.system").log(System.Logger.Level.INFO, "collections replication seed {0}", seed);
        Random random = new Random(seed);
        int perPair = 150;
        BlockingPair blpop = new BlockingPair("bl", perPair, random.nextLong()) {
            @Override
            String take(Jedis j) {
                KeyValue<String, String> kv = j.blpop(10.0, "bq:list");
                return kv == null ? null : kv.getValue();
            }

            @Override
            void push(Jedis j, int from, int to) {
                String[] es = new String[to - from + 1];
                for (int i = from; i <= to; i++) {
                    es[i - from] = name + ":" + i;
                }
                j.rpush("bq:list", es);
            }
        };
        BlockingPair bzpopmin = new BlockingPair("bz", perPair, random.nextLong()) {
            @Override
            String take(Jedis j) {
                KeyValue<String, Tuple> kv = j.bzpopmin(10.0, "bq:zset");
                if (kv == null) {
                    return null;
                }
                assertThat(kv.getValue().getScore()).as("score of %s", kv.getValue().getElement())
                        .isEqualTo(Double.parseDouble(kv.getValue().getElement().substring(name.length() + 1)) / 4);
                return kv.getValue().getElement();
            }

            @Override
            void push(Jedis j, int from, int to) {
                Map<String, Double> ms = new HashMap<>();
                for (int i = from; i <= to; i++) {
                    ms.put(name + ":" + i, i / 4.0);
                }
                j.zadd("bq:zset", ms);
            }
        };
        BlockingPair blmove = new BlockingPair("bm", perPair, random.nextLong()) {
            @Override
            String take(Jedis j) {
                return j.blmove("bq:src", "bq:dst", ListDirection.RIGHT, ListDirection.LEFT, 10.0);
            }

            @Override
            void push(Jedis j, int from, int to) {
                for (int i = from; i <= to; i++) {
                    j.lpush("bq:src", name + ":" + i);
                }
            }
        };
        List<BlockingPair> pairs = List.of(blpop, bzpopmin, blmove);
        List<MixedWriter> writers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            writers.add(new MixedWriter(i, 1200, random.nextLong()));
        }

        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> consumers = threads(failure, blpop::consume, bzpopmin::consume, blmove::consume);
        consumers.forEach(Thread::start);
        try (Jedis control = primary()) {
            // all three block before anything is pushed: their first takes are served by a later write
            Await.until("the three consumers are blocked", Duration.ofSeconds(30),
                    () -> failure.get() != null || blockedClients(control) == 3);
        }
        List<Runnable> rest = new ArrayList<>();
        pairs.forEach(p -> rest.add(p::produce));
        writers.forEach(w -> rest.add(w));
        List<Thread> producers = threads(failure, rest.toArray(new Runnable[0]));
        long started = System.nanoTime();
        producers.forEach(Thread::start);
        for (Thread t : producers) {
            t.join(120_000);
            assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
        }
        for (Thread t : consumers) {
            t.join(30_000);
            assertThat(t.isAlive()).as("consumer finished").isFalse();
        }
        assertThat(failure.get()).as("a writer failed").isNull();
        System.getLogger("tandem.system").log(System.Logger.Level.INFO, "collections workload: {0} ms",
                (System.nanoTime() - started) / 1_000_000);

        // each consumer took its producer's elements exactly once and in order
        for (BlockingPair p : pairs) {
            assertThat(p.taken).as("what the %s consumer took", p.name).containsExactlyElementsOf(p.expected());
        }
        List<String> moved = new ArrayList<>(blmove.expected());
        Collections.reverse(moved);
        try (Jedis j = primary()) {
            assertThat(j.lrange("bq:dst", 0, -1)).as("BLMOVE's destination").containsExactlyElementsOf(moved);
            assertThat(j.exists("bq:list", "bq:zset", "bq:src")).isZero();
            assertThat(blockedClients(j)).isZero();
            assertThat(j.keys("r[lsz]:*")).as("the mixed writers left data of every type").hasSizeGreaterThan(3);
        }

        awaitSameDigest(journalReplica, psyncReplica);
        Map<String, String> expected = contents(cluster.primary);
        assertThat(expected.values()).anyMatch(v -> v.startsWith("list ")).anyMatch(v -> v.startsWith("set "))
                .anyMatch(v -> v.startsWith("zset "));
        assertSameContents(expected, journalReplica, psyncReplica);
        // a replica refuses blocking pops as it refuses every write, and serves reads of the new types
        for (TandemNode r : List.of(journalReplica, psyncReplica)) {
            try (Jedis j = new Jedis("127.0.0.1", r.port(), 5000, 10_000)) {
                assertThat(catchThrowable(() -> j.blpop(0.0, "bq:dst")))
                        .as("BLPOP on replica %d", r.port()).hasMessageStartingWith("READONLY");
                assertThat(catchThrowable(() -> j.bzpopmin(0.0, "rz:0")))
                        .as("BZPOPMIN on replica %d", r.port()).hasMessageStartingWith("READONLY");
                assertThat(j.lrange("bq:dst", 0, 0)).containsExactly(moved.get(0));
                assertThat(blockedClients(j)).isZero();
            }
        }
    }

    /** Keys of every encoding, for the late joiners to receive: written once, then changed a little. */
    private static void writeEveryEncoding(String tag) {
        try (Jedis j = primary()) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < 2000; i += 100) {
                String[] es = new String[100];
                String[] ms = new String[100];
                Map<String, Double> zs = new HashMap<>();
                for (int k = 0; k < 100; k++) {
                    es[k] = tag + "-e" + (i + k);
                    ms[k] = tag + "-m" + (i + k);
                    zs.put(tag + "-z" + (i + k), (i + k) * 0.75 - 10);
                }
                p.rpush(tag + ":biglist", es);
                p.sadd(tag + ":bigset", ms);
                p.zadd(tag + ":bigzset", zs);
            }
            p.sadd(tag + ":intset", "5", "-3", "1000");
            p.zadd(tag + ":smallzset", Map.of("a", 1.5, "b", -0.0, "c", Double.POSITIVE_INFINITY));
            p.lpush(tag + ":smalllist", "x", "y");
            p.sync();
            j.lpop(tag + ":biglist", 3);
            j.linsert(tag + ":biglist", ListPosition.BEFORE, tag + "-e10", "inserted");
            j.srem(tag + ":bigset", tag + "-m7");
            j.spop(tag + ":bigset", 5);
            j.zincrby(tag + ":bigzset", 1000, tag + "-z3");
            j.zpopmin(tag + ":bigzset", 2);
            assertThat(j.objectEncoding(tag + ":bigset")).isEqualTo("hashtable");
            assertThat(j.objectEncoding(tag + ":intset")).isEqualTo("intset");
            assertThat(j.objectEncoding(tag + ":bigzset")).isEqualTo("skiplist");
            assertThat(j.objectEncoding(tag + ":smallzset")).isEqualTo("listpack");
        }
    }

    @Test
    @Order(2)
    void aFreshPsyncReplicaJoiningLateByFullSyncHoldsTheNewTypes() throws Exception {
        writeEveryEncoding("late-psync");
        // the primary serves two replicas: the first psync replica leaves for the newcomer
        psyncReplica.close();
        Await.until("the primary lets the psync replica go", Duration.ofSeconds(30),
                () -> "1".equals(cluster.primary.info("replication").get("connected_slaves")));
        long fullSyncs = cluster.primary.stat("sync_full");
        psyncReplica = psyncReplicaOf(cluster.primary, "coll-repl-late-psync");
        assertThat(cluster.primary.stat("sync_full")).as("the newcomer was full-synced").isEqualTo(fullSyncs + 1);
        awaitSameDigest(journalReplica, psyncReplica);
        Map<String, String> expected = contents(cluster.primary);
        assertThat(expected).containsKeys("late-psync:biglist", "late-psync:bigset", "late-psync:bigzset",
                "late-psync:intset", "late-psync:smallzset");
        assertSameContents(expected, psyncReplica, journalReplica);
        try (Jedis r = new Jedis("127.0.0.1", psyncReplica.port())) {
            assertThat(r.objectEncoding("late-psync:intset")).isEqualTo("intset");
            assertThat(r.objectEncoding("late-psync:bigzset")).isEqualTo("skiplist");
            assertThat(r.objectEncoding("late-psync:smallzset")).isEqualTo("listpack");
            assertThat(r.zscore("late-psync:smallzset", "c")).isEqualTo(Double.POSITIVE_INFINITY);
        }
        blockedPopAfterJoin("after-psync");
        awaitSameDigest(journalReplica, psyncReplica);
        assertSameContents(contents(cluster.primary), psyncReplica, journalReplica);
    }

    /** After a join the replicas go on applying the new types: a consumer blocked in BRPOP served by an LPUSH. */
    private static void blockedPopAfterJoin(String key) throws Exception {
        try (Jedis control = primary(); Jedis consumer = primary()) {
            CompletableFuture<KeyValue<String, String>> got =
                    CompletableFuture.supplyAsync(() -> consumer.brpop(30.0, key));
            Await.until("the consumer is blocked", Duration.ofSeconds(30), () -> blockedClients(control) == 1);
            control.lpush(key, "one", "two");
            assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(KeyValue.of(key, "one"));
            control.zadd(key + ":z", Map.of("p", 1.0, "q", 2.0));
            control.sadd(key + ":s", "p", "q", "r");
            control.spop(key + ":s");
        }
    }

    @Test
    @Order(3)
    void aWipedJournalReplicaGetsASnapshotHoldingTheNewTypes() throws Exception {
        writeEveryEncoding("late-journal");
        // before the replica goes (disk+ram counts journal-protocol replicas only: without it writes would wait)
        purgeJournalOfPrimary();
        journalReplica.stop();
        journalReplica.delete("data/journal", "data/store", "data/checkpoint");
        int before = count(journalReplica, INSTALLED);
        journalReplica.restart();
        Await.until("the wiped replica installs a snapshot", Duration.ofSeconds(90),
                () -> count(journalReplica, INSTALLED) > before);
        JournalCluster.awaitStreaming(journalReplica);
        awaitSameDigest(journalReplica, psyncReplica);
        Map<String, String> expected = contents(cluster.primary);
        assertThat(expected).containsKeys("late-journal:biglist", "late-journal:bigset", "late-journal:bigzset",
                "late-journal:intset", "late-journal:smallzset");
        assertSameContents(expected, journalReplica, psyncReplica);
        try (Jedis r = new Jedis("127.0.0.1", journalReplica.port())) {
            assertThat(r.objectEncoding("late-journal:intset")).isEqualTo("intset");
            assertThat(r.objectEncoding("late-journal:bigset")).isEqualTo("hashtable");
            assertThat(r.objectEncoding("late-journal:bigzset")).isEqualTo("skiplist");
            assertThat(r.objectEncoding("late-journal:smallzset")).isEqualTo("listpack");
            assertThat(r.lindex("late-journal:biglist", 0)).isEqualTo("late-journal-e3");
        }
        blockedPopAfterJoin("after-snapshot");
        awaitSameDigest(journalReplica, psyncReplica);
        assertSameContents(contents(cluster.primary), journalReplica, psyncReplica);
    }

    /**
     * Rotates and purges the primary's journal until it no longer starts at sequence 1, writing a little between
     * attempts so that the store flushes and a segment fills: a replica with nothing must then get a snapshot.
     */
    private static void purgeJournalOfPrimary() {
        AtomicInteger round = new AtomicInteger();
        Await.until("the primary's journal no longer starts at 1", Duration.ofSeconds(60), () -> {
            try (Jedis j = primary()) {
                int r = round.incrementAndGet();
                Pipeline p = j.pipelined();
                for (int i = 0; i < 50; i++) {
                    p.rpush("purge:list", "r" + r + "-" + i + "-" + "x".repeat(200));
                    p.zadd("purge:zset", r * 100 + i, "m" + (r * 100 + i));
                }
                p.ltrim("purge:list", -100, -1);
                p.sync();
                JournalCluster.shell(cluster.primary, "journal:rotate");
                JournalCluster.shell(cluster.primary, "journal:purge");
                String info = JournalCluster.shell(cluster.primary, "journal:info");
                Matcher m = Pattern.compile("(?m)^first sequence:\\s*(\\d+)").matcher(info);
                return m.find() && Long.parseLong(m.group(1)) > 1;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
    }
}
