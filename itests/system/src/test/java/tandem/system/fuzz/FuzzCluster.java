package tandem.system.fuzz;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tandem.system.RedisProcess;
import tandem.system.TandemNode;
import tandem.testsupport.Await;

/**
 * What the fuzzer runs against: a real Redis 7, and a Tandem primary with a journal-protocol replica
 * ({@code --primary}) and a psync replica ({@code REPLICAOF}) attached, each a real process with its own home and a
 * bounded heap ({@link TandemNode}).
 */
public final class FuzzCluster implements Nodes, AutoCloseable {

    /** What a node's log must never say: the lines of an unexpected failure or a fail-stop. */
    public static final Pattern PROBLEM = Pattern.compile("failed unexpectedly|fail-stop|unexpected failure|"
            + "OutOfMemoryError|StackOverflowError|Exception in thread");

    private static final Duration CONVERGENCE = Duration.ofSeconds(120);

    private final RedisProcess redis;
    private final TandemNode primary;
    private TandemNode journalReplica;
    private TandemNode psyncReplica;
    private final Map<TandemNode, Long> logOffsets = new HashMap<>();
    private final Map<TandemNode, String> names = new LinkedHashMap<>();

    private FuzzCluster(RedisProcess redis, TandemNode primary) {
        this.redis = redis;
        this.primary = primary;
        names.put(primary, "primary");
    }

    /** Starts Redis and the primary; the replicas follow with {@link #attachReplicas}. */
    public static FuzzCluster start(String name) throws IOException {
        // Redis' own log (warnings only, and the bug report of a crash) beside the report
        Path logDir = Path.of(System.getProperty("tandem.test.dir", "target/nodes")).toAbsolutePath()
                .resolveSibling(name);
        Files.createDirectories(logDir);
        RedisProcess redis = RedisProcess.start("--logfile", logDir.resolve("redis.log").toString());
        TandemNode p = null;
        try {
            p = TandemNode.start(name + "-primary", "--replication-port", Integer.toString(TandemNode.freePort()),
                    "--ack-policy", "disk+ram");
            return new FuzzCluster(redis, p);
        } catch (IOException | RuntimeException | Error e) {
            if (p != null) {
                p.close();
            }
            try {
                redis.close();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            throw e;
        }
    }

    /**
     * Attaches a journal-protocol replica ({@code --primary}, authorized on the primary with {@code auth:allow}) and a
     * psync replica ({@code REPLICAOF}), and waits until both stream.
     */
    public void attachReplicas(String name) throws IOException {
        int replicationPort = replicationPort(primary);
        journalReplica = TandemNode.start(name + "-journal", "--replication-port",
                Integer.toString(TandemNode.freePort()), "--primary", "127.0.0.1:" + replicationPort, "--config",
                "tandem.replication:reconnect.max.ms=300");
        names.put(journalReplica, "journal-replica");
        TandemNode.Result allowed = primary.shell(journalReplica.authAllowCommand());
        if (allowed.exit() != 0) {
            throw new IOException("auth:allow failed: " + allowed.out() + allowed.err());
        }
        awaitLinkUp(journalReplica);
        psyncReplica = TandemNode.start(name + "-psync", "--replication-port",
                Integer.toString(TandemNode.freePort()), "--config", "tandem.psync:reconnect.max.ms=300");
        names.put(psyncReplica, "psync-replica");
        String ok = TandemNode.tryExchange(psyncReplica.port(), "REPLICAOF 127.0.0.1 " + primary.port() + "\r\n");
        if (!"+OK\r\n".equals(ok)) {
            throw new IOException("REPLICAOF answered " + ok);
        }
        awaitLinkUp(psyncReplica);
    }

    private static int replicationPort(TandemNode node) throws IOException {
        for (String line : Files.readAllLines(node.home().resolve("etc/tandem.replication.cfg"))) {
            Matcher m = Pattern.compile("\\s*port\\s*=\\s*(\\d+)\\s*").matcher(line);
            if (m.matches()) {
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IOException("no port in " + node.home().resolve("etc/tandem.replication.cfg"));
    }

    private static void awaitLinkUp(TandemNode replica) {
        Await.until("replica " + replica.port() + " streams", Duration.ofSeconds(60),
                () -> "up".equals(info(replica, "replication").get("master_link_status")));
    }

    public int redisPort() {
        return redis.port();
    }

    @Override
    public int primaryPort() {
        return primary.port();
    }

    public TandemNode primary() {
        return primary;
    }

    /** INFO {@code section} as a map; empty when the node does not answer. */
    static Map<String, String> info(TandemNode node, String section) {
        Map<String, String> out = new HashMap<>();
        String reply = null;
        try (Conn c = new Conn("tandem", node.port(), Duration.ofSeconds(10))) {
            Conn.Result r = c.exchange(List.of(Commands.of("INFO", section)));
            if (r.end() == Conn.End.OK && r.replies().get(0).isBulk()) {
                reply = r.replies().get(0).text();
            }
        } catch (IOException e) {
            // a node that is down has no info
        }
        if (reply != null) {
            for (String line : reply.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    out.put(line.substring(0, colon), line.substring(colon + 1).trim());
                }
            }
        }
        return out;
    }

    @Override
    public List<String> dead() {
        List<String> out = new ArrayList<>();
        names.forEach((node, name) -> {
            if (!node.process().isAlive()) {
                out.add(name + " (port " + node.port() + ") exited with status " + node.process().exitValue()
                        + "; its log: " + node.home().resolve("console.log"));
            }
        });
        return out;
    }

    @Override
    public List<String> newLogProblems() {
        List<String> out = new ArrayList<>();
        names.forEach((node, name) -> {
            Path log = node.home().resolve("console.log");
            long from = logOffsets.getOrDefault(node, 0L);
            try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
                long length = f.length();
                if (length <= from) {
                    return;
                }
                byte[] bytes = new byte[(int) Math.min(length - from, 16 * 1024 * 1024)];
                f.seek(from);
                f.readFully(bytes);
                String text = new String(bytes, StandardCharsets.UTF_8);
                int lastLine = text.lastIndexOf('\n');
                if (lastLine < 0) {
                    return; // wait for a whole line
                }
                logOffsets.put(node, from + text.substring(0, lastLine + 1).getBytes(StandardCharsets.UTF_8).length);
                String[] lines = text.substring(0, lastLine).split("\n");
                for (int i = 0; i < lines.length; i++) {
                    if (PROBLEM.matcher(lines[i]).find()) {
                        out.add(name + ": " + problem(lines, i));
                    }
                }
            } catch (IOException e) {
                // no log yet
            }
        });
        return out;
    }

    /**
     * The problem line, preceded by the log record it belongs to when it is a bare exception line (an exception
     * logged with a record, or one whose stack the JVM left out), and followed by the first frame of Tandem's code
     * in its stack trace: "… java.lang.OutOfMemoryError: Java heap space @ tandem.server.resp.RespRequestDecoder…".
     */
    public static String problem(String[] lines, int i) {
        String line = lines[i].trim();
        String record = "";
        if (!line.matches("^\\d{4}-\\d\\d-\\d\\d .*") && !line.startsWith("Exception in thread") && i > 0
                && lines[i - 1].matches("^\\d{4}-\\d\\d-\\d\\d .*")) {
            record = lines[i - 1].trim() + " / ";
        }
        String frame = "";
        for (int j = i + 1; j < lines.length && j < i + 40 && lines[j].startsWith("\t"); j++) {
            String f = lines[j].trim();
            if (f.startsWith("at tandem.")) {
                frame = " @ " + f.substring(3).replaceAll("\\(.*\\)$", "");
                break;
            }
        }
        return record + line + frame;
    }

    @Override
    public List<String> stopped() {
        List<String> out = new ArrayList<>();
        names.forEach((node, name) -> {
            for (String section : new String[] {"persistence", "replication"}) {
                Map<String, String> info = info(node, section);
                for (Map.Entry<String, String> e : info.entrySet()) {
                    if (e.getKey().endsWith("_status") && e.getValue().equals("stopped")) {
                        out.add(name + ": " + e.getKey() + ":stopped " + info.getOrDefault("apply_stopped_reason",
                                info.getOrDefault("journal_stopped_reason", "")));
                    }
                }
            }
        });
        return out;
    }

    @Override
    public String awaitConvergence() {
        if (journalReplica == null || psyncReplica == null) {
            return "no replicas attached";
        }
        long end = System.nanoTime() + CONVERGENCE.toNanos();
        String last = "";
        while (System.nanoTime() < end) {
            String p = primary.digestOrNull();
            String j = journalReplica.digestOrNull();
            String s = psyncReplica.digestOrNull();
            if (p != null && p.equals(j) && p.equals(s) && p.equals(primary.digestOrNull())) {
                return null;
            }
            last = "primary " + p + ", journal replica " + j + " (sequence " + info(journalReplica, "replication")
                    .get("tandem_journal_sequence") + " of " + info(primary, "replication")
                    .get("tandem_journal_sequence") + "), psync replica " + s + " (offset " + info(psyncReplica,
                    "replication").get("master_repl_offset") + " of " + info(primary, "replication")
                    .get("master_repl_offset") + ")";
            java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L); // poll, bounded by the deadline
        }
        return "after " + CONVERGENCE.toSeconds() + " s: " + last;
    }

    /** Deletes the nodes' homes (after {@link #close}): a run without findings leaves nothing to look at. */
    public void deleteHomes() {
        for (TandemNode n : names.keySet()) {
            try (var walk = Files.walk(n.home())) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                // best effort: the directory is under target/
            }
        }
    }

    /** The homes of the nodes, for a report. */
    public String homes() {
        StringBuilder sb = new StringBuilder();
        names.forEach((node, name) -> sb.append(name).append(": ").append(node.home()).append('\n'));
        return sb.toString();
    }

    @Override
    public void close() {
        for (TandemNode n : names.keySet()) {
            n.close();
        }
        try {
            redis.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
