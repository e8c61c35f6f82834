package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;

import tandem.testsupport.Await;

/**
 * Nothing acknowledged is lost from a list or a sorted set (issue 17), as {@link CrashSystemTest} checks for strings:
 * concurrent writers pipeline RPUSHes of unique elements to one shared list and ZADDs of unique members to one shared
 * sorted set, against a node (ack policy {@code auto}: {@code disk}, no replica) killed with SIGKILL at random moments
 * and restarted on the same home. After every restart each writer's acknowledged elements are in the list, in the
 * order it pushed them, followed at most by some of those it sent unacknowledged, with nothing else of its own; each
 * acknowledged member is in the sorted set with its score, and no member it never sent. Then a journal with lists,
 * sets, sorted sets and served blocking pops, replayed from scratch into an empty store, gives the same digest.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CollectionsCrashSystemTest {

    private static final int ROUNDS = 8;
    private static final int WRITERS = 4;
    private static final String LIST = "crash:list";
    private static final String ZSET = "crash:zset";

    @RegisterExtension
    static final PerClass<TandemNode> NODE = new PerClass<>(() -> TandemNode.start("coll-crash"));
    private final TandemNode node = NODE.get();
    private static final AtomicLong ACKS = new AtomicLong();

    /** One writer's progress across rounds: its elements "w<id>:<n>", its members "m<id>:<n>". */
    private static final class Writer {
        final int id;
        long listAcked; // elements 1..listAcked are acknowledged
        long listSent; // the highest element sent (it may or may not have been applied)
        long zsetAcked;
        long zsetSent;

        Writer(int id) {
            this.id = id;
        }

        String element(long n) {
            return "w" + id + ":" + n;
        }

        String member(long n) {
            return "m" + id + ":" + n;
        }

        /** A score of its own for each member: negative, fractional and large ones. */
        double score(long n) {
            return (n % 7 == 0 ? -1 : 1) * (n * 1.25 + id / 8.0) * (n % 11 == 0 ? 1e12 : 1);
        }

        /** Writes until {@code stop} or until the connection fails (the node was killed). */
        void run(int port, AtomicBoolean stop, Random random) {
            try (Jedis jedis = new Jedis("127.0.0.1", port, 2000, 5000)) {
                while (!stop.get()) {
                    Pipeline p = jedis.pipelined();
                    int pushes = 1 + random.nextInt(6);
                    int adds = 1 + random.nextInt(6);
                    long firstElement = listSent + 1;
                    long firstMember = zsetSent + 1;
                    for (int i = 0; i < Math.max(pushes, adds); i++) {
                        if (i < pushes) {
                            if (random.nextBoolean()) {
                                listSent++;
                                p.rpush(LIST, element(listSent));
                            } else { // two elements in one command
                                listSent += 2;
                                p.rpush(LIST, element(listSent - 1), element(listSent));
                            }
                        }
                        if (i < adds) {
                            zsetSent++;
                            p.zadd(ZSET, score(zsetSent), member(zsetSent));
                        }
                    }
                    List<Object> replies = p.syncAndReturnAll();
                    for (Object r : replies) {
                        assertThat(r).isInstanceOf(Long.class);
                    }
                    assertThat(listSent).isGreaterThanOrEqualTo(firstElement);
                    assertThat(zsetSent).isGreaterThanOrEqualTo(firstMember);
                    listAcked = listSent;
                    zsetAcked = zsetSent;
                    ACKS.incrementAndGet();
                }
            } catch (RuntimeException e) {
                // the node died under us: whatever was not acknowledged may or may not have been applied
            }
        }
    }

    @Test
    @Order(1)
    void everyAcknowledgedListElementAndSortedSetMemberSurvivesKillMinusNine() throws Exception {
        long seed = Long.getLong("tandem.test.seed", System.nanoTime());
        System.getLogger("tandem.system").log(System.Logger.Level.INFO, "collections crash seed {0}", seed);
        Random random = new Random(seed);
        List<Writer> writers = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            writers.add(new Writer(i));
        }
        for (int round = 1; round <= ROUNDS; round++) {
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            for (Writer w : writers) {
                Random r = new Random(random.nextLong());
                Thread t = new Thread(() -> w.run(node.port(), stop, r), "writer-" + w.id);
                t.start();
                threads.add(t);
            }
            // kill at a random moment: after a random number of further acknowledged batches
            long target = ACKS.get() + 20 + random.nextInt(400);
            Await.until("the writers acknowledge " + target + " batches", Duration.ofSeconds(60),
                    () -> ACKS.get() >= target);
            assertThat(node.kill()).isEqualTo(137);
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
                assertThat(t.isAlive()).isFalse();
            }
            long inFlight = writers.stream().mapToLong(w -> w.listSent - w.listAcked + w.zsetSent - w.zsetAcked).sum();
            node.restart();
            verify(writers, round);
            System.getLogger("tandem.system").log(System.Logger.Level.INFO, "round {0}: killed with {1} writes in "
                    + "flight; list {2}, sorted set {3}", round, inFlight,
                    writers.stream().mapToLong(w -> w.listAcked).sum(),
                    writers.stream().mapToLong(w -> w.zsetAcked).sum());
        }
        long elements = writers.stream().mapToLong(w -> w.listAcked).sum();
        long members = writers.stream().mapToLong(w -> w.zsetAcked).sum();
        assertThat(elements).as("the writers pushed").isGreaterThan(ROUNDS * 20L);
        assertThat(members).as("the writers added").isGreaterThan(ROUNDS * 20L);
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 2000, 10_000)) {
            assertThat(jedis.llen(LIST)).isEqualTo(elements);
            assertThat(jedis.zcard(ZSET)).isEqualTo(members);
        }
        TandemNode.Result verify = node.shell("journal:verify");
        assertThat(verify.exit()).as(verify.err()).isZero();
        assertThat(verify.out()).contains("journal OK");
    }

    private void verify(List<Writer> writers, int round) {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 2000, 30_000)) {
            List<String> list = jedis.lrange(LIST, 0, -1);
            Map<Integer, List<Long>> byWriter = new HashMap<>();
            for (String e : list) {
                assertThat(e).as("round %d: an element of the list", round).matches("w\\d+:\\d+");
                int colon = e.indexOf(':');
                byWriter.computeIfAbsent(Integer.parseInt(e.substring(1, colon)), k -> new ArrayList<>())
                        .add(Long.parseLong(e.substring(colon + 1)));
            }
            Map<String, Double> zset = new HashMap<>();
            for (Tuple t : jedis.zrangeWithScores(ZSET, 0, -1)) {
                zset.put(t.getElement(), t.getScore());
            }
            Map<Integer, Long> membersByWriter = new HashMap<>();
            for (String m : zset.keySet()) {
                assertThat(m).as("round %d: a member of the sorted set", round).matches("m\\d+:\\d+");
                membersByWriter.merge(Integer.parseInt(m.substring(1, m.indexOf(':'))), 1L, Long::sum);
            }
            for (Writer w : writers) {
                // the list: this writer's elements are 1..k in push order, with acknowledged <= k <= sent
                List<Long> mine = byWriter.getOrDefault(w.id, List.of());
                for (int i = 0; i < mine.size(); i++) {
                    if (mine.get(i) != i + 1) {
                        throw new AssertionError("round " + round + ": writer " + w.id + "'s elements in " + LIST
                                + " are not 1.." + mine.size() + " in push order: position " + i + " holds "
                                + w.element(mine.get(i)) + " (acknowledged up to " + w.listAcked + ")");
                    }
                }
                assertThat((long) mine.size()).as("round %d: writer %d's elements in %s (acknowledged %d, sent %d)",
                        round, w.id, LIST, w.listAcked, w.listSent).isBetween(w.listAcked, w.listSent);
                // the sorted set: every acknowledged member with its score; the rest of those sent either absent
                // or complete; one connection's writes apply in order, so the applied ones are a prefix
                long applied = 0;
                for (long n = 1; n <= w.zsetSent; n++) {
                    Double score = zset.get(w.member(n));
                    if (n <= w.zsetAcked) {
                        assertThat(score).as("round %d: acknowledged member %s", round, w.member(n))
                                .isEqualTo(w.score(n));
                    } else if (score != null) {
                        assertThat(score).as("round %d: unacknowledged member %s", round, w.member(n))
                                .isEqualTo(w.score(n));
                    }
                    if (score != null) {
                        assertThat(applied).as("round %d: %s applied after a gap", round, w.member(n))
                                .isEqualTo(n - 1);
                        applied = n;
                    }
                }
                assertThat(membersByWriter.getOrDefault(w.id, 0L)).as("round %d: writer %d's members", round, w.id)
                        .isEqualTo(applied);
                // continue right after what was applied
                w.listAcked = w.listSent = mine.size();
                w.zsetAcked = w.zsetSent = applied;
            }
            assertThat(byWriter.keySet()).as("round %d: no element of an unknown writer", round)
                    .allMatch(id -> id >= 0 && id < writers.size());
        }
    }

    @Test
    @Order(2)
    void aJournalOfCollectionsAndServedBlockingPopsReplayedFromScratchGivesTheSameDigest() throws Exception {
        Map<String, String> before;
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 2000, 30_000);
                Jedis consumer = new Jedis("127.0.0.1", node.port(), 2000, 30_000)) {
            for (int i = 0; i < 300; i++) {
                jedis.rpush("replay:l" + i % 5, "e" + i, "f" + i);
                jedis.sadd("replay:s" + i % 3, "m" + i % 97, Integer.toString(i % 13));
                jedis.zadd("replay:z" + i % 3, i * 0.5 - 20, "m" + i % 89);
                switch (i % 6) {
                    case 0 -> jedis.lpop("replay:l" + i % 5);
                    case 1 -> jedis.spop("replay:s" + i % 3);
                    case 2 -> jedis.zpopmin("replay:z" + i % 3);
                    case 3 -> jedis.zincrby("replay:z" + i % 3, 2.5, "m" + i % 89);
                    case 4 -> jedis.lmove("replay:l" + i % 5, "replay:l" + (i + 1) % 5, ListDirection.LEFT,
                            ListDirection.RIGHT);
                    default -> jedis.srem("replay:s" + i % 3, "m" + i % 97);
                }
            }
            jedis.sadd("replay:ints", "3", "1", "2");
            // blocking pops served by later writes: journaled again after the write that served them
            for (int i = 0; i < 5; i++) {
                String key = "replay:bq" + i;
                CompletableFuture<KeyValue<String, String>> got = CompletableFuture.supplyAsync(
                        () -> consumer.blpop(30.0, key));
                Await.until("the consumer is blocked on " + key, Duration.ofSeconds(30), () -> Integer.parseInt(
                        TandemNode.infoField(jedis.info("clients"), "blocked_clients")) == 1);
                jedis.rpush(key, "a" + i, "b" + i);
                assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(KeyValue.of(key, "a" + i));
            }
            CompletableFuture<KeyValue<String, Tuple>> z = CompletableFuture.supplyAsync(
                    () -> consumer.bzpopmin(30.0, "replay:bz"));
            Await.until("the consumer is blocked in BZPOPMIN", Duration.ofSeconds(30), () -> Integer.parseInt(
                    TandemNode.infoField(jedis.info("clients"), "blocked_clients")) == 1);
            jedis.zadd("replay:bz", Map.of("x", 2.0, "y", 1.0));
            assertThat(z.get(30, TimeUnit.SECONDS)).isEqualTo(KeyValue.of("replay:bz", new Tuple("y", 1.0)));
            assertThat(consumer.blpop(0.1, "replay:never")).isNull(); // a timeout: nothing journaled to replay
            before = contents(jedis);
        }
        String digest = node.digest();
        assertThat(node.stop()).isIn(0, 143);
        Path store = node.home().resolve("data/store");
        assertThat(store).isDirectory();
        node.delete("data/store");
        node.restart();
        assertThat(node.digest()).isEqualTo(digest);
        try (Jedis jedis = new Jedis("127.0.0.1", node.port(), 2000, 30_000)) {
            assertThat(contents(jedis)).isEqualTo(before);
            assertThat(jedis.lrange("replay:bq4", 0, -1)).containsExactly("b4");
            assertThat(jedis.objectEncoding("replay:ints")).isEqualTo("intset");
        }
    }

    private static Map<String, String> contents(Jedis jedis) {
        Map<String, String> out = new TreeMap<>();
        for (String key : jedis.keys("replay:*")) {
            out.put(key, switch (jedis.type(key)) {
                case "list" -> "list " + jedis.lrange(key, 0, -1);
                case "set" -> "set " + new TreeSet<>(jedis.smembers(key));
                case "zset" -> "zset " + jedis.zrangeWithScores(key, 0, -1);
                default -> jedis.type(key);
            });
        }
        return out;
    }

}
