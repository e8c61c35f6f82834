package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import tandem.testsupport.Await;

/**
 * Scripts replicated by their effects (issue 32), with real processes: a primary ({@code disk}) with a
 * journal-protocol replica and a psync replica. Concurrent Jedis clients run a distributed lock (Redisson's own
 * lock and unlock scripts, then Redisson itself), a job queue in the style of BullMQ (add, take, complete, each one script), and scripts
 * that cannot be replayed the same way twice: they read {@code TIME}, draw {@code math.random}, pop a random set
 * member and copy a set in its iteration order. Both replicas then hold the primary's {@code store:digest}; the
 * lock never had two holders; no job was lost or taken twice. Then a {@code kill -9} of the primary under
 * acknowledged script writes loses none of them. One cluster for the class; the tests run in order.
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScriptReplicationSystemTest {

    private static final Duration CONVERGENCE = Duration.ofSeconds(60);

    /** Redisson 3.x {@code RedissonLock.tryLockInnerAsync}: nil when taken, else the holder's remaining TTL. */
    static final String LOCK = """
            if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then \
            redis.call('hincrby', KEYS[1], ARGV[2], 1); \
            redis.call('pexpire', KEYS[1], ARGV[1]); \
            return nil; \
            end; \
            return redis.call('pttl', KEYS[1]);""";

    /** Redisson 3.x {@code RedissonLock.unlockInnerAsync}: releases, and publishes to the lock's channel. */
    static final String UNLOCK = """
            if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then \
            return nil;\
            end; \
            local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); \
            if (counter > 0) then \
            redis.call('pexpire', KEYS[1], ARGV[2]); \
            return 0; \
            else \
            redis.call('del', KEYS[1]); \
            redis.call('publish', KEYS[2], ARGV[1]); \
            return 1; \
            end; \
            return nil;""";

    /** A queue in BullMQ's manner: a job id from a counter, the job as a hash, its id in the wait list. */
    static final String ADD_JOB = """
            local id = redis.call('incr', KEYS[1])
            local key = KEYS[2] .. id
            redis.call('hset', key, 'data', ARGV[1], 'timestamp', ARGV[2], 'attempts', 0)
            redis.call('lpush', KEYS[3], id)
            redis.call('publish', KEYS[4], 'added:' .. id)
            return id""";

    /** Takes the oldest waiting job: moves it to active and stamps it with the script's time. */
    static final String TAKE_JOB = """
            local id = redis.call('rpoplpush', KEYS[1], KEYS[2])
            if not id then return false end
            local t = redis.call('time')
            redis.call('hset', KEYS[3] .. id, 'processedOn', t[1] * 1000 + math.floor(t[2] / 1000), 'worker', ARGV[1])
            redis.call('hincrby', KEYS[3] .. id, 'attempts', 1)
            return id""";

    /** Completes a job: out of active, into the completed sorted set scored by the script's time. */
    static final String COMPLETE_JOB = """
            local removed = redis.call('lrem', KEYS[1], 1, ARGV[1])
            if removed == 0 then return redis.error_reply('ERR job ' .. ARGV[1] .. ' is not active') end
            local t = redis.call('time')
            redis.call('zadd', KEYS[2], t[1] .. '.' .. t[2], ARGV[1])
            redis.call('hset', KEYS[3] .. ARGV[1], 'finishedOn', t[1], 'returnvalue', ARGV[2])
            return 1""";

    /** What a replayed script would redo differently: the time, random numbers, a random pop, a set's order. */
    static final String NONDETERMINISTIC = """
            local t = redis.call('time')
            redis.call('set', KEYS[1], t[1] .. '.' .. t[2] .. ':' .. math.random() .. ':' .. math.random(1000))
            redis.call('sadd', KEYS[2], ARGV[1], ARGV[2], ARGV[3])
            local popped = redis.call('spop', KEYS[2])
            if popped then redis.call('rpush', KEYS[3], popped) end
            redis.call('del', KEYS[4])
            for _, m in ipairs(redis.call('smembers', KEYS[2])) do redis.call('rpush', KEYS[4], m) end
            return #redis.call('lrange', KEYS[4], 0, -1)""";

    private static JournalCluster cluster;
    private static TandemNode journalReplica;
    private static TandemNode psyncReplica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("script-repl", "disk");
        journalReplica = cluster.addReplica(true);
        psyncReplica = JournalCluster.psyncReplicaOf(cluster.primary, "script-repl-psync");
    }

    @AfterAll
    static void stop() {
        if (psyncReplica != null) {
            psyncReplica.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Jedis primary() {
        return new Jedis("127.0.0.1", cluster.primary.port(), 5000, 60_000);
    }

    @Test
    @Order(1)
    void lockQueueAndNondeterministicScriptsLeaveTheReplicasWithThePrimarysState() throws Exception {
        int workers = 4;
        int rounds = 100;
        List<CompletableFuture<long[]>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int id = w;
            running.add(CompletableFuture.supplyAsync(() -> work(id, rounds)));
        }
        long locked = 0;
        long completed = 0;
        for (CompletableFuture<long[]> f : running) {
            long[] counts = f.get(180, TimeUnit.SECONDS);
            locked += counts[0];
            completed += counts[1];
        }
        try (Jedis j = primary()) {
            // the lock had one holder at a time: every holder's unguarded read-increment-write counted
            assertThat(Long.parseLong(j.get("guarded"))).isEqualTo(locked);
            assertThat(j.exists("lock")).isFalse();
            // every job added was taken once and completed once
            assertThat(j.zcard("q:completed")).isEqualTo(completed);
            assertThat(Long.parseLong(j.get("q:id"))).isEqualTo((long) workers * rounds);
            assertThat(j.llen("q:wait") + j.llen("q:active") + completed).isEqualTo((long) workers * rounds);
            for (String job : j.zrange("q:completed", 0, -1)) {
                assertThat(j.hget("q:job:" + job, "attempts")).as("job %s", job).isEqualTo("1");
            }
        }
        awaitSameDigest(journalReplica, psyncReplica);
        try (Jedis p = primary(); Jedis r = new Jedis("127.0.0.1", psyncReplica.port(), 5000, 30_000)) {
            // the values a replay would redo differently are the primary's on the replica
            assertThat(r.get("nd:0")).isEqualTo(p.get("nd:0"));
            assertThat(r.lrange("nd:order:1", 0, -1)).isEqualTo(p.lrange("nd:order:1", 0, -1));
            assertThat(r.hgetAll("q:job:1")).isEqualTo(p.hgetAll("q:job:1"));
        }
    }

    /** One client's rounds: lock, add a job, take one, complete it, run the nondeterministic script. */
    private static long[] work(int id, int rounds) {
        Random random = new Random(id);
        long locked = 0;
        long completed = 0;
        String owner = "owner-" + id + ":1";
        try (Jedis j = primary()) {
            String lock = j.scriptLoad(LOCK);
            for (int n = 0; n < rounds; n++) {
                Object pttl = j.evalsha(lock, List.of("lock"), List.of("30000", owner));
                if (pttl == null) {
                    // held: a read-increment-write that two holders at once would lose counts from
                    long v = j.get("guarded") == null ? 0 : Long.parseLong(j.get("guarded"));
                    j.set("guarded", Long.toString(v + 1));
                    locked++;
                    Object released = j.eval(UNLOCK, List.of("lock", "redisson_lock__channel:{lock}"),
                            List.of("0", "30000", owner));
                    assertThat(released).isEqualTo(1L);
                }
                j.eval(ADD_JOB, List.of("q:id", "q:job:", "q:wait", "q:events"),
                        List.of("payload-" + id + "-" + n, Long.toString(System.currentTimeMillis())));
                Object job = j.eval(TAKE_JOB, List.of("q:wait", "q:active", "q:job:"), List.of("w" + id));
                if (job != null) {
                    j.eval(COMPLETE_JOB, List.of("q:active", "q:completed", "q:job:"), List.of(job.toString(), "ok"));
                    completed++;
                }
                int k = random.nextInt(3);
                j.eval(NONDETERMINISTIC, List.of("nd:" + k, "nd:set:" + k, "nd:popped:" + k, "nd:order:" + k),
                        List.of("m" + random.nextInt(50), "m" + random.nextInt(50), "m" + random.nextInt(50)));
            }
        }
        return new long[] {locked, completed};
    }

    @Test
    @Order(2)
    void aRedissonLockHasOneHolderAtATime() throws Exception {
        org.redisson.config.Config config = new org.redisson.config.Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + cluster.primary.port())
                .setConnectionMinimumIdleSize(2).setConnectionPoolSize(8)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4);
        config.setThreads(2).setNettyThreads(4);
        org.redisson.api.RedissonClient redisson = org.redisson.Redisson.create(config);
        try {
            int holders = 4;
            int each = 25;
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int h = 0; h < holders; h++) {
                running.add(CompletableFuture.runAsync(() -> {
                    org.redisson.api.RLock lock = redisson.getLock("redisson:lock");
                    org.redisson.api.RBucket<String> guarded = redisson.getBucket("redisson:guarded",
                            org.redisson.client.codec.StringCodec.INSTANCE);
                    for (int n = 0; n < each; n++) {
                        lock.lock(30, TimeUnit.SECONDS); // waits on the lock's channel for the holder's unlock
                        try {
                            String v = guarded.get();
                            guarded.set(Long.toString(v == null ? 1 : Long.parseLong(v) + 1));
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
            }
            for (CompletableFuture<Void> f : running) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertThat(redisson.getBucket("redisson:guarded", org.redisson.client.codec.StringCodec.INSTANCE)
                    .get()).isEqualTo(Integer.toString(holders * each));
            assertThat(redisson.getLock("redisson:lock").isLocked()).isFalse();
        } finally {
            redisson.shutdown(0, 5, TimeUnit.SECONDS);
        }
        awaitSameDigest(journalReplica, psyncReplica);
    }

    @Test
    @Order(3)
    void scriptsAnswerAsRedisDoesOverTheWire() {
        try (Jedis j = primary(); Jedis r = new Jedis("127.0.0.1", psyncReplica.port(), 5000, 30_000)) {
            String sha = j.scriptLoad("return redis.call('get', KEYS[1])");
            j.set("wire", "v");
            assertThat(j.evalsha(sha, List.of("wire"), List.of())).isEqualTo("v");
            assertThat(j.scriptExists(sha, "0000000000000000000000000000000000000000")).containsExactly(true, false);
            Throwable missing = catchThrowable(() -> j.evalsha("0000000000000000000000000000000000000000", 0));
            assertThat(missing).isInstanceOf(JedisDataException.class)
                    .hasMessage("NOSCRIPT No matching script. Please use EVAL.");
            Throwable failed = catchThrowable(() -> j.eval("return redis.call('incr', KEYS[1])", 1, "wire"));
            assertThat(failed).hasMessageStartingWith("ERR value is not an integer or out of range script: ");
            // a replica runs scripts that read, and refuses their writes as Redis's replicas do
            Await.until("the replica has the write", CONVERGENCE, () -> "v".equals(r.get("wire")));
            assertThat(r.eval("return redis.call('get', KEYS[1])", 1, "wire")).isEqualTo("v");
            Throwable readonly = catchThrowable(() -> r.eval("return redis.call('set', KEYS[1], 'x')", 1, "wire"));
            assertThat(readonly).hasMessageStartingWith("READONLY You can't write against a read only replica.");
            // a script inside MULTI journals with the transaction as one entry
            redis.clients.jedis.Transaction t = j.multi();
            t.set("tx:a", "1");
            t.eval("return redis.call('incrby', KEYS[1], 41)", 1, "tx:a");
            assertThat(t.exec()).containsExactly("OK", 42L);
        }
        awaitSameDigest(journalReplica, psyncReplica);
    }

    @Test
    @Order(4)
    void aScriptPastTheBusyThresholdMakesOthersBusyAndScriptKillTakesBackItsWrites() throws Exception {
        try (Jedis admin = primary()) {
            assertThat(admin.configSet("busy-reply-threshold", "300")).isEqualTo("OK");
        }
        try {
            // it writes, then loops: Redis could not kill it (UNKILLABLE); Tandem takes its write back
            CompletableFuture<Throwable> looping = CompletableFuture.supplyAsync(() -> {
                try (Jedis j = primary()) {
                    return catchThrowable(() -> j.eval(
                            "redis.call('set', KEYS[1], 'written') local x = 0 while true do x = x + 1 end", 1,
                            "busy:written"));
                }
            });
            assertThat(busyReply()).isEqualTo("BUSY Redis is busy running a script. You can only call SCRIPT KILL "
                    + "or SHUTDOWN NOSAVE.");
            try (Jedis killer = primary()) {
                assertThat(killer.scriptKill()).isEqualTo("OK");
            }
            Throwable killed = looping.get(30, TimeUnit.SECONDS);
            assertThat(killed).isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR Script killed by user with SCRIPT KILL... script: ");
            try (Jedis j = primary()) {
                assertThat(j.get("busy:written")).isNull();
                assertThat(j.ping()).isEqualTo("PONG");
                Throwable none = catchThrowable(j::scriptKill);
                assertThat(none).hasMessage("NOTBUSY No scripts in execution right now.");
            }
        } finally {
            try (Jedis admin = primary()) {
                admin.configSet("busy-reply-threshold", "5000");
            }
        }
        awaitSameDigest(journalReplica, psyncReplica);
    }

    private static final String LIBRARY = """
            #!lua name=ledger
            redis.register_function('credit', function(keys, args)
              redis.call('rpush', keys[2], args[1])
              return redis.call('incrby', keys[1], args[1])
            end)
            redis.register_function{function_name='balance', flags={'no-writes'},
              callback=function(keys) return redis.call('get', keys[1]) end}
            redis.register_function{function_name='spin', flags={'no-writes'},
              callback=function() local x = 0 while true do x = x + 1 end end}""";

    @Test
    @Order(5)
    void functionsAreDataThatReplicasAndAFullSyncCarry() throws Exception {
        try (Jedis j = primary()) {
            assertThat(j.functionLoad(LIBRARY)).isEqualTo("ledger");
            Throwable again = catchThrowable(() -> j.functionLoad(LIBRARY));
            assertThat(again).hasMessage("ERR Library 'ledger' already exists");
        }
        int workers = 3;
        int rounds = 60;
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            running.add(CompletableFuture.runAsync(() -> {
                try (Jedis j = primary()) {
                    for (int i = 1; i <= rounds; i++) {
                        j.fcall("credit", List.of("fn:total", "fn:log"), List.of(Integer.toString(i)));
                    }
                }
            }));
        }
        CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        long total = (long) workers * rounds * (rounds + 1) / 2;
        byte[] dump;
        try (Jedis j = primary()) {
            assertThat(j.fcallReadonly("balance", List.of("fn:total"), List.of())).isEqualTo(Long.toString(total));
            dump = j.functionDump();
        }
        awaitSameDigest(journalReplica, psyncReplica);
        // a replica runs a function that only reads, and refuses one that may write before it runs
        for (TandemNode replica : List.of(journalReplica, psyncReplica)) {
            try (Jedis r = new Jedis("127.0.0.1", replica.port(), 5000, 30_000)) {
                assertThat(r.functionDump()).isEqualTo(dump);
                assertThat(r.fcallReadonly("balance", List.of("fn:total"), List.of())).isEqualTo(Long.toString(total));
                Throwable refused = catchThrowable(() -> r.fcall("credit", List.of("fn:total", "fn:log"),
                        List.of("1")));
                assertThat(refused).hasMessage("READONLY Can not run script with write flag on readonly replica");
            }
        }
        // a replica that joins now (in the psync replica's place: a primary serves two) gets them with its full sync
        psyncReplica.close();
        psyncReplica = JournalCluster.psyncReplicaOf(cluster.primary, "script-repl-late");
        try (Jedis r = new Jedis("127.0.0.1", psyncReplica.port(), 5000, 30_000)) {
            Await.until("the new replica has the data", CONVERGENCE,
                    () -> Long.toString(total).equals(r.get("fn:total")));
            assertThat(r.functionDump()).isEqualTo(dump);
        }
        // a function past the threshold: others are BUSY with FUNCTION KILL's words, which alone stops it
        try (Jedis admin = primary()) {
            assertThat(admin.configSet("busy-reply-threshold", "300")).isEqualTo("OK");
        }
        try {
            CompletableFuture<Throwable> spinning = CompletableFuture.supplyAsync(() -> {
                try (Jedis j = primary()) {
                    return catchThrowable(() -> j.fcall("spin", List.of(), List.of()));
                }
            });
            assertThat(busyReply()).isEqualTo("BUSY Redis is busy running a script. You can only call FUNCTION "
                    + "KILL or SHUTDOWN NOSAVE.");
            try (Jedis killer = primary()) {
                assertThat(catchThrowable(killer::scriptKill)).hasMessage("BUSY Redis is busy running a script. You "
                        + "can only call FUNCTION KILL or SHUTDOWN NOSAVE.");
                assertThat(killer.functionKill()).isEqualTo("OK");
            }
            assertThat(spinning.get(30, TimeUnit.SECONDS)).isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR Script killed by user with SCRIPT KILL... script: spin, on "
                            + "@user_function:");
        } finally {
            try (Jedis admin = primary()) {
                admin.configSet("busy-reply-threshold", "5000");
            }
        }
    }

    @Test
    @Order(6)
    void aKilledPrimaryLosesNoAcknowledgedScriptWrite() throws Exception {
        AtomicLong acknowledged = new AtomicLong();
        AtomicReference<Throwable> stopped = new AtomicReference<>();
        String append = "redis.call('rpush', KEYS[1], ARGV[1]) return redis.call('incr', KEYS[2])";
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (Jedis j = primary()) {
                for (long n = 1; ; n++) {
                    Object v = j.eval(append, List.of("crash:log", "crash:count"), List.of(Long.toString(n)));
                    assertThat(v).isEqualTo(n);
                    acknowledged.set(n);
                }
            } catch (RuntimeException e) {
                stopped.set(e); // the connection died with the primary
            }
        });
        Await.until("200 acknowledged script writes", Duration.ofSeconds(60), () -> acknowledged.get() >= 200);
        cluster.primary.kill();
        writer.get(30, TimeUnit.SECONDS);
        long acked = acknowledged.get();
        cluster.primary.restart();
        try (Jedis j = primary()) {
            // the libraries are records of the store: back with it, as they were
            assertThat(j.fcallReadonly("balance", List.of("fn:total"), List.of())).isNotNull();
            assertThat(j.functionList()).hasSize(1);
            long count = Long.parseLong(j.get("crash:count"));
            assertThat(count).isGreaterThanOrEqualTo(acked);
            List<String> log = j.lrange("crash:log", 0, -1);
            assertThat(log).hasSize((int) count);
            for (int i = 0; i < count; i++) {
                assertThat(log.get(i)).isEqualTo(Long.toString(i + 1));
            }
        }
        assertThat(stopped.get()).isNotNull();
        awaitSameDigest(journalReplica, psyncReplica);
    }

    /** Pings the primary until it answers BUSY (a script runs past the threshold), and returns that reply. */
    private static String busyReply() {
        AtomicReference<String> seen = new AtomicReference<>();
        Await.until("another client is answered BUSY", Duration.ofSeconds(30), () -> {
            // a new connection each time: a PING sent before the threshold waits behind the script
            try (Jedis other = new Jedis("127.0.0.1", cluster.primary.port(), 1000, 1000)) {
                other.ping();
                return false;
            } catch (JedisDataException e) {
                seen.set(e.getMessage());
                return e.getMessage().startsWith("BUSY");
            } catch (redis.clients.jedis.exceptions.JedisConnectionException waitedBehindTheScript) {
                return false;
            }
        });
        return seen.get();
    }

    /** Waits until every replica holds the primary's digest, the primary's read again after theirs. */
    private static void awaitSameDigest(TandemNode... replicas) {
        JournalCluster.awaitSameDigest(cluster.primary, CONVERGENCE, replicas);
    }
}
