package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAutoClaimParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntry;

import tandem.testsupport.Await;

/**
 * Streams with real processes: a primary ({@code disk}) with a journal-protocol replica and a psync replica. A
 * producer adds entries with {@code *} IDs while two consumers of one group read them with {@code XREADGROUP …
 * BLOCK} and acknowledge them; one consumer's connection is closed while it holds entries it read and never
 * acknowledged, and parked in a blocking read; the other claims them with {@code XAUTOCLAIM} and acknowledges them.
 * Meanwhile readers parked in {@code XREAD … BLOCK} on the primary and on the journal replica follow the stream. In
 * the end every entry produced was acknowledged exactly once, and both replicas hold the primary's
 * {@code store:digest}: the IDs {@code *} made, the deliveries and the claims were derived alike from the entries'
 * timestamps. Then a {@code kill -9} of the primary under XADD writers loses no acknowledged entry. One cluster for
 * the class; the tests run in order.
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StreamConsumerGroupSystemTest {

    private static final Duration CONVERGENCE = Duration.ofSeconds(60);
    private static final String STREAM = "orders";
    private static final String GROUP = "workers";

    private static JournalCluster cluster;
    private static TandemNode journalReplica;
    private static TandemNode psyncReplica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("stream-groups", "disk");
        journalReplica = cluster.addReplica(true);
        psyncReplica = JournalCluster.psyncReplicaOf(cluster.primary, "stream-groups-psync");
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

    private static Jedis jedis(TandemNode node) {
        return new Jedis("127.0.0.1", node.port(), 5000, 60_000);
    }

    /** Reads with {@code XREAD … BLOCK} from {@code node} until it has seen {@code total} entries. */
    private static CompletableFuture<List<StreamEntryID>> follower(TandemNode node, int total) {
        return CompletableFuture.supplyAsync(() -> {
            List<StreamEntryID> seen = new ArrayList<>();
            try (Jedis j = jedis(node)) {
                StreamEntryID after = new StreamEntryID(0, 0);
                while (seen.size() < total) {
                    var got = j.xread(XReadParams.xReadParams().block(5000).count(50), Map.of(STREAM, after));
                    if (got == null) {
                        continue; // the timeout passed: a nil array, as from Redis
                    }
                    for (StreamEntry e : got.get(0).getValue()) {
                        seen.add(e.getID());
                        after = e.getID();
                    }
                }
            }
            return seen;
        });
    }

    @Test
    @Order(1)
    void twoConsumersOneLostMidWayEveryEntryAcknowledgedOnceAndTheReplicasConverge() throws Exception {
        int total = 600;
        try (Jedis admin = jedis(cluster.primary)) {
            assertThat(admin.xgroupCreate(STREAM, GROUP, StreamEntryID.XGROUP_LAST_ENTRY, true)).isEqualTo("OK");
            // a stream nothing is added to: a consumer parks there for good
            assertThat(admin.xgroupCreate("idle", GROUP, StreamEntryID.XGROUP_LAST_ENTRY, true)).isEqualTo("OK");
        }
        Await.until("the replicas have the group", CONVERGENCE, () -> {
            try (Jedis j = jedis(journalReplica); Jedis p = jedis(psyncReplica)) {
                return j.exists(STREAM) && p.exists(STREAM);
            }
        });
        CompletableFuture<List<StreamEntryID>> onPrimary = follower(cluster.primary, total);
        CompletableFuture<List<StreamEntryID>> onReplica = follower(journalReplica, total);

        List<StreamEntryID> produced = new CopyOnWriteArrayList<>();
        Set<StreamEntryID> acked = ConcurrentHashMap.newKeySet();
        AtomicLong ackCount = new AtomicLong();
        AtomicBoolean producing = new AtomicBoolean(true);
        List<StreamEntryID> heldByBob = new CopyOnWriteArrayList<>();
        AtomicReference<Jedis> bobConnection = new AtomicReference<>();
        AtomicBoolean bobParked = new AtomicBoolean();

        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            try (Jedis j = jedis(cluster.primary)) {
                for (int i = 1; i <= total; i++) {
                    produced.add(j.xadd(STREAM, StreamEntryID.NEW_ENTRY, Map.of("n", Integer.toString(i))));
                }
            } finally {
                producing.set(false);
            }
        });
        CompletableFuture<Void> alice = CompletableFuture.runAsync(() -> {
            try (Jedis j = jedis(cluster.primary)) {
                int idle = 0;
                while (producing.get() || idle < 2) {
                    var got = j.xreadGroup(GROUP, "alice", XReadGroupParams.xReadGroupParams().count(20).block(500),
                            Map.of(STREAM, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
                    if (got == null) {
                        idle++;
                        continue;
                    }
                    idle = 0;
                    for (StreamEntry e : got.get(0).getValue()) {
                        ack(j, e.getID(), acked, ackCount);
                    }
                }
            }
        });
        CompletableFuture<Void> bob = CompletableFuture.runAsync(() -> {
            Jedis j = jedis(cluster.primary);
            bobConnection.set(j);
            int read = 0;
            try {
                j.clientSetname("bob");
                while (read < 60) {
                    var got = j.xreadGroup(GROUP, "bob", XReadGroupParams.xReadGroupParams().count(10).block(2000),
                            Map.of(STREAM, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
                    if (got == null) {
                        continue;
                    }
                    for (StreamEntry e : got.get(0).getValue()) {
                        read++;
                        if (read <= 30) {
                            ack(j, e.getID(), acked, ackCount);
                        } else {
                            heldByBob.add(e.getID()); // read, never acknowledged
                        }
                    }
                }
                j.ping();
                bobParked.set(true);
                // parked for good, until its connection goes
                j.xreadGroup(GROUP, "bob", XReadGroupParams.xReadGroupParams().block(0),
                        Map.of("idle", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            } catch (RuntimeException lost) {
                // its connection was closed under it
            }
        });
        Await.until("bob holds unacknowledged entries and is parked", CONVERGENCE, bobParked::get);
        Await.until("bob's blocking read reached the node", Duration.ofSeconds(10), () -> {
            try (Jedis j = jedis(cluster.primary)) {
                return j.clientList().lines().anyMatch(l -> l.contains(" name=bob ") && l.contains(" cmd=xreadgroup "));
            }
        });
        bobConnection.get().getConnection().disconnect(); // the consumer dies mid-way
        bob.get(30, TimeUnit.SECONDS);
        producer.get(120, TimeUnit.SECONDS);
        alice.get(120, TimeUnit.SECONDS);
        assertThat(heldByBob).isNotEmpty();

        try (Jedis j = jedis(cluster.primary)) {
            assertThat(j.xpending(STREAM, GROUP).getTotal()).isEqualTo(heldByBob.size());
            // alice claims what bob held, whatever its idle time, a page at a time, and acknowledges it
            List<StreamEntryID> claimed = new ArrayList<>();
            StreamEntryID cursor = new StreamEntryID(0, 0);
            do {
                var page = j.xautoclaim(STREAM, GROUP, "alice", 0, cursor, XAutoClaimParams.xAutoClaimParams().count(7));
                page.getValue().forEach(e -> claimed.add(e.getID()));
                cursor = page.getKey();
            } while (!cursor.equals(new StreamEntryID(0, 0)));
            assertThat(claimed).containsExactlyElementsOf(heldByBob);
            for (var p : j.xpending(STREAM, GROUP, redis.clients.jedis.params.XPendingParams.xPendingParams()
                    .count(1000))) {
                assertThat(p.getConsumerName()).isEqualTo("alice");
                assertThat(p.getDeliveredTimes()).as("delivered to bob, then claimed").isEqualTo(2);
            }
            for (StreamEntryID id : claimed) {
                ack(j, id, acked, ackCount);
            }
            assertThat(j.xpending(STREAM, GROUP).getTotal()).isZero();
            assertThat(j.xlen(STREAM)).isEqualTo(total);
        }
        assertThat(ackCount.get()).as("each entry acknowledged exactly once").isEqualTo(total);
        assertThat(acked).containsExactlyInAnyOrderElementsOf(produced);
        assertThat(onPrimary.get(60, TimeUnit.SECONDS)).containsExactlyElementsOf(produced);
        assertThat(onReplica.get(60, TimeUnit.SECONDS)).containsExactlyElementsOf(produced);
        awaitSameDigest(journalReplica, psyncReplica);
        try (Jedis p = jedis(psyncReplica)) {
            assertThat(p.xinfoGroups(STREAM).get(0).getPending()).isZero();
            assertThat(p.xrange(STREAM, "-", "+").stream().map(StreamEntry::getID).toList())
                    .containsExactlyElementsOf(produced);
        }
    }

    /** XACK of one ID: counted only when it acknowledged something, so a second acknowledgement would show. */
    private static void ack(Jedis j, StreamEntryID id, Set<StreamEntryID> acked, AtomicLong count) {
        long n = j.xack(STREAM, GROUP, id);
        if (n == 1) {
            count.incrementAndGet();
            assertThat(acked.add(id)).as("%s acknowledged twice", id).isTrue();
        }
    }

    @Test
    @Order(2)
    void blockedReadersAreServedOrAnsweredAsRedisServesThem() throws Exception {
        try (Jedis admin = jedis(cluster.primary)) {
            admin.xadd("b:s", new StreamEntryID(1, 0), Map.of("a", "1"));
            // XREAD $ means the last ID when the command arrived: only what comes after it
            CompletableFuture<List<Object>> dollar = CompletableFuture.supplyAsync(() -> {
                try (Jedis j = jedis(cluster.primary)) {
                    j.clientSetname("dollar");
                    return j.xread(redis.clients.jedis.params.XReadParams.xReadParams().block(0),
                            new java.util.AbstractMap.SimpleEntry<>("b:s".getBytes(), "$".getBytes()));
                }
            });
            awaitReceived("dollar", "xread");
            admin.xadd("b:s", new StreamEntryID(2, 0), Map.of("b", "2"));
            assertThat(render(dollar.get(30, TimeUnit.SECONDS))).isEqualTo("[[b:s, [[2-0, [b, 2]]]]]");

            // a group destroyed under a blocked XREADGROUP: NOGROUP; a stream deleted under one: UNBLOCKED
            admin.xgroupCreate("b:s", "g", StreamEntryID.XGROUP_LAST_ENTRY, false);
            CompletableFuture<Throwable> nogroup = parkedReadGroup("nogroup");
            awaitReceived("nogroup", "xreadgroup");
            assertThat(admin.xgroupDestroy("b:s", "g")).isEqualTo(1);
            assertThat(nogroup.get(30, TimeUnit.SECONDS))
                    .hasMessage("NOGROUP the consumer group this client was blocked on no longer exists");
            admin.xgroupCreate("b:s", "g", StreamEntryID.XGROUP_LAST_ENTRY, false);
            CompletableFuture<Throwable> unblocked = parkedReadGroup("unblocked");
            awaitReceived("unblocked", "xreadgroup");
            assertThat(admin.del("b:s")).isEqualTo(1);
            assertThat(unblocked.get(30, TimeUnit.SECONDS)).hasMessage("UNBLOCKED the stream key no longer exists");

            // a timeout answers a nil array
            assertThat(admin.xread(redis.clients.jedis.params.XReadParams.xReadParams().block(50),
                    Map.of("b:none", new StreamEntryID(0, 0)))).isNull();
        }
        awaitSameDigest(journalReplica, psyncReplica);
    }

    private static CompletableFuture<Throwable> parkedReadGroup(String name) {
        return CompletableFuture.supplyAsync(() -> {
            try (Jedis j = jedis(cluster.primary)) {
                j.clientSetname(name);
                j.xreadGroup("g", name, XReadGroupParams.xReadGroupParams().block(0),
                        Map.of("b:s", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
    }

    /** Waits until the connection named {@code name} sent {@code command} (it is then parked in it). */
    private static void awaitReceived(String name, String command) {
        Await.until(name + " sent " + command, Duration.ofSeconds(10), () -> {
            try (Jedis j = jedis(cluster.primary)) {
                return j.clientList().lines()
                        .anyMatch(l -> l.contains(" name=" + name + " ") && l.contains(" cmd=" + command + " "));
            }
        });
    }

    /** A raw reply with its byte arrays as text. */
    private static String render(Object o) {
        if (o instanceof byte[] b) {
            return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        }
        if (o instanceof List<?> l) {
            return l.stream().map(StreamConsumerGroupSystemTest::render).toList().toString();
        }
        return String.valueOf(o);
    }

    @Test
    @Order(3)
    void aKilledPrimaryLosesNoAcknowledgedEntry() throws Exception {
        int writers = 3;
        List<List<StreamEntryID>> acknowledged = new ArrayList<>();
        List<CompletableFuture<Void>> running = new ArrayList<>();
        AtomicLong total = new AtomicLong();
        for (int w = 0; w < writers; w++) {
            List<StreamEntryID> mine = new CopyOnWriteArrayList<>();
            acknowledged.add(mine);
            String writer = "w" + w;
            running.add(CompletableFuture.runAsync(() -> {
                try (Jedis j = jedis(cluster.primary)) {
                    for (long n = 1; ; n++) {
                        mine.add(j.xadd("crash:" + writer, StreamEntryID.NEW_ENTRY,
                                Map.of("writer", writer, "n", Long.toString(n))));
                        total.incrementAndGet();
                    }
                } catch (RuntimeException e) {
                    // the connection died with the primary
                }
            }));
        }
        Await.until("300 acknowledged entries", Duration.ofSeconds(60), () -> total.get() >= 300);
        cluster.primary.kill();
        for (CompletableFuture<Void> f : running) {
            f.get(30, TimeUnit.SECONDS);
        }
        cluster.primary.restart();
        try (Jedis j = jedis(cluster.primary)) {
            for (int w = 0; w < writers; w++) {
                List<StreamEntryID> acked = acknowledged.get(w);
                List<StreamEntry> kept = j.xrange("crash:w" + w, "-", "+");
                assertThat(kept.size()).isGreaterThanOrEqualTo(acked.size());
                for (int i = 0; i < acked.size(); i++) {
                    assertThat(kept.get(i).getID()).isEqualTo(acked.get(i));
                    assertThat(kept.get(i).getFields()).containsEntry("n", Integer.toString(i + 1));
                }
            }
        }
        awaitSameDigest(journalReplica, psyncReplica);
    }

    @Test
    @Order(4)
    void aFullSyncCarriesStreamsGroupsHyperLogLogsAndPositions() throws Exception {
        Map<String, byte[]> dumps = new java.util.TreeMap<>();
        try (Jedis j = jedis(cluster.primary)) {
            j.pfadd("sync:hll:sparse", "a", "b", "c");
            String[] many = new String[5_000];
            for (int i = 0; i < many.length; i++) {
                many[i] = "e" + i;
            }
            j.pfadd("sync:hll:dense", many);
            j.geoadd("sync:geo", 13.361389, 38.115556, "Palermo");
            j.geoadd("sync:geo", 15.087269, 37.502669, "Catania");
            j.xadd("sync:stream", new StreamEntryID(1, 1), Map.of("f", "1"));
            j.xadd("sync:stream", new StreamEntryID(2, 1), Map.of("f", "2"));
            j.xgroupCreate("sync:stream", "g", new StreamEntryID(0, 0), false);
            j.xreadGroup("g", "alice", XReadGroupParams.xReadGroupParams().count(1),
                    Map.of("sync:stream", StreamEntryID.UNRECEIVED_ENTRY));
            for (String key : List.of("sync:hll:sparse", "sync:hll:dense", "sync:geo", "sync:stream")) {
                dumps.put(key, j.dump(key));
            }
        }
        // a new psync replica in the old one's place (a primary serves two) installs a checkpoint of the store
        psyncReplica.close();
        psyncReplica = JournalCluster.psyncReplicaOf(cluster.primary, "stream-groups-late");
        awaitSameDigest(journalReplica, psyncReplica);
        try (Jedis r = jedis(psyncReplica)) {
            for (Map.Entry<String, byte[]> e : dumps.entrySet()) {
                assertThat(r.dump(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
            assertThat(r.pfcount("sync:hll:dense")).isBetween(4_900L, 5_100L);
            assertThat(r.geodist("sync:geo", "Palermo", "Catania")).isBetween(166_274.0, 166_275.0);
            assertThat(r.xpending("sync:stream", "g").getTotal()).isEqualTo(1);
        }
    }

    /** Waits until every replica holds the primary's digest, the primary's read again after theirs. */
    private static void awaitSameDigest(TandemNode... replicas) {
        JournalCluster.awaitSameDigest(cluster.primary, CONVERGENCE, replicas);
    }
}
