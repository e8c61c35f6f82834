package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import tandem.testsupport.Await;

/**
 * The health endpoint of real nodes, a {@code disk+ram} primary and its journal replica: {@code /health}'s JSON,
 * {@code /metrics} through {@code promtool check metrics} (Debian's {@code prometheus}), the status page rendered by
 * headless Chromium (Debian's {@code chromium}), {@code /ready} answering 503 through a replay of a large journal and
 * 200 after it, the Felix Health Checks from the shell, and a port change applied live. One cluster for the class;
 * tests run in order.
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HealthSystemTest {

    private static final int KEYS = 2000;

    private static JournalCluster cluster;
    private static TandemNode primary;
    private static TandemNode replica;

    @BeforeAll
    static void start() throws IOException {
        cluster = JournalCluster.start("health", "disk+ram");
        primary = cluster.primary;
        replica = cluster.addReplica(true);
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
            Pipeline p = jedis.pipelined();
            for (int i = 0; i < KEYS; i++) {
                p.set("k" + i, "v" + i);
            }
            p.sync();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        PerClass.closeAll(cluster);
    }

    /** {@link TandemNode#http} for a condition that cannot throw a checked exception. */
    private static TandemNode.HttpReply get(TandemNode node, String path) {
        try {
            return node.http(path);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static JsonObject json(String body) {
        try (var r = Json.createReader(new StringReader(body))) {
            return r.readObject();
        }
    }

    @Test
    @Order(1)
    void healthReportsRoleJournalStoreFenceAndEachReplicasProgress() throws IOException {
        TandemNode.HttpReply reply = primary.http("/health");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.contentType()).startsWith("application/json");
        JsonObject h = json(reply.body());
        assertThat(h.getString("role")).isEqualTo("primary");
        assertThat(h.getBoolean("ready")).isTrue();
        assertThat(h.isNull("notReady")).isTrue();
        assertThat(h.getString("ackPolicy")).isEqualTo("disk+ram");
        long last = h.getJsonObject("journal").getJsonNumber("lastSequence").longValue();
        assertThat(last).isGreaterThanOrEqualTo(KEYS);
        assertThat(h.getJsonObject("store").getJsonNumber("appliedSequence").longValue()).isEqualTo(last);
        assertThat(h.getJsonObject("fence").getBoolean("fenced")).isFalse();
        assertThat(h.getJsonObject("server").getInt("port")).isEqualTo(primary.port());

        // the replica acknowledged everything: spec 000's per-replica metrics say so
        Await.until("the primary reports the replica caught up", Duration.ofSeconds(30), () -> {
            JsonObject r = journalReplica(json(get(primary, "/health").body()));
            return r != null && r.getJsonNumber("acked").longValue() == last;
        });
        JsonObject r = journalReplica(json(primary.http("/health").body()));
        assertThat(r.getString("state")).isEqualTo("streaming");
        assertThat(r.getJsonNumber("sent").longValue()).isEqualTo(last);
        assertThat(r.getJsonNumber("inMemory").longValue()).isEqualTo(last);
        assertThat(r.getJsonNumber("lagEntries").longValue()).isZero();
        assertThat(r.getJsonNumber("lagBytes").longValue()).isZero();
        assertThat(r.getJsonNumber("lastAckMillis").longValue()).isGreaterThanOrEqualTo(0);
        long offset = r.getJsonObject("offsets").getJsonNumber("acked").longValue();
        assertThat(offset).as("psync offset of what the replica holds").isPositive()
                .isEqualTo(h.getJsonObject("journal").getJsonNumber("replicationOffset").longValue());
        assertThat(r.isNull("transfer")).isTrue();

        JsonObject rh = json(replica.http("/health").body());
        assertThat(rh.getString("role")).isEqualTo("replica");
        assertThat(rh.getBoolean("ready")).isTrue();
        JsonObject upstream = rh.getJsonArray("replication").stream().map(v -> v.asJsonObject())
                .filter(p -> p.getString("protocol").equals("journal")).findFirst().orElseThrow()
                .getJsonObject("upstream");
        assertThat(upstream.getString("state")).isEqualTo("streaming");
        assertThat(upstream.getString("address")).isEqualTo("127.0.0.1:" + cluster.replicationPort);
        assertThat(upstream.getJsonNumber("acked").longValue()).isEqualTo(last);

        // the same, as Felix Health Checks from the shell
        TandemNode.Result hc = primary.shell("hc:exec -v tandem");
        assertThat(hc.exit()).as(hc.err()).isZero();
        assertThat(hc.out()).contains("Overall Health Result: OK", "Tandem readiness", "Tandem journal",
                "Tandem store", "Tandem replication", "Tandem fence", "replica ", " streams, 0 entries behind");
    }

    private static JsonObject journalReplica(JsonObject health) {
        for (var p : health.getJsonArray("replication")) {
            JsonObject protocol = p.asJsonObject();
            if (protocol.getString("protocol").equals("journal") && !protocol.getJsonArray("replicas").isEmpty()) {
                return protocol.getJsonArray("replicas").getJsonObject(0);
            }
        }
        return null;
    }

    @Test
    @Order(2)
    void metricsAreValidPrometheusTextWithLatencyHistogramsAndCounters() throws IOException {
        TandemNode.HttpReply reply = primary.http("/metrics");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.contentType()).startsWith("text/plain; version=0.0.4");
        Path file = Files.createTempFile("tandem-metrics", ".txt");
        try {
            Files.writeString(file, reply.body());
            TandemNode.Result check = TandemNode.run(Duration.ofSeconds(30), "sh", "-c",
                    "promtool check metrics < " + file);
            assertThat(check.exit()).as("promtool check metrics (Debian's prometheus): %s%s", check.out(), check.err())
                    .isZero();
        } finally {
            Files.deleteIfExists(file);
        }
        String m = reply.body();
        assertThat(m).contains("# TYPE tandem_write_ack_seconds histogram",
                "tandem_write_ack_seconds_bucket{policy=\"disk+ram\",le=\"+Inf\"}",
                "# TYPE tandem_journal_fdatasync_seconds histogram", "# TYPE tandem_journal_batch_entries histogram",
                "tandem_commands_total{command=\"set\"} " + KEYS, "tandem_ready 1", "tandem_fenced 0",
                "tandem_role_primary 1", "tandem_journal_bytes ", "tandem_store_bytes ",
                "tandem_replica_lag_entries{protocol=\"journal\"");
        assertThat(count(m, "tandem_write_ack_seconds_count{policy=\"disk+ram\"}"))
                .as("every acknowledged write was measured").isGreaterThanOrEqualTo(KEYS);
        String onReplica = replica.http("/metrics").body();
        assertThat(count(onReplica, "tandem_role_primary")).isZero();
        assertThat(onReplica).contains("tandem_upstream_streaming{protocol=\"journal\"} 1.0",
                "tandem_upstream_acked_sequence{protocol=\"journal\"} ", "tandem_upstream_last_frame_seconds");
    }

    /** Sets (or, with an empty value, clears) {@code archive.directory} in a node's journal configuration, live. */
    private static void archiveTo(TandemNode node, String directory) throws IOException {
        Path cfg = node.home().resolve("etc/tandem.journal.cfg");
        String text = Files.readString(cfg).replaceAll("(?m)^archive\\.directory\\s*=.*\n", "");
        Path tmp = cfg.resolveSibling("tandem.journal.cfg.tmp");
        Files.writeString(tmp, text + "\narchive.directory = " + directory + "\n");
        Files.move(tmp, cfg, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static JsonObject archive(TandemNode node) {
        JsonObject h = json(get(node, "/health").body());
        return h.isNull("archive") ? null : h.getJsonObject("archive");
    }

    @Test
    @Order(3)
    void aPrimaryAndItsReplicaShareAJournalArchiveWhoseLagAndFailuresShowEverywhere() throws Exception {
        Path shared = Files.createDirectories(primary.home().resolve("shared-archive"));
        archiveTo(primary, shared.toString());
        archiveTo(replica, shared.toString());
        Await.until("both nodes archive", Duration.ofSeconds(30),
                () -> archive(primary) != null && archive(replica) != null);
        assertThat(primary.shell("journal:rotate").exit()).isZero();
        for (TandemNode node : List.of(primary, replica)) {
            Await.until("the sealed segment is archived", Duration.ofSeconds(30), () -> {
                JsonObject a = archive(node);
                return a.getJsonNumber("archivedSegments").longValue() >= 1 && a.getInt("pendingSegments") == 0;
            });
            assertThat(archive(node).getString("status")).isEqualTo("ok");
        }
        // byte-identical segments under one name: the primary's newest sealed segment is the archive's newest file
        List<Path> archived;
        try (var files = Files.list(shared)) {
            archived = files.sorted().toList();
        }
        Path newest = archived.get(archived.size() - 1);
        assertThat(newest.getFileName().toString()).startsWith("segment-").doesNotContain(".tmp");
        Path sealed;
        try (var files = Files.list(primary.home().resolve("data/journal"))) {
            sealed = files.filter(f -> f.getFileName().toString().startsWith("journal.")).sorted()
                    .reduce((a, b) -> b).orElseThrow();
        }
        assertThat(Files.readAllBytes(newest)).isEqualTo(Files.readAllBytes(sealed));
        assertThat(primary.info("persistence")).containsEntry("journal_archive_enabled", "1")
                .containsEntry("journal_archive_status", "ok").containsEntry("journal_archive_directory",
                        shared.toString()).containsEntry("journal_archive_last_archived",
                        newest.getFileName().toString());
        assertThat(primary.http("/metrics").body()).contains("tandem_journal_archive_enabled 1",
                "tandem_journal_archive_failing 0", "tandem_journal_archive_lag_entries ");
        assertThat(primary.http("/").body()).contains("<span class=\"ok\" id=\"archive\">ok</span>: " + shared);

        // a missing directory: loud, and the segment stays
        archiveTo(primary, primary.home().resolve("no-such-archive").toString());
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
            jedis.set("archived-later", "1");
        }
        assertThat(primary.shell("journal:rotate").exit()).isZero();
        Await.until("the archive to fail", Duration.ofSeconds(30), () -> {
            JsonObject a = archive(primary);
            return a != null && a.getString("status").equals("failing");
        });
        assertThat(archive(primary).getString("lastError")).contains("does not exist");
        assertThat(primary.info("persistence")).containsEntry("journal_archive_status", "failing");
        assertThat(primary.http("/").body()).contains("<span class=\"bad\" id=\"archive\">FAILING: ");
        // the health checks' results are cached for a moment: the failing archive shows once the cache lapses
        Await.until("hc:exec warns of the failing archive", Duration.ofSeconds(30), () -> {
            try {
                String hc = primary.shell("hc:exec -v tandem").out();
                return hc.contains("Overall Health Result: WARN") && hc.matches("(?s).*Tandem journal archive +WARN.*");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(primary.log()).contains("cannot archive journal.");

        archiveTo(primary, "");
        archiveTo(replica, "");
        Await.until("archiving is off", Duration.ofSeconds(30),
                () -> archive(primary) == null && archive(replica) == null);
        assertThat(primary.info("persistence")).containsEntry("journal_archive_enabled", "0");
        assertThat(primary.http("/").body())
                .contains("<th>journal archive</th><td>off (no archive.directory)</td>");
    }

    /** @return the value of the sample line that starts with {@code series} */
    private static long count(String exposition, String series) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith(series + " ")) {
                return (long) Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }

    @Test
    @Order(4)
    void statusPageRendersInChromiumWithRoleReplicasFenceAndCharts() throws IOException {
        // writes across at least two history samples, so that the latency chart has a line
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
            Await.until("the page charts write-to-ack latency", Duration.ofSeconds(30), () -> {
                jedis.set("page", Long.toString(System.nanoTime()));
                String page = get(primary, "/").body();
                int chart = page.indexOf("id=\"chart-latency\"");
                return chart > 0 && page.indexOf("<polyline", chart) > 0
                        && page.indexOf("<polyline", chart) < page.indexOf("</svg>", chart);
            });
        }
        Path profile = Files.createTempDirectory("tandem-chromium");
        TandemNode.Result dom = TandemNode.run(Duration.ofSeconds(90), "chromium", "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile, "--dump-dom",
                "http://127.0.0.1:" + primary.healthPort() + "/");
        assertThat(dom.exit()).as("headless Chromium (Debian's chromium): %s", dom.err()).isZero();
        String html = dom.out();
        assertThat(html).contains("<span id=\"role\">primary</span>", "on port " + primary.port(),
                "<span class=\"ok\" id=\"ready\">ready</span>", "<span class=\"ok\" id=\"fence\">not fenced</span>",
                "disk+ram", "<td>streaming</td>", "<svg id=\"chart-latency\"", "<svg id=\"chart-throughput\"",
                "<svg id=\"chart-lag\"", "disk+ram p50", "disk+ram p99");
        assertThat(html).as("no script, nothing from elsewhere").doesNotContain("<script", "src=\"http");
    }

    @Test
    @Order(5)
    void readyAnswers503ThroughTheReplayOfALargeJournalAnd200After() throws Exception {
        // a journal of a few hundred thousand entries, then a store that has to replay all of it
        TandemNode.Result load = TandemNode.run(Duration.ofSeconds(120), "redis-benchmark", "-h", "127.0.0.1",
                "-p", Integer.toString(primary.port()), "-t", "set", "-n", "300000", "-r", "100000", "-P", "32",
                "-q");
        assertThat(load.exit()).as(load.err()).isZero();
        long last = Long.parseLong(TandemNode.infoField(new Jedis("127.0.0.1", primary.port()).info("persistence"),
                "journal_last_sequence"));
        long store = primary.bundleId("Tandem store");
        assertThat(primary.shell("stop " + store).exit()).isZero();
        TandemNode.HttpReply stopped = primary.http("/ready");
        assertThat(stopped.status()).isEqualTo(503);
        assertThat(stopped.body()).isEqualTo("not ready: the store (tandem.store) is not active\n");
        assertThat(primary.shell("server:status").out()).contains("node: NOT READY: the store (tandem.store) is not "
                + "active");
        assertThat(json(primary.http("/health").body()).getBoolean("ready")).isFalse();
        assertThat(primary.shell("hc:exec tandem").out()).containsPattern("Overall Health Result: CRITICAL")
                .containsPattern("Tandem store +CRITICAL").containsPattern("Tandem readiness +CRITICAL");
        primary.delete("data/store");

        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicBoolean polling = new AtomicBoolean(true);
        Thread poller = new Thread(() -> {
            while (polling.get()) {
                try {
                    TandemNode.HttpReply r = primary.http("/ready");
                    String line = r.status() + " " + r.body().trim();
                    if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(line)) {
                        seen.add(line);
                    }
                } catch (IOException e) {
                    seen.add("error " + e);
                }
            }
        }, "ready-poller");
        poller.start();
        try {
            assertThat(primary.shell("start " + store).exit()).isZero();
            Await.until("the node is ready again", Duration.ofSeconds(120),
                    () -> !seen.isEmpty() && seen.get(seen.size() - 1).equals("200 ready"));
        } finally {
            polling.set(false);
            poller.join(10_000);
        }
        List<String> replaying = new ArrayList<>();
        for (String s : seen) {
            if (s.startsWith("503 not ready: replaying the journal: ")) {
                replaying.add(s);
            }
        }
        assertThat(replaying).as("seen: %s", seen).isNotEmpty();
        assertThat(replaying.get(replaying.size() - 1)).endsWith(" of " + last + " entries");
        assertThat(seen.get(seen.size() - 1)).isEqualTo("200 ready");
        assertThat(seen).noneMatch(s -> s.startsWith("error"));
        assertThat(primary.log()).contains("replayed " + String.format(java.util.Locale.US, "%,d", last)
                + " journal entries after sequence 0");
        cluster.assertSameState(replica);
    }

    @Test
    @Order(6)
    void thePortChangesLiveAndTheRespClientsNeverNotice() throws Exception {
        int newPort = TandemNode.freePort();
        try (Jedis jedis = new Jedis("127.0.0.1", primary.port())) {
            jedis.set("before", "1");
            Path cfg = primary.home().resolve("etc/tandem.health.cfg");
            String text = Files.readString(cfg).replaceAll("(?m)^port\\s*=.*$", "port = " + newPort);
            Path tmp = cfg.resolveSibling("tandem.health.cfg.tmp");
            Files.writeString(tmp, text);
            Files.move(tmp, cfg, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            awaitReady(java.net.http.HttpClient.newHttpClient(), newPort);
            Await.until("nothing answers on the old port", Duration.ofSeconds(30), () -> {
                try {
                    primary.http("/ready");
                    return false;
                } catch (IOException e) {
                    return true;
                }
            });
            assertThat(jedis.get("before")).as("the same RESP connection").isEqualTo("1");
        }
        assertThat(primary.log()).contains("health endpoint: http://127.0.0.1:" + newPort + "/");
    }

    @Test
    @Order(7)
    void byDefaultThePortIsTheRespPortPlus3000AndFollowsIt() throws Exception {
        // a node of its own: the harness gives the others an explicit port
        try (TandemNode node = TandemNode.start(TandemNode.newHome("health-default"), TandemNode.freePort(),
                java.util.Map.of(), "--config", "tandem.health:port=0")) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            awaitReady(http, node.port() + 3000);
            int moved = TandemNode.freePort();
            Path cfg = node.home().resolve("etc/tandem.server.cfg");
            String text = Files.readString(cfg).replaceAll("(?m)^port\\s*=.*$", "port = " + moved);
            Path tmp = cfg.resolveSibling("tandem.server.cfg.tmp");
            Files.writeString(tmp, text.contains("port = " + moved) ? text : text + "\nport = " + moved + "\n");
            Files.move(tmp, cfg, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            node.port(moved);
            awaitReady(http, moved + 3000);
            assertThat(node.log()).contains("health endpoint: http://127.0.0.1:" + (moved + 3000) + "/");
        }
    }

    private static void awaitReady(java.net.http.HttpClient http, int port) {
        Await.until("health answers on " + port, Duration.ofSeconds(30), () -> {
            try {
                return http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                        + "/ready")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

}
