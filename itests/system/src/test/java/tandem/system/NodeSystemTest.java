package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import redis.clients.jedis.Jedis;

import tandem.testsupport.Await;

/** One headless node, driven by real clients and through its admin channel. */
@Timeout(120)
class NodeSystemTest {

    @RegisterExtension
    static final PerClass<TandemNode> NODE = new PerClass<>(() -> TandemNode.start("node"));
    private final TandemNode node = NODE.get();

    @Test
    void redisCliPings() throws IOException {
        TandemNode.Result r = node.redisCli("PING");
        assertThat(r.exit()).isZero();
        assertThat(r.out().trim()).isEqualTo("PONG");
        assertThat(node.redisCli("ECHO", "hello world").out().trim()).isEqualTo("hello world");
    }

    @Test
    void jedisTalksToIt() {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThat(jedis.ping()).isEqualTo("PONG");
            assertThat(jedis.echo("tandem")).isEqualTo("tandem");
            assertThat(jedis.clientSetname("system-test")).isEqualTo("OK");
            assertThat(jedis.clientGetname()).isEqualTo("system-test");
            assertThat(jedis.select(0)).isEqualTo("OK");
            assertThat(jedis.configGet("save")).containsEntry("save", "");
            assertThat(jedis.info("server")).contains("redis_version:", "tcp_port:" + node.port());
            assertThat(jedis.clientList()).contains("name=system-test");
        }
    }

    @Test
    void clientKillClosesTheConnectionsItSelects() throws Exception {
        try (Jedis killer = new Jedis("127.0.0.1", node.port());
                Jedis byId = new Jedis("127.0.0.1", node.port());
                Jedis byAddr = new Jedis("127.0.0.1", node.port());
                Socket subscriber = new Socket("127.0.0.1", node.port())) {
            assertThat(byId.ping()).isEqualTo("PONG");
            assertThat(kill(killer, "ID", Long.toString(byId.clientId()))).isEqualTo(1L);
            assertThatThrownBy(byId::ping).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);

            // the old form: an address, answered OK
            Matcher addr = Pattern.compile("addr=(\\S+)").matcher(byAddr.clientInfo());
            assertThat(addr.find()).isTrue();
            assertThat(new String((byte[]) killer.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL",
                    addr.group(1)), StandardCharsets.UTF_8)).isEqualTo("OK");
            assertThatThrownBy(byAddr::ping).isInstanceOf(
                    redis.clients.jedis.exceptions.JedisConnectionException.class);

            // a subscribed connection is of type pubsub, and only it
            subscriber.setSoTimeout(10_000);
            subscriber.getOutputStream().write("SUBSCRIBE news\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] confirmed = new byte[64];
            assertThat(subscriber.getInputStream().read(confirmed)).isPositive();
            assertThat(kill(killer, "TYPE", "pubsub")).isEqualTo(1L);
            assertThat(subscriber.getInputStream().read()).as("the subscriber's connection is closed").isEqualTo(-1);

            // SKIPME no: the connection that asked is answered, then closed
            assertThat(kill(killer, "ID", Long.toString(killer.clientId()), "SKIPME", "no")).isEqualTo(1L);
            assertThatThrownBy(killer::ping).isInstanceOf(
                    redis.clients.jedis.exceptions.JedisConnectionException.class);
        }
        assertThat(node.redisCli("PING").out().trim()).as("the node serves on").isEqualTo("PONG");
    }

    private static Long kill(Jedis jedis, String... filters) {
        String[] args = new String[filters.length + 1];
        args[0] = "KILL";
        System.arraycopy(filters, 0, args, 1, filters.length);
        return (Long) jedis.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, args);
    }

    @Test
    void redisBenchmarkCompletes() throws IOException {
        TandemNode.Result r = TandemNode.run(Duration.ofSeconds(60), "redis-benchmark", "-h", "127.0.0.1", "-p",
                Integer.toString(node.port()), "-t", "ping", "-n", "2000", "-c", "4", "-q");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("PING_INLINE", "PING_MBULK", "requests per second");
    }

    @Test
    void lbListsEveryBundleActive() throws IOException {
        TandemNode.Result r = node.shell("lb");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> rows = r.out().lines().filter(l -> l.matches("\\s*\\d+\\|.*")).toList();
        assertThat(rows).hasSizeGreaterThan(15);
        // 17 of deploy/ (health, failover and TLS among them), feature:* and the DPDK runtime of bundle/ (DPDK
        // itself starts only with its transport)
        assertThat(rows).filteredOn(l -> l.contains("Tandem")).hasSize(19).allMatch(l -> l.contains("|Active"));
        assertThat(rows).allMatch(l -> l.contains("|Active") || l.contains("Native/Epoll") && l.contains("|Resolved"),
                "every bundle Active (the epoll fragment Resolved)");
    }

    @Test
    void scrListShowsNoUnsatisfiedComponent() throws IOException {
        TandemNode.Result r = node.shell("scr:list");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain("UNSATISFIED", "FAILED");
        assertThat(r.out()).contains("tandem.server.RespServer", "tandem.journal.JournalComponent",
                "tandem.store.StoreComponent", "tandem.shell.admin.AdminChannel",
                "tandem.shell.ServerCommands", "tandem.replication.ReplicationComponent",
                "tandem.auth.AuthComponent", "tandem.transport.tcp.TcpTransport",
                "tandem.checkpoint.CheckpointComponent", "tandem.psync.PsyncComponent",
                "tandem.features.FeatureManager", "tandem.features.FeatureCommands", "tandem.tls.TlsComponent");
        assertThat(Pattern.compile("State:ACTIVE").matcher(r.out()).results().count()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void shellReportsTheServerAndFailedCommands() throws IOException {
        TandemNode.Result status = node.shell("server:status");
        assertThat(status.exit()).isZero();
        assertThat(status.out()).contains("listening on 127.0.0.1:" + node.port());
        TandemNode.Result bad = node.shell("no:such-command");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("Command not found");
    }

    @Test
    void malformedInputGetsRedisErrorsAndTheNodeKeepsServing() throws IOException {
        Duration quiet = Duration.ofMillis(500);
        TandemNode.Exchange ignored = TandemNode.exchange(node.port(), bytes("*-5\r\nPING\r\n"), quiet);
        assertThat(ignored.reply()).isEqualTo("+PONG\r\n");
        TandemNode.Exchange bulk = TandemNode.exchange(node.port(), bytes("*1\r\n$-1\r\n"), quiet);
        assertThat(bulk.reply()).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
        assertThat(bulk.closed()).isTrue();
        TandemNode.Exchange huge = TandemNode.exchange(node.port(), bytes("*1\r\n$2147483648\r\n"), quiet);
        assertThat(huge.reply()).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
        TandemNode.Exchange quote = TandemNode.exchange(node.port(), bytes("SET \"a b\r\n"), quiet);
        assertThat(quote.reply()).isEqualTo("-ERR Protocol error: unbalanced quotes in request\r\n");
        assertThat(quote.closed()).isTrue();
        assertThat(node.redisCli("PING").out().trim()).isEqualTo("PONG");
    }

    /**
     * The two single commands that once stopped a node: a SETRANGE whose offset overflowed inside apply (journaled,
     * then never applied), and a KEYS pattern whose matching was exponential (the logic thread held for good). Now
     * the first is refused before it is journaled and the second ends at once; the node answers throughout.
     */
    @Test
    void noSingleCommandStopsTheNode() throws IOException {
        try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            jedis.set("a".repeat(64), "1");
            long journaled = journalLastSequence(jedis);
            assertThatThrownBy(() -> jedis.setrange("K", Long.MAX_VALUE, "A"))
                    .hasMessage("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
            assertThat(journalLastSequence(jedis)).as("a refused write is never journaled").isEqualTo(journaled);
            assertThat(jedis.keys("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b")).isEmpty();
            assertThat(jedis.ping()).isEqualTo("PONG");
            String persistence = jedis.info("persistence");
            assertThat(persistence).contains("apply_status:ok");
            assertThat(TandemNode.infoField(persistence, "store_applied_sequence"))
                    .isEqualTo(TandemNode.infoField(persistence, "journal_last_sequence"));
        }
        assertThat(node.log()).doesNotContain("unexpected failure").doesNotContain("fail-stop");
    }

    /**
     * A client pipelining far more than the node's heap (60 writes of 3 MB against a 160 MB heap), then flushing
     * it all: the node stops reading the client while the requests it holds wait for the journal, answers every
     * write, and nothing runs out of memory (before, the decoder, the psync sender or the logic thread did).
     */
    @Test
    void pipelinedWritesLargerThanTheHeapAreAllAnsweredAndFlushed() throws Exception {
        byte[] value = new byte[3_000_000];
        java.util.Arrays.fill(value, (byte) 'v');
        try (Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            redis.clients.jedis.Pipeline p = jedis.pipelined();
            List<redis.clients.jedis.Response<String>> replies = new java.util.ArrayList<>();
            for (int i = 0; i < 60; i++) {
                replies.add(p.set(("big" + i).getBytes(StandardCharsets.US_ASCII), value));
            }
            p.sync();
            assertThat(replies).allSatisfy(r -> assertThat(r.get()).isEqualTo("OK"));
            assertThat(jedis.strlen("big59")).isEqualTo(value.length);
            assertThat(jedis.flushAll()).isEqualTo("OK");
            assertThat(jedis.dbSize()).isZero();
            assertThat(jedis.info("persistence")).contains("apply_status:ok");
        }
        assertThat(node.log()).doesNotContain("OutOfMemoryError");
    }

    private static long journalLastSequence(Jedis jedis) {
        return Long.parseLong(TandemNode.infoField(jedis.info("persistence"), "journal_last_sequence"));
    }

    @Test
    void aDeclaredBulkLengthAllocatesNothingUntilTheBytesArrive() throws IOException {
        // the node runs with a 160 MB heap: a 500 MB declared bulk must not be allocated up front
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", node.port()), 2000);
            OutputStream out = socket.getOutputStream();
            out.write(bytes("*2\r\n$4\r\nECHO\r\n$500000000\r\nabc"));
            out.flush();
            assertThat(node.redisCli("PING").out().trim()).isEqualTo("PONG");
        }
        assertThat(node.log()).doesNotContain("OutOfMemoryError");
    }

    @Test
    void anEditOfEtcRebindsLiveAndAnInvalidEditIsRefused() throws IOException {
        Path cfg = node.home().resolve("etc/tandem.server.cfg");
        int before = node.port();
        int next = TandemNode.freePort();
        replaceProperty(cfg, "port", Integer.toString(next));
        Await.until("the node answers on " + next, Duration.ofSeconds(20),
                () -> "+PONG\r\n".equals(TandemNode.tryExchange(next, "PING\r\n")));
        Await.until("the old port is closed", Duration.ofSeconds(10),
                () -> TandemNode.tryExchange(before, "PING\r\n") == null);
        node.port(next);

        replaceProperty(cfg, "port", "99999");
        Await.until("the refusal is logged", Duration.ofSeconds(20),
                () -> node.log().contains("port=99999 is invalid: must be between -1 and 65535"));
        assertThat(node.redisCli("PING").out().trim()).isEqualTo("PONG");
        replaceProperty(cfg, "port", Integer.toString(next));
    }

    @Test
    void replacingTheServerJarInDeployUpdatesItLive() throws IOException {
        String runId = runId();
        Path deploy = node.home().resolve("deploy");
        Path jar;
        try (var files = Files.list(deploy)) {
            jar = files.filter(p -> p.getFileName().toString().startsWith("tandem.server-")).findFirst()
                    .orElseThrow();
        }
        Path staged = node.home().resolve("tandem.server.staged");
        rebuildWithMarker(jar, staged);
        Files.move(staged, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Await.until("a new server instance answers", Duration.ofSeconds(30), () -> {
            try {
                String now = runId();
                return now != null && !now.equals(runId);
            } catch (RuntimeException e) {
                return false;
            }
        });
        assertThat(node.redisCli("PING").out().trim()).isEqualTo("PONG");
        assertThat(node.shell("lb").out()).containsPattern("Tandem RESP server.*\\|0\\.1\\.0|\\|Active\\s*\\|");
    }

    private String runId() {
        String info = TandemNode.tryExchange(node.port(), "INFO server\r\n");
        if (info == null) {
            return null;
        }
        Matcher m = Pattern.compile("run_id:([0-9a-f]{40})").matcher(info);
        return m.find() ? m.group(1) : null;
    }

    /** A byte-different copy of a bundle: same classes, one more resource, so FileInstall sees an update. */
    private static void rebuildWithMarker(Path source, Path target) throws IOException {
        try (JarInputStream in = new JarInputStream(Files.newInputStream(source));
                JarOutputStream out = new JarOutputStream(Files.newOutputStream(target), in.getManifest())) {
            JarEntry entry;
            while ((entry = in.getNextJarEntry()) != null) {
                out.putNextEntry(new JarEntry(entry.getName()));
                in.transferTo(out);
                out.closeEntry();
            }
            out.putNextEntry(new JarEntry("META-INF/tandem-system-test-marker"));
            out.write(Long.toString(System.nanoTime()).getBytes(StandardCharsets.US_ASCII));
            out.closeEntry();
        }
    }

    private static void replaceProperty(Path cfg, String key, String value) throws IOException {
        List<String> lines = Files.readAllLines(cfg).stream()
                .map(l -> l.matches("\\s*" + Pattern.quote(key) + "\\s*=.*") ? key + " = " + value : l).toList();
        Path tmp = cfg.resolveSibling(cfg.getFileName() + ".tmp");
        Files.write(tmp, lines);
        Files.move(tmp, cfg, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
