package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.args.ListPosition;
import redis.clients.jedis.args.SortedSetOption;
import redis.clients.jedis.params.LPosParams;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SortingParams;
import redis.clients.jedis.params.ZAddParams;
import redis.clients.jedis.params.ZIncrByParams;
import redis.clients.jedis.params.ZParams;
import redis.clients.jedis.params.ZRangeParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;

import tandem.testsupport.Await;

/**
 * Lists, sets and sorted sets (issue 17) used unchanged by a real Redis client (Jedis) against one Tandem node: the
 * non-blocking commands with the replies Redis 7.0 gives, SSCAN and ZSCAN iterated to the end over thousands of
 * members, SORT, COPY, TYPE and OBJECT ENCODING, and the blocking commands: a consumer served by a later push,
 * three consumers of one key served in the order they blocked, a BRPOPLPUSH → BLMOVE → BRPOP chain, BZPOPMIN
 * served by a ZADD, a timeout, a consumer that disconnects, and BLPOP inside MULTI. Every test has keys of its own;
 * one node for the class.
 */
@Timeout(120)
class CollectionsClientSystemTest {

    private static final Duration BLOCK_DEADLINE = Duration.ofSeconds(30);
    @RegisterExtension
    static final PerClass<TandemNode> NODE = new PerClass<>(() -> TandemNode.start("collections"));
    /** The blocked clients' threads. */
    private static final ExecutorService consumers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "consumer");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stop() {
        consumers.shutdownNow();
    }

    private static Jedis jedis() {
        return new Jedis("127.0.0.1", NODE.get().port(), 5000, 30_000);
    }

    /** INFO clients' blocked_clients, read on {@code control}. */
    private static int blockedClients(Jedis control) {
        return Integer.parseInt(TandemNode.infoField(control.info("clients"), "blocked_clients"));
    }

    private static void awaitBlocked(Jedis control, int n) {
        Await.until(n + " clients blocked (INFO blocked_clients)", BLOCK_DEADLINE, () -> blockedClients(control) == n);
    }

    private static <T> T result(Future<T> f) throws Exception {
        return f.get(BLOCK_DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    // ---------------------------------------------------------------------------------------------- lists

    @Test
    void listsPushPopBothEndsRangeInsertRemoveTrimPosMoveAndMpop() {
        try (Jedis j = jedis()) {
            assertThat(j.rpush("l", "a", "b", "c")).isEqualTo(3);
            assertThat(j.lpush("l", "z", "y")).isEqualTo(5);
            assertThat(j.lrange("l", 0, -1)).containsExactly("y", "z", "a", "b", "c");
            assertThat(j.lpop("l")).isEqualTo("y");
            assertThat(j.rpop("l")).isEqualTo("c");
            assertThat(j.lrange("l", 0, -1)).containsExactly("z", "a", "b");
            assertThat(j.lrange("l", -2, 100)).containsExactly("a", "b");
            assertThat(j.linsert("l", ListPosition.BEFORE, "b", "x")).isEqualTo(4);
            assertThat(j.linsert("l", ListPosition.AFTER, "nosuch", "q")).isEqualTo(-1);
            assertThat(j.lrange("l", 0, -1)).containsExactly("z", "a", "x", "b");
            assertThat(j.rpush("l", "a", "a", "x")).isEqualTo(7); // z a x b a a x
            assertThat(j.lrem("l", 2, "a")).isEqualTo(2); // the first two from the head
            assertThat(j.lrange("l", 0, -1)).containsExactly("z", "x", "b", "a", "x");
            assertThat(j.lrem("l", -1, "x")).isEqualTo(1); // the last one from the tail
            assertThat(j.lrange("l", 0, -1)).containsExactly("z", "x", "b", "a");
            assertThat(j.rpush("l", "b", "b")).isEqualTo(6); // z x b a b b
            assertThat(j.lpos("l", "b")).isEqualTo(2);
            assertThat(j.lpos("l", "b", LPosParams.lPosParams().rank(2))).isEqualTo(4);
            assertThat(j.lpos("l", "b", LPosParams.lPosParams().rank(-1))).isEqualTo(5);
            assertThat(j.lpos("l", "b", LPosParams.lPosParams(), 0)).containsExactly(2L, 4L, 5L);
            assertThat(j.lpos("l", "nosuch")).isNull();
            assertThat(j.ltrim("l", 1, -2)).isEqualTo("OK");
            assertThat(j.lrange("l", 0, -1)).containsExactly("x", "b", "a", "b");
            assertThat(j.llen("l")).isEqualTo(4);
            assertThat(j.lindex("l", -1)).isEqualTo("b");
            assertThat(j.lset("l", 0, "X")).isEqualTo("OK");
            assertThat(j.lmove("l", "l2", ListDirection.LEFT, ListDirection.RIGHT)).isEqualTo("X");
            assertThat(j.lmove("l", "l2", ListDirection.RIGHT, ListDirection.LEFT)).isEqualTo("b");
            assertThat(j.lrange("l", 0, -1)).containsExactly("b", "a");
            assertThat(j.lrange("l2", 0, -1)).containsExactly("b", "X");
            assertThat(j.lmpop(ListDirection.LEFT, 5, "nosuch", "l2", "l"))
                    .isEqualTo(KeyValue.of("l2", List.of("b", "X")));
            assertThat(j.exists("l2")).as("a list emptied by LMPOP is deleted").isFalse();
            assertThat(j.lmpop(ListDirection.RIGHT, "nosuch", "l")).isEqualTo(KeyValue.of("l", List.of("a")));
            assertThat(j.lmpop(ListDirection.RIGHT, "nosuch", "nosuch2")).isNull();
            assertThat(j.lpop("l", 5)).containsExactly("b");
            assertThat(j.exists("l")).isFalse();
            assertThat(j.lpop("l")).isNull();
            assertThat(j.rpushx("l", "a")).isZero();
            assertThat(j.lpush("l", "only")).isEqualTo(1);
            assertThat(j.lpushx("l", "first")).isEqualTo(2);
            assertThat(j.lrange("l", 0, -1)).containsExactly("first", "only");
        }
    }

    // ----------------------------------------------------------------------------------------------- sets

    @Test
    void setsAddRemoveMembersInterUnionstorePopAndRandmember() {
        try (Jedis j = jedis()) {
            assertThat(j.sadd("s1", "a", "b", "c", "d")).isEqualTo(4);
            assertThat(j.sadd("s1", "a")).isZero();
            assertThat(j.srem("s1", "d", "nosuch")).isEqualTo(1);
            assertThat(j.smembers("s1")).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(j.sismember("s1", "b")).isTrue();
            assertThat(j.sismember("s1", "d")).isFalse();
            assertThat(j.smismember("s1", "a", "d")).containsExactly(true, false);
            assertThat(j.sadd("s2", "b", "c", "e")).isEqualTo(3);
            assertThat(j.sinter("s1", "s2")).containsExactlyInAnyOrder("b", "c");
            assertThat(j.sinter("s1", "nosuch")).isEmpty();
            assertThat(j.sunionstore("s3", "s1", "s2")).isEqualTo(4);
            assertThat(j.smembers("s3")).containsExactlyInAnyOrder("a", "b", "c", "e");
            assertThat(j.sdiff("s3", "s2")).containsExactlyInAnyOrder("a");
            assertThat(j.scard("s3")).isEqualTo(4);

            List<String> some = j.srandmember("s3", 2);
            assertThat(some).hasSize(2).doesNotHaveDuplicates().isSubsetOf("a", "b", "c", "e");
            assertThat(j.srandmember("s3", 10)).as("a count past the size: the whole set")
                    .containsExactlyInAnyOrder("a", "b", "c", "e");
            List<String> repeated = j.srandmember("s3", -10);
            assertThat(repeated).as("a negative count may repeat").hasSize(10).isSubsetOf("a", "b", "c", "e");
            assertThat(j.srandmember("s3")).isIn("a", "b", "c", "e");
            assertThat(j.scard("s3")).as("SRANDMEMBER removes nothing").isEqualTo(4);

            String popped = j.spop("s1");
            assertThat(popped).isIn("a", "b", "c");
            assertThat(j.sismember("s1", popped)).isFalse();
            assertThat(j.scard("s1")).isEqualTo(2);
            Set<String> rest = j.spop("s1", 5);
            assertThat(rest).hasSize(2).doesNotContain(popped).isSubsetOf("a", "b", "c");
            assertThat(j.exists("s1")).as("a set emptied by SPOP is deleted").isFalse();
            assertThat(j.spop("s1")).isNull();
        }
    }

    @Test
    void sscanIteratesAFewThousandMembersToTheEndAndSpopRemovesWhatItReturns() {
        int n = 3000;
        Set<String> all = new HashSet<>();
        try (Jedis j = jedis()) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < n; i += 100) {
                String[] batch = new String[100];
                for (int k = 0; k < 100; k++) {
                    batch[k] = "m:" + (i + k);
                    all.add(batch[k]);
                }
                p.sadd("bigset", batch);
            }
            p.sync();
            assertThat(j.scard("bigset")).isEqualTo(n);
            assertThat(j.objectEncoding("bigset")).isEqualTo("hashtable");

            Set<String> seen = new HashSet<>();
            int calls = scanSet(j, "bigset", new ScanParams().count(100), seen);
            assertThat(seen).as("SSCAN to cursor 0 returns every member").isEqualTo(all);
            assertThat(calls).as("in several calls").isGreaterThan(1);

            Set<String> matched = new HashSet<>();
            scanSet(j, "bigset", new ScanParams().match("m:1??").count(200), matched);
            Set<String> expected = new HashSet<>();
            for (int i = 100; i < 200; i++) {
                expected.add("m:" + i);
            }
            assertThat(matched).isEqualTo(expected);

            Set<String> popped = j.spop("bigset", 10);
            assertThat(popped).hasSize(10).isSubsetOf(all);
            assertThat(j.scard("bigset")).isEqualTo(n - 10);
            assertThat(j.smismember("bigset", popped.toArray(new String[0]))).containsOnly(false);
            Set<String> after = new HashSet<>();
            scanSet(j, "bigset", new ScanParams().count(500), after);
            Set<String> remaining = new HashSet<>(all);
            remaining.removeAll(popped);
            assertThat(after).isEqualTo(remaining);
        }
    }

    private static int scanSet(Jedis j, String key, ScanParams params, Set<String> into) {
        String cursor = ScanParams.SCAN_POINTER_START;
        int calls = 0;
        do {
            ScanResult<String> r = j.sscan(key, cursor, params);
            into.addAll(r.getResult());
            cursor = r.getCursor();
            calls++;
            assertThat(calls).as("SSCAN of %s ends", key).isLessThan(100_000);
        } while (!cursor.equals("0"));
        return calls;
    }

    // ---------------------------------------------------------------------------------------- sorted sets

    @Test
    void sortedSetsZaddOptionsZincrbyRangesRankPopAndWeightedUnion() {
        try (Jedis j = jedis()) {
            assertThat(j.zadd("z", Map.of("a", 1.0, "b", 2.0, "c", 3.0))).isEqualTo(3);
            assertThat(j.zadd("z", 5, "a", ZAddParams.zAddParams().xx().ch())).as("XX CH: changed").isEqualTo(1);
            assertThat(j.zscore("z", "a")).isEqualTo(5.0);
            assertThat(j.zadd("z", 0, "a", ZAddParams.zAddParams().nx())).as("NX on a member").isZero();
            assertThat(j.zscore("z", "a")).isEqualTo(5.0);
            assertThat(j.zadd("z", 10, "a", ZAddParams.zAddParams().gt().ch())).isEqualTo(1);
            assertThat(j.zadd("z", 7, "a", ZAddParams.zAddParams().gt().ch())).as("GT: lower ignored").isZero();
            assertThat(j.zadd("z", 4, "a", ZAddParams.zAddParams().lt().ch())).isEqualTo(1);
            assertThat(j.zscore("z", "a")).isEqualTo(4.0);
            assertThat(j.zadd("z", 100, "new", ZAddParams.zAddParams().xx())).isZero();
            assertThat(j.zscore("z", "new")).isNull();
            assertThat(j.zincrby("z", 2.5, "b")).isEqualTo(4.5);
            assertThat(j.zincrby("z", 1, "nosuch", ZIncrByParams.zIncrByParams().xx())).as("ZADD XX INCR").isNull();
            assertThat(j.zincrby("z", -1.5, "b", ZIncrByParams.zIncrByParams().xx())).isEqualTo(3.0);
            assertThat(j.zincrby("z", 1.5, "b")).isEqualTo(4.5);
            // z: c 3, a 4, b 4.5
            assertThat(j.zcard("z")).isEqualTo(3);
            assertThat(j.zrange("z", 0, -1)).containsExactly("c", "a", "b");
            assertThat(j.zrangeWithScores("z", 0, -1)).containsExactly(new Tuple("c", 3.0), new Tuple("a", 4.0),
                    new Tuple("b", 4.5));
            assertThat(j.zrevrange("z", 0, 0)).containsExactly("b");
            assertThat(j.zrank("z", "b")).isEqualTo(2);
            assertThat(j.zrank("z", "c")).isZero();
            assertThat(j.zrevrank("z", "c")).isEqualTo(2);
            assertThat(j.zrank("z", "nosuch")).isNull();
            // ZRANGE … BYSCORE / BYLEX / REV / LIMIT / WITHSCORES (the Redis 6.2 forms)
            assertThat(j.zrangeWithScores("z", new ZRangeParams(Protocol.Keyword.BYSCORE, "(3", "+inf").limit(0, 1)))
                    .containsExactly(new Tuple("a", 4.0));
            assertThat(j.zrange("z", new ZRangeParams(Protocol.Keyword.BYSCORE, "+inf", "-inf").rev()))
                    .containsExactly("b", "a", "c");
            assertThat(j.zrange("z", ZRangeParams.zrangeByScoreParams(3, 4))).containsExactly("c", "a");
            assertThat(j.zrangeWithScores("z", ZRangeParams.zrangeParams(0, 1).rev()))
                    .containsExactly(new Tuple("b", 4.5), new Tuple("a", 4.0));
            assertThat(j.zcount("z", "(3", "4.5")).isEqualTo(2);
            assertThat(j.zadd("lex", Map.of("a", 0.0, "b", 0.0, "c", 0.0, "d", 0.0, "e", 0.0))).isEqualTo(5);
            assertThat(j.zrange("lex", ZRangeParams.zrangeByLexParams("[b", "(e"))).containsExactly("b", "c", "d");
            assertThat(j.zrange("lex", ZRangeParams.zrangeByLexParams("+", "-").rev().limit(1, 2)))
                    .containsExactly("d", "c");
            assertThat(j.zrangeByLex("lex", "-", "[b")).containsExactly("a", "b");

            assertThat(j.zpopmin("z")).isEqualTo(new Tuple("c", 3.0));
            assertThat(j.zpopmin("z", 5)).containsExactly(new Tuple("a", 4.0), new Tuple("b", 4.5));
            assertThat(j.exists("z")).as("a sorted set emptied by ZPOPMIN is deleted").isFalse();
            assertThat(j.zpopmin("z")).isNull();
            assertThat(j.zpopmax("lex")).isEqualTo(new Tuple("e", 0.0));
            assertThat(j.zrem("lex", "a", "nosuch")).isEqualTo(1);

            j.zadd("u1", Map.of("x", 1.0, "y", 2.0));
            j.zadd("u2", Map.of("y", 10.0, "w", 3.0));
            assertThat(j.zunionstore("u", new ZParams().weights(2, 3), "u1", "u2")).isEqualTo(3);
            assertThat(j.zrangeWithScores("u", 0, -1)).containsExactly(new Tuple("x", 2.0), new Tuple("w", 9.0),
                    new Tuple("y", 34.0));
            assertThat(j.zunionstore("u", new ZParams().weights(2, 3).aggregate(ZParams.Aggregate.MAX), "u1", "u2"))
                    .isEqualTo(3);
            assertThat(j.zrangeWithScores("u", 0, -1)).containsExactly(new Tuple("x", 2.0), new Tuple("w", 9.0),
                    new Tuple("y", 30.0));
            assertThat(j.zinterstore("i", "u1", "u2")).isEqualTo(1);
            assertThat(j.zrangeWithScores("i", 0, -1)).containsExactly(new Tuple("y", 12.0));
        }
    }

    @Test
    void zscanIteratesASkiplistToTheEndWithEveryScore() {
        int n = 1500;
        Map<String, Double> all = new HashMap<>();
        try (Jedis j = jedis()) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < n; i += 100) {
                Map<String, Double> batch = new HashMap<>();
                for (int k = i; k < i + 100; k++) {
                    batch.put("member:" + k, k * 0.5 - 100);
                }
                all.putAll(batch);
                p.zadd("bigz", batch);
            }
            p.sync();
            assertThat(j.zcard("bigz")).isEqualTo(n);
            assertThat(j.objectEncoding("bigz")).isEqualTo("skiplist");
            Map<String, Double> seen = new HashMap<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            int calls = 0;
            do {
                ScanResult<Tuple> r = j.zscan("bigz", cursor, new ScanParams().count(50));
                for (Tuple t : r.getResult()) {
                    Double before = seen.put(t.getElement(), t.getScore());
                    assertThat(before == null || before == t.getScore()).as("member %s", t.getElement()).isTrue();
                }
                cursor = r.getCursor();
                calls++;
                assertThat(calls).as("ZSCAN ends").isLessThan(100_000);
            } while (!cursor.equals("0"));
            assertThat(seen).isEqualTo(all);
            assertThat(calls).isGreaterThan(1);
            assertThat(j.zrangeWithScores("bigz", 0, 1)).containsExactly(new Tuple("member:0", -100.0),
                    new Tuple("member:1", -99.5));
            assertThat(j.zrank("bigz", "member:1499")).isEqualTo(1499);
            // a small one comes back in one call, as a listpack
            j.zadd("smallz", Map.of("p", 1.0, "q", 2.5));
            assertThat(j.objectEncoding("smallz")).isEqualTo("listpack");
            ScanResult<Tuple> small = j.zscan("smallz", ScanParams.SCAN_POINTER_START);
            assertThat(small.getCursor()).isEqualTo("0");
            assertThat(small.getResult()).containsExactly(new Tuple("p", 1.0), new Tuple("q", 2.5));
        }
    }

    // ----------------------------------------------------------------------------- SORT, COPY, TYPE, OBJECT

    @Test
    void sortCopyTypeAndObjectEncoding() {
        try (Jedis j = jedis()) {
            j.rpush("nums", "3", "10", "1", "2");
            assertThat(j.sort("nums")).containsExactly("1", "2", "3", "10");
            assertThat(j.sort("nums", new SortingParams().desc().limit(0, 2))).containsExactly("10", "3");
            assertThat(j.sort("nums", new SortingParams().alpha())).containsExactly("1", "10", "2", "3");
            j.mset("weight_3", "1", "weight_10", "4", "weight_1", "3", "weight_2", "2",
                    "obj_3", "three", "obj_10", "ten", "obj_1", "one", "obj_2", "two");
            assertThat(j.sort("nums", new SortingParams().by("weight_*").get("obj_*", "#")))
                    .containsExactly("three", "3", "two", "2", "one", "1", "ten", "10");
            assertThat(j.sort("nums", new SortingParams().desc(), "sorted")).isEqualTo(4);
            assertThat(j.lrange("sorted", 0, -1)).containsExactly("10", "3", "2", "1");
            j.sadd("tags", "pear", "apple", "fig");
            assertThat(j.sort("tags", new SortingParams().alpha())).containsExactly("apple", "fig", "pear");
            j.zadd("ranked", Map.of("c", 1.0, "a", 2.0, "b", 3.0));
            assertThat(j.objectEncoding("ranked")).isEqualTo("listpack");
            assertThat(j.sort("ranked", new SortingParams().alpha().desc())).containsExactly("c", "b", "a");

            // COPY: a copy of its own, the source unchanged; REPLACE
            assertThat(j.copy("nums", "nums2", false)).isTrue();
            assertThat(j.rpush("nums2", "99")).isEqualTo(5);
            assertThat(j.lrange("nums", 0, -1)).containsExactly("3", "10", "1", "2");
            assertThat(j.copy("tags", "nums2", false)).as("the destination exists").isFalse();
            assertThat(j.copy("tags", "nums2", true)).isTrue();
            assertThat(j.type("nums2")).isEqualTo("set");
            assertThat(j.smembers("nums2")).containsExactlyInAnyOrder("pear", "apple", "fig");
            assertThat(j.copy("ranked", "ranked2", false)).isTrue();
            assertThat(j.zrangeWithScores("ranked2", 0, -1)).containsExactly(new Tuple("c", 1.0), new Tuple("a", 2.0),
                    new Tuple("b", 3.0));
            j.zincrby("ranked2", 10, "c");
            assertThat(j.zscore("ranked", "c")).isEqualTo(1.0);
            assertThat(j.zrange("ranked2", 0, -1)).containsExactly("a", "b", "c");
            assertThat(j.zcard("ranked2")).isEqualTo(3);

            assertThat(j.type("nums")).isEqualTo("list");
            assertThat(j.type("tags")).isEqualTo("set");
            assertThat(j.type("ranked")).isEqualTo("zset");
            assertThat(j.type("nosuch")).isEqualTo("none");
            assertThat(j.objectEncoding("nums")).isEqualTo("quicklist");
            j.sadd("ints", "3", "1", "2");
            assertThat(j.objectEncoding("ints")).isEqualTo("intset");
            assertThat(j.smembers("ints")).containsExactlyInAnyOrder("1", "2", "3");
            j.sadd("ints", "x");
            assertThat(j.objectEncoding("ints")).isEqualTo("hashtable");
            assertThat(j.objectEncoding("tags")).isEqualTo("hashtable");
            j.zadd("fresh", 1, "m");
            assertThat(j.objectEncoding("fresh")).isEqualTo("listpack");
            j.zadd("fresh", 1, "m".repeat(65));
            assertThat(j.objectEncoding("fresh")).as("a member past 64 bytes").isEqualTo("skiplist");
            assertThat(j.objectEncoding("nosuch")).isNull();
            // a command of another type on them
            assertThat(catchThrowable(() -> j.get("nums")))
                    .hasMessageStartingWith("WRONGTYPE");
            assertThat(catchThrowable(() -> j.sadd("ranked", "x")))
                    .hasMessageStartingWith("WRONGTYPE");
        }
    }

    // ------------------------------------------------------------------------------------------- blocking

    @Test
    void aConsumerBlockedInBlpopIsServedByALaterRpushFromAnotherConnection() throws Exception {
        try (Jedis control = jedis(); Jedis consumer = jedis()) {
            assertThat(blockedClients(control)).isZero();
            Future<KeyValue<String, String>> got = consumers.submit(() -> consumer.blpop(30.0, "bq:none", "bq:a"));
            awaitBlocked(control, 1);
            assertThat(got).isNotDone();
            assertThat(control.rpush("bq:a", "hello", "world")).isEqualTo(2);
            assertThat(result(got)).isEqualTo(KeyValue.of("bq:a", "hello"));
            assertThat(control.lrange("bq:a", 0, -1)).containsExactly("world");
            assertThat(blockedClients(control)).isZero();
            // the consumer's connection goes on as usual
            assertThat(consumer.brpop(1.0, "bq:a")).isEqualTo(KeyValue.of("bq:a", "world"));
            assertThat(consumer.exists("bq:a")).isFalse();
        }
    }

    @Test
    void threeConsumersBlockedOnOneKeyAreServedInTheOrderTheyBlocked() throws Exception {
        try (Jedis control = jedis(); Jedis c1 = jedis(); Jedis c2 = jedis(); Jedis c3 = jedis()) {
            List<Jedis> cs = List.of(c1, c2, c3);
            List<Future<KeyValue<String, String>>> got = new ArrayList<>();
            for (int i = 0; i < cs.size(); i++) {
                Jedis c = cs.get(i);
                c.clientSetname("fifo-" + (i + 1));
                got.add(consumers.submit(() -> c.blpop(30.0, "fifo")));
                awaitBlocked(control, i + 1);
            }
            assertThat(control.rpush("fifo", "first", "second", "third")).isEqualTo(3);
            assertThat(result(got.get(0))).as("the first to block").isEqualTo(KeyValue.of("fifo", "first"));
            assertThat(result(got.get(1))).as("the second to block").isEqualTo(KeyValue.of("fifo", "second"));
            assertThat(result(got.get(2))).as("the third to block").isEqualTo(KeyValue.of("fifo", "third"));
            assertThat(control.exists("fifo")).isFalse();
            assertThat(blockedClients(control)).isZero();
        }
    }

    /**
     * Redis 7.0.15 lists a client blocked in BLPOP as {@code flags=b … cmd=blpop}; Tandem's {@code cmd} (every
     * command the client sent counts, keyspace commands too) says {@code cmd=blpop} as well (its flags are Tandem's).
     */
    @Test
    void clientListShowsTheBlockingCommandOfABlockedClient() throws Exception {
        try (Jedis control = jedis(); Jedis consumer = jedis()) {
            consumer.clientSetname("blocked-one");
            Future<KeyValue<String, String>> got = consumers.submit(() -> consumer.blpop(30.0, "listed"));
            awaitBlocked(control, 1);
            try {
                assertThat(control.clientList()).as("CLIENT LIST while blocked in BLPOP (Redis: cmd=blpop)")
                        .containsPattern("name=blocked-one .*cmd=blpop");
            } finally {
                control.rpush("listed", "x");
                assertThat(result(got)).isEqualTo(KeyValue.of("listed", "x"));
            }
        }
    }

    /**
     * Redis 7.0.15 leaves a client blocked in BLPOP blocked when its key becomes a string (SET) or a set (SADD): it
     * is served by the list pushed after that key is deleted, or times out with nil. Tandem wakes it on any write to
     * the key and applies the BLPOP again in its woken form, which passes over a key of another type.
     */
    @Test
    void aBlockedClientStaysBlockedWhenItsKeyBecomesAnotherType() throws Exception {
        try (Jedis control = jedis(); Jedis consumer = jedis()) {
            Future<KeyValue<String, String>> got = consumers.submit(() -> consumer.blpop(30.0, "retyped"));
            awaitBlocked(control, 1);
            assertThat(control.set("retyped", "a string now")).isEqualTo("OK");
            assertThat(control.sadd("retyped:set", "m")).isEqualTo(1);
            assertThat(control.rename("retyped:set", "retyped")).isEqualTo("OK");
            assertThat(control.del("retyped")).isEqualTo(1);
            assertThat(control.rpush("retyped", "pushed")).isEqualTo(1);
            assertThat(result(got)).as("BLPOP of a key that was a string, then a set, then a list (Redis: served)")
                    .isEqualTo(KeyValue.of("retyped", "pushed"));
            assertThat(control.exists("retyped")).isFalse();
        }
    }

    @Test
    void brpoplpushAndBlmoveChainIntoABrpopOnTheDestination() throws Exception {
        try (Jedis control = jedis(); Jedis last = jedis(); Jedis middle = jedis(); Jedis first = jedis()) {
            // src --BRPOPLPUSH--> mid --BLMOVE LEFT RIGHT--> dst --BRPOP
            Future<KeyValue<String, String>> popped = consumers.submit(() -> last.brpop(30.0, "chain:dst"));
            awaitBlocked(control, 1);
            Future<String> moved = consumers.submit(() -> middle.blmove("chain:mid", "chain:dst", ListDirection.LEFT,
                    ListDirection.RIGHT, 30.0));
            awaitBlocked(control, 2);
            Future<String> pushed = consumers.submit(() -> first.brpoplpush("chain:src", "chain:mid", 30));
            awaitBlocked(control, 3);
            assertThat(control.lpush("chain:src", "token")).isEqualTo(1);
            assertThat(result(pushed)).isEqualTo("token");
            assertThat(result(moved)).isEqualTo("token");
            assertThat(result(popped)).isEqualTo(KeyValue.of("chain:dst", "token"));
            assertThat(control.exists("chain:src", "chain:mid", "chain:dst")).isZero();
            assertThat(blockedClients(control)).isZero();
        }
    }

    @Test
    void bzpopminIsServedByAZadd() throws Exception {
        try (Jedis control = jedis(); Jedis consumer = jedis()) {
            Future<KeyValue<String, Tuple>> got = consumers.submit(() -> consumer.bzpopmin(30.0, "bz:a", "bz:b"));
            awaitBlocked(control, 1);
            assertThat(control.zadd("bz:b", Map.of("high", 7.0, "low", -2.5))).isEqualTo(2);
            assertThat(result(got)).isEqualTo(KeyValue.of("bz:b", new Tuple("low", -2.5)));
            assertThat(control.zrangeWithScores("bz:b", 0, -1)).containsExactly(new Tuple("high", 7.0));
            // served at once when there is something: BZPOPMAX, BZMPOP, BLMPOP
            assertThat(consumer.bzpopmax(1.0, "bz:b")).isEqualTo(KeyValue.of("bz:b", new Tuple("high", 7.0)));
            control.zadd("bz:c", Map.of("x", 1.0, "y", 2.0, "z", 3.0));
            assertThat(consumer.bzmpop(1.0, SortedSetOption.MAX, 2, "bz:a", "bz:c"))
                    .isEqualTo(KeyValue.of("bz:c", List.of(new Tuple("z", 3.0), new Tuple("y", 2.0))));
            control.rpush("bl:m", "1", "2", "3");
            assertThat(consumer.blmpop(1.0, ListDirection.RIGHT, 2, "bl:none", "bl:m"))
                    .isEqualTo(KeyValue.of("bl:m", List.of("3", "2")));
            // BZMPOP blocked, served by a ZADD to the second of its keys
            Future<KeyValue<String, List<Tuple>>> many = consumers.submit(
                    () -> consumer.bzmpop(30.0, SortedSetOption.MIN, 5, "bz:d", "bz:e"));
            awaitBlocked(control, 1);
            control.zadd("bz:e", Map.of("p", 2.0, "q", 1.0));
            assertThat(result(many)).isEqualTo(KeyValue.of("bz:e", List.of(new Tuple("q", 1.0), new Tuple("p", 2.0))));
            assertThat(control.exists("bz:e")).isFalse();
        }
    }

    @Test
    void aBlpopWithATimeoutAnswersNilAfterTheTimeout() throws Exception {
        try (Jedis j = jedis()) {
            long started = System.nanoTime();
            KeyValue<String, String> got = j.blpop(0.2, "timeout:none");
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(got).isNull();
            assertThat(elapsedMs).as("answered after the timeout").isGreaterThanOrEqualTo(200);
            started = System.nanoTime();
            assertThat(j.bzpopmin(0.3, "timeout:none")).isNull();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(300);
            assertThat(j.ping()).isEqualTo("PONG");
            assertThat(blockedClients(j)).isZero();
        }
    }

    @Test
    void aBlockedClientThatDisconnectsIsNotServed() throws Exception {
        try (Jedis control = jedis()) {
            int connected = Integer.parseInt(TandemNode.infoField(control.info("clients"), "connected_clients"));
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", NODE.get().port()), 2000);
                s.getOutputStream().write("BLPOP gone 30\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                awaitBlocked(control, 1);
            }
            Await.until("the disconnected client is gone", BLOCK_DEADLINE,
                    () -> blockedClients(control) == 0 && Integer.parseInt(TandemNode.infoField(
                            control.info("clients"), "connected_clients")) == connected);
            assertThat(control.rpush("gone", "kept")).isEqualTo(1);
            assertThat(control.lrange("gone", 0, -1)).as("nobody took it").containsExactly("kept");
            assertThat(control.rpush("gone", "more")).isEqualTo(2);
            assertThat(control.lrange("gone", 0, -1)).containsExactly("kept", "more");
        }
    }

    @Test
    void blpopInsideMultiAnswersNilAtOnce() throws Exception {
        // a read timeout of 10 s: were the BLPOP (timeout 0: for good) to block, EXEC would never be answered
        try (Jedis j = new Jedis("127.0.0.1", NODE.get().port(), 5000, 10_000)) {
            Transaction t = j.multi();
            Response<List<String>> blocked = t.blpop(0, "multi:empty");
            Response<Long> pushed = t.rpush("multi:other", "x");
            Response<KeyValue<String, Tuple>> zblocked = t.bzpopmin(0.0, "multi:emptyz");
            List<Object> replies = t.exec();
            assertThat(replies).hasSize(3);
            assertThat(blocked.get()).isNull();
            assertThat(pushed.get()).isEqualTo(1);
            assertThat(zblocked.get()).isNull();
            // inside MULTI a BLPOP whose list has something is served as LPOP
            t = j.multi();
            Response<List<String>> served = t.blpop(0, "multi:other");
            t.exec();
            assertThat(served.get()).containsExactly("multi:other", "x");
            assertThat(blockedClients(j)).isZero();
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }
}
