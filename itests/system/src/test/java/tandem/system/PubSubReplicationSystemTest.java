package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.system.PubSubSystemTest.visible;
import static tandem.system.RespSockets.connect;
import static tandem.system.RespSockets.exchange;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.testsupport.Await;

/**
 * What a client publishes on the primary reaches the subscribers of its replicas, as Redis propagates {@code PUBLISH}
 * and {@code SPUBLISH} to its replicas: the same flows on a Redis 7 primary and replica and on a Tandem primary with a
 * journal-protocol replica and a psync replica, the bytes every connection reads compared. A message published on a
 * replica stays there. A message too large for one journal entry reaches the primary's subscribers only (a documented
 * departure).
 */
@Timeout(180)
class PubSubReplicationSystemTest {

    private static JournalCluster cluster;
    private static TandemNode journalReplica;
    private static TandemNode psyncReplica;
    private static RedisProcess redisPrimary;
    private static RedisProcess redisReplica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("ps-repl", "disk+ram");
        journalReplica = cluster.addReplica(true);
        psyncReplica = TandemNode.start("ps-repl-psync", "--replication-port", Integer.toString(TandemNode.freePort()),
                "--config", "tandem.psync:reconnect.max.ms=300");
        TandemNode.Result r = psyncReplica.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(cluster.primary.port()));
        assertThat(r.out().trim()).as(r.err()).isEqualTo("OK");
        JournalCluster.awaitStreaming(psyncReplica);
        redisPrimary = RedisProcess.start();
        // a replica's full sync writes dump.rdb into its directory: keep it under target/
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory(java.nio.file.Files.createDirectories(
                java.nio.file.Path.of("target")), "redis-replica-");
        redisReplica = RedisProcess.start("--replicaof", "127.0.0.1", Integer.toString(redisPrimary.port()), "--dir",
                dir.toString());
        Await.until("the Redis replica streams", Duration.ofSeconds(30), () -> String.valueOf(
                TandemNode.tryExchange(redisReplica.port(), "INFO replication\r\n")).contains("master_link_status:up"));
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(psyncReplica, cluster, redisReplica, redisPrimary);
    }

    @Test
    void aReplicasSubscribersReceiveWhatThePrimaryPublishedAsOnRedis() throws IOException {
        String redis = propagated(redisPrimary.port(), redisReplica.port());
        assertThat(visible(propagated(cluster.primary.port(), journalReplica.port()))).as("journal-protocol replica")
                .isEqualTo(visible(redis));
        assertThat(visible(propagated(cluster.primary.port(), psyncReplica.port()))).as("psync replica")
                .isEqualTo(visible(redis));
    }

    /** Publishes on the primary; returns what the publisher and the replica's subscriber read. */
    private static String propagated(int primary, int replica) throws IOException {
        caughtUp(primary, replica);
        try (Socket sub = connect(replica); Socket pub = connect(primary); Socket reader = connect(replica)) {
            StringBuilder got = new StringBuilder();
            got.append(exchange(sub, "SUBSCRIBE rp:ch\r\nPSUBSCRIBE rp:p*\r\nSSUBSCRIBE rp:sh\r\n", 3));
            exchange(pub, "DEL rp:k\r\n", 1); // a flow before this one may have set it
            // a write, then a message about it: the replica delivers the message once it holds the write
            got.append(exchange(pub, "SET rp:k v1\r\nPUBLISH rp:ch wrote-v1\r\n", 2));
            got.append(exchange(sub, "", 1));
            got.append(exchange(reader, "GET rp:k\r\n", 1));
            got.append(exchange(pub, "PUBLISH rp:pattern m2\r\nSPUBLISH rp:sh m3\r\nPUBLISH rp:nobody x\r\n", 3));
            got.append(exchange(pub, "*3\r\n$7\r\nPUBLISH\r\n$5\r\nrp:ch\r\n$4\r\n\u0000\r\n\u00ff\r\n", 1));
            got.append(exchange(pub, "PUBLISH rp:ch last\r\n", 1));
            got.append(exchange(sub, "", 4));
            got.append(exchange(sub, "UNSUBSCRIBE\r\nPUNSUBSCRIBE\r\nSUNSUBSCRIBE\r\n", 3));
            return got.toString();
        }
    }

    @Test
    void aReplicasSubscribersHearTheKeyspaceEventsOfThePrimarysWritesAsOnRedis() throws IOException {
        String redis = notified(redisPrimary.port(), redisReplica.port());
        assertThat(visible(notified(cluster.primary.port(), journalReplica.port()))).as("journal-protocol replica")
                .isEqualTo(visible(redis));
        assertThat(visible(notified(cluster.primary.port(), psyncReplica.port()))).as("psync replica")
                .isEqualTo(visible(redis));
    }

    /** Writes on the primary; returns what a subscriber to the replica's keyspace notifications read. */
    private static String notified(int primary, int replica) throws IOException {
        caughtUp(primary, replica);
        try (Socket sub = connect(replica); Socket pub = connect(primary)) {
            StringBuilder got = new StringBuilder();
            got.append(exchange(sub, "CONFIG SET notify-keyspace-events KA\r\nPSUBSCRIBE __keyspace@0__:kn:*\r\n", 2));
            exchange(pub, "SET kn:a 1\r\nLPUSH kn:l x\r\nRPOP kn:l\r\nDEL kn:a kn:none\r\nHSET kn:h f v\r\n", 5);
            got.append(exchange(sub, "", 6)); // set, lpush, rpop, del (the list emptied), del, hset
            got.append(exchange(sub, "CONFIG SET notify-keyspace-events \"\"\r\n", 1));
            exchange(pub, "DEL kn:h\r\n", 1);
            return got.toString();
        }
    }

    @Test
    void everyNodeRaisesExpiredWhenItsJournalsTickDeletesTheKey() throws IOException {
        // a Redis replica waits for its primary's DEL and raises del; a Tandem node applies the journaled Tick
        int[] nodes = {cluster.primary.port(), journalReplica.port(), psyncReplica.port()};
        Socket[] subscribers = new Socket[nodes.length];
        try {
            for (int i = 0; i < nodes.length; i++) {
                subscribers[i] = connect(nodes[i]);
                assertThat(exchange(subscribers[i], "CONFIG SET notify-keyspace-events Ex\r\n"
                        + "SUBSCRIBE __keyevent@0__:expired\r\n", 2)).startsWith("+OK\r\n");
            }
            try (Socket pub = connect(cluster.primary.port())) {
                assertThat(exchange(pub, "SET kn:e v PX 50\r\n", 1)).isEqualTo("+OK\r\n");
            }
            for (Socket s : subscribers) {
                assertThat(exchange(s, "", 1)).isEqualTo("*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:expired\r\n"
                        + "$4\r\nkn:e\r\n");
                exchange(s, "UNSUBSCRIBE\r\n", 1);
                exchange(s, "CONFIG SET notify-keyspace-events \"\"\r\n", 1);
            }
        } finally {
            for (Socket s : subscribers) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aMessagePublishedOnAReplicaReachesItsOwnSubscribersOnlyAsOnRedis() throws IOException {
        String redis = local(redisPrimary.port(), redisReplica.port());
        assertThat(visible(local(cluster.primary.port(), journalReplica.port()))).as("journal-protocol replica")
                .isEqualTo(visible(redis));
        assertThat(visible(local(cluster.primary.port(), psyncReplica.port()))).as("psync replica")
                .isEqualTo(visible(redis));
    }

    private static String local(int primary, int replica) throws IOException {
        caughtUp(primary, replica);
        try (Socket onReplica = connect(replica); Socket onPrimary = connect(primary); Socket pub = connect(replica);
                Socket primaryPub = connect(primary)) {
            StringBuilder got = new StringBuilder();
            got.append(exchange(onReplica, "SUBSCRIBE rp:local\r\n", 1));
            got.append(exchange(onPrimary, "SUBSCRIBE rp:local\r\n", 1));
            got.append(exchange(pub, "PUBLISH rp:local from-replica\r\n", 1));
            got.append(exchange(onReplica, "", 1));
            got.append(exchange(primaryPub, "PUBLISH rp:local from-primary\r\n", 1));
            // the primary's subscriber's next message is the primary's own: the replica's never came
            got.append(exchange(onPrimary, "", 1));
            got.append(exchange(onReplica, "", 1));
            return got.toString();
        }
    }

    @Test
    void aMessageTooLargeForOneJournalEntryReachesThePrimarysSubscribersOnly() throws IOException {
        byte[] big = new byte[70_000];
        java.util.Arrays.fill(big, (byte) 'b');
        try (Socket onReplica = connect(journalReplica.port()); Socket onPrimary = connect(cluster.primary.port());
                Socket pub = connect(cluster.primary.port())) {
            exchange(onReplica, "SUBSCRIBE rp:big\r\n", 1);
            exchange(onPrimary, "SUBSCRIBE rp:big\r\n", 1);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes("*3\r\n$7\r\nPUBLISH\r\n$6\r\nrp:big\r\n$70000\r\n".getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(big);
            request.writeBytes("\r\nPUBLISH rp:big small\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(exchange(pub, request.toString(StandardCharsets.ISO_8859_1), 2)).isEqualTo(":1\r\n:1\r\n");
            assertThat(exchange(onPrimary, "", 2)).contains("$70000\r\nbbb").endsWith("$5\r\nsmall\r\n");
            assertThat(exchange(onReplica, "", 1)).endsWith("$5\r\nsmall\r\n");
        }
    }

    /**
     * Returns once the replica holds a write made on the primary now: what an earlier flow published there (the
     * primary is shared by both Tandem replicas) was delivered before it, and no late message reaches a subscriber
     * of this flow.
     */
    private static void caughtUp(int primary, int replica) throws IOException {
        String nonce = Long.toString(System.nanoTime());
        try (Socket p = connect(primary)) {
            assertThat(exchange(p, "SET rp:barrier " + nonce + "\r\n", 1)).isEqualTo("+OK\r\n");
        }
        Await.until("the replica holds the barrier write", Duration.ofSeconds(30),
                () -> String.valueOf(TandemNode.tryExchange(replica, "GET rp:barrier\r\n")).endsWith(nonce + "\r\n"));
    }
}
