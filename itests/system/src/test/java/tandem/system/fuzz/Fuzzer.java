package tandem.system.fuzz;

import static tandem.system.fuzz.Commands.b;
import static tandem.system.fuzz.Commands.name;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import tandem.system.fuzz.Finding.Kind;
import tandem.system.fuzz.Step.Segment;
import tandem.system.fuzz.Step.Sent;

/**
 * Replays the generator's steps against Redis and Tandem at once and compares every reply, in episodes: each starts
 * from an empty keyspace (FLUSHALL), runs a few hundred commands, and ends by comparing the two keyspaces. A
 * mismatch of a command that changes state ends its episode early (the keyspaces may differ from there on). The
 * first occurrence of each new finding is shrunk (delta debugging over the episode's commands, replayed on fresh
 * connections after FLUSHALL) to a minimal reproduction.
 */
final class Fuzzer implements AutoCloseable {

    /** Tunables of a run. */
    record Options(Duration replyTimeout, int shrinkTests, Duration shrinkBudget, int minEpisode, int maxEpisode) {

        static Options ci() {
            return new Options(Duration.ofSeconds(20), 60, Duration.ofSeconds(40), 100, 400);
        }

        static Options onDemand() {
            return new Options(Duration.ofSeconds(30), 200, Duration.ofMinutes(10), 100, 1000);
        }
    }

    /** Commands that change nothing on the server, so that a mismatch of theirs leaves the episode going. */
    private static final Set<String> HARMLESS = Set.of("ping", "echo", "time", "info", "command", "role", "dbsize",
            "randomkey", "keys", "scan", "hscan", "sscan", "zscan", "wait", "config", "client");

    private static final long MAX_LCS_CELLS = 4_000_000;
    private static final int MAX_SCAN_CALLS = 20_000;

    private final int redisPort;
    private final Nodes nodes;
    private final Options options;
    private final Report report;
    private final ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "fuzz-exchange");
        t.setDaemon(true);
        return t;
    });
    private Catalogue catalogue;
    private List<String> configParams;
    private Compare compare;
    private Session session;
    /** 2 or 3: what every connection of the run speaks ({@link #run(long, long, long, int)}). */
    private int protocol = 2;
    private Conn redisSide;
    private Conn tandemSide;
    private boolean resetConfig;
    private long writes;
    private java.nio.file.Path dumpDir;

    /** Where the whole episode of a finding that did not reproduce on a replay is written. */
    void dumpTo(java.nio.file.Path dir) {
        this.dumpDir = dir;
    }
    private final List<Sent> history = new ArrayList<>();
    private List<Sent> lastEpisode = List.of();
    private boolean dirty;
    private boolean fatal;
    private long shrinkNanos;
    private Pending pending;

    /** A new finding to shrink once its step is done. */
    private record Pending(Finding finding, List<Sent> prefix, Sent target) {
    }

    Fuzzer(int redisPort, Nodes nodes, Options options, Report report) {
        this.redisPort = redisPort;
        this.nodes = nodes;
        this.options = options;
        this.report = report;
    }

    /** Reads Tandem's catalogue and both servers' configuration parameters, and opens the connections. */
    void init() throws IOException {
        try (Conn t = new Conn("tandem", nodes.primaryPort(), options.replyTimeout());
                Conn r = new Conn("redis", redisPort, options.replyTimeout())) {
            Conn.Result c = t.exchange(List.of(Commands.of("COMMAND"), Commands.of("CONFIG", "GET", "*")));
            Conn.Result rc = r.exchange(List.of(Commands.of("CONFIG", "GET", "*")));
            if (c.end() != Conn.End.OK || rc.end() != Conn.End.OK) {
                throw new IOException("cannot read COMMAND / CONFIG GET: " + c.detail() + rc.detail());
            }
            catalogue = Catalogue.parse(c.replies().get(0));
            configParams = names(c.replies().get(1));
            Set<String> common = new HashSet<>(configParams);
            common.retainAll(names(rc.replies().get(0)));
            compare = new Compare(common);
        }
        report.catalogue = catalogue.fingerprint();
        report.catalogueSize = catalogue.commands.size();
        open();
    }

    /** Opens the session and the two sides' connections in {@link #protocol}. */
    private void open() throws IOException {
        session = new Session(redisPort, nodes.primaryPort(), options.replyTimeout(), protocol);
        redisSide = new Conn("redis", redisPort, options.replyTimeout(), protocol);
        tandemSide = new Conn("tandem", nodes.primaryPort(), options.replyTimeout(), protocol);
    }

    /** The values {@link Gen}'s CONFIG SET may change, set alike on both servers after a CONFIG SET differed. */
    private static final List<List<byte[]>> CONFIG_RESET = List.of(
            Commands.of("CONFIG", "SET", "maxclients", "10000"),
            Commands.of("CONFIG", "SET", "proto-max-bulk-len", "536870912"),
            Commands.of("CONFIG", "SET", "min-replicas-to-write", "0"),
            Commands.of("CONFIG", "SET", "min-replicas-max-lag", "10"));

    private void resetConfig() throws IOException {
        resetConfig = false;
        for (Conn c : new Conn[] {redisSide, tandemSide}) {
            Conn.Result r = c.exchange(CONFIG_RESET);
            report.harnessCommands += CONFIG_RESET.size();
            if (r.end() != Conn.End.OK) {
                c.reconnect();
            }
        }
    }

    Catalogue catalogue() {
        return catalogue;
    }

    private static List<String> names(Reply configGet) {
        List<String> out = new ArrayList<>();
        if (configGet.isArray()) {
            for (int i = 0; i + 1 < configGet.items.size(); i += 2) {
                out.add(configGet.items.get(i).text());
            }
        }
        return out;
    }

    boolean fatal() {
        return fatal;
    }

    /**
     * Runs the stream of {@code seed} until {@code maxCommands} commands were compared, the deadline passed or a
     * fatal finding stopped the run.
     */
    void run(long seed, long maxCommands, long deadlineNanos) {
        run(seed, maxCommands, deadlineNanos, 2);
    }

    /** {@link #run(long, long, long)} with every connection speaking {@code protocol} (2, or 3 after HELLO 3). */
    void run(long seed, long maxCommands, long deadlineNanos, int protocol) {
        try {
            if (protocol != this.protocol) {
                this.protocol = protocol;
                session.close();
                redisSide.close();
                tandemSide.close();
                open();
            }
            report.protocols.add(protocol);
            runSeed(seed, maxCommands, deadlineNanos);
        } catch (IOException | RuntimeException e) {
            fatal = true;
            report.stoppedEarly = true;
            report.stopReason = "the fuzzer could not go on at seed " + seed + ": " + e;
            // the trace names the harness's own bug, where the report has only the message
            System.getLogger("tandem.fuzz").log(System.Logger.Level.ERROR, report.stopReason, e);
        }
    }

    private void runSeed(long seed, long maxCommands, long deadlineNanos) throws IOException {
        report.seeds.add(seed);
        Gen gen = new Gen(seed, catalogue, configParams, protocol);
        Random episodes = new Random(seed * 31 + 7);
        long index = 0;
        while (index < maxCommands && System.nanoTime() < deadlineNanos && !fatal) {
            startEpisode(seed, index);
            report.episodes++;
            int length = options.minEpisode() + episodes.nextInt(options.maxEpisode() - options.minEpisode() + 1);
            int done = 0;
            while (done < length && !dirty && !fatal && index < maxCommands && System.nanoTime() < deadlineNanos) {
                Step step = gen.next();
                run(seed, index, step);
                index += step.commandCount();
                done += step.commandCount();
                if (pending != null) {
                    shrink(pending);
                    pending = null;
                    dirty = true;
                }
                if (resetConfig) {
                    resetConfig();
                }
                checkLogs(seed, index, step);
            }
            if (!dirty && !fatal) {
                compareState(seed, index);
                if (pending != null) {
                    shrink(pending);
                    pending = null;
                    dirty = true;
                }
            }
            checkNodes(seed, index);
        }
    }

    private void startEpisode(long seed, long index) throws IOException {
        if (dirty || session.inMulti[0] || session.inMulti[1]) {
            session.reconnectAll();
        }
        dirty = false;
        lastEpisode = List.copyOf(history); // what the FLUSHALL has to delete, for a report
        history.clear();
        List<byte[]> flush = Commands.of("FLUSHALL");
        // the function libraries are no keys: FLUSHALL leaves them, so each episode starts without them too
        Conn.Result[] res = exchange(session, 0, List.of(flush, Commands.of("FUNCTION", "FLUSH")));
        report.harnessCommands += 2;
        session.flushed();
        if (res[1].end() != Conn.End.OK) {
            tandemFailed(seed, index, 0, flush, res[1], List.of(new Sent(0, flush, 0)));
        } else if (res[0].end() != Conn.End.OK) {
            throw new IOException("redis failed FLUSHALL: " + res[0]);
        } else if (!res[0].replies().get(0).equals(res[1].replies().get(0))) {
            Reply r = res[0].replies().get(0);
            Reply t = res[1].replies().get(0);
            String sig = "mismatch flushall (episode start) | redis " + kind(r) + " | tandem " + kind(t);
            record(new Finding(Kind.MISMATCH, sig, seed, index, "FLUSHALL", r.show(400), t.show(400),
                    "the fuzzer's FLUSHALL that starts an episode", tail(lastEpisode), KnownFindings.match(sig)),
                    null, null);
            dirty = true;
            checkNodes(seed, index);
        }
        lastEpisode = List.of();
    }

    // ---- steps --------------------------------------------------------------------------------------------------

    private void run(long seed, long index, Step step) throws IOException {
        for (Sent s : step.flatten()) {
            report.shape(Gen.shape(s.command()));
        }
        report.commands += step.commandCount();
        if (step.kind() == Step.Kind.RAW) {
            raw(seed, index, step);
            return;
        }
        if (step.kind() == Step.Kind.SCAN_ITERATION) {
            scanIteration(seed, index, step.segments().get(0).commands().get(0));
            return;
        }
        if (step.kind() == Step.Kind.BLOCKING) {
            blocking(seed, index, step);
            return;
        }
        if (step.kind() == Step.Kind.SINGLE && Gen.SINGLE_ONLY.contains(name(step.segments().get(0).commands()
                .get(0))) && tooCostly(step.segments().get(0).commands().get(0))) {
            report.skipped++;
            report.commands--;
            return;
        }
        long i = index;
        for (Segment seg : step.segments()) {
            Conn.Result[] res = exchange(session, seg.conn(), seg.commands());
            if (!process(seed, i, seg, res[0], res[1])) {
                return;
            }
            i += seg.commands().size();
        }
    }

    private Conn.Result[] exchange(Session s, int conn, List<List<byte[]>> cmds) throws IOException {
        Future<Conn.Result> r = pool.submit(() -> s.redis[conn].exchange(cmds));
        Future<Conn.Result> t = pool.submit(() -> s.tandem[conn].exchange(cmds));
        try {
            long wait = options.replyTimeout().toMillis() * 2 + 10_000;
            return new Conn.Result[] {r.get(wait, TimeUnit.MILLISECONDS), t.get(wait, TimeUnit.MILLISECONDS)};
        } catch (Exception e) {
            throw new IOException("exchange did not complete", e);
        }
    }

    /** @return false when the step cannot go on (a connection failed) */
    private boolean process(long seed, long index, Segment seg, Conn.Result rr, Conn.Result tr) throws IOException {
        int conn = seg.conn();
        List<List<byte[]>> cmds = seg.commands();
        long write = ++writes;
        for (int i = 0; i < cmds.size(); i++) {
            List<byte[]> cmd = cmds.get(i);
            Reply r = i < rr.replies().size() ? rr.replies().get(i) : null;
            Reply t = i < tr.replies().size() ? tr.replies().get(i) : null;
            if (t == null && r != null) {
                history.add(new Sent(conn, cmd, write));
                tandemFailed(seed, index + i, conn, cmd, tr, List.copyOf(history));
                return false;
            }
            if (r == null) {
                if (t != null || rr.end() != tr.end()) {
                    history.add(new Sent(conn, cmd, write));
                    record(new Finding(Kind.DROP, "redis " + rr.end() + ", tandem " + (t == null ? tr.end()
                            : "answered") + " " + key(cmd), seed, index + i, Commands.show(cmd), rr.detail(),
                            t == null ? tr.detail() : t.show(300), "", tail(history), null), null, null);
                }
                session.reconnect(conn);
                dirty = true;
                return false;
            }
            List<List<byte[]>> queued = name(cmd).equals("exec") ? session.queued(conn) : null;
            boolean inMulti = session.inMulti[conn];
            Compare.Outcome o = compare.compare(cmd, r, t, queued);
            if (o.rule() == Rule.SORT_NOSORT && o.same() && !r.equals(t) && cmd.size() > 1
                    && !isSet(session.db[conn], cmd.get(1))) {
                o = new Compare.Outcome(false, Rule.SORT_NOSORT); // a list's or sorted set's order is Redis's
            }
            if (o.rule() == Rule.TTL && exactDeadline(conn, cmd)) {
                report.exactDeadlines++;
                if (!r.equals(t)) {
                    o = new Compare.Outcome(false, Rule.TTL); // both were given the same instant
                }
            }
            report.normalised(o.rule());
            session.deadlines(conn, cmd, r, isWrite(cmd));
            session.track(conn, cmd, r);
            history.add(new Sent(conn, cmd, write));
            if (!o.same()) {
                String sig = "mismatch " + key(cmd) + (o.at() != null ? " [" + key(o.at()) + "]" : "") + " | redis "
                        + kind(r) + " | tandem " + kind(t);
                Finding f = new Finding(Kind.MISMATCH, sig, seed, index + i, Commands.show(cmd), r.show(400),
                        t.show(400), o.rule() == Rule.EXACT ? "" : "compared under " + o.rule(), List.of(),
                        KnownFindings.match(sig));
                record(f, List.copyOf(history.subList(0, history.size() - 1)), new Sent(conn, cmd, write));
                if (inMulti || !HARMLESS.contains(name(cmd)) && !isRead(cmd)) {
                    dirty = true;
                }
                if (name(cmd).equals("config") && Commands.arg(cmd, 1).equals("set")) {
                    resetConfig = true; // the two servers may now have different settings
                }
            }
        }
        if (!cmds.isEmpty() && name(cmds.get(cmds.size() - 1)).equals("quit")) {
            boolean redisClosed = session.redis[conn].closedByPeer(Duration.ofSeconds(2));
            boolean tandemClosed = session.tandem[conn].closedByPeer(Duration.ofSeconds(2));
            if (redisClosed != tandemClosed) {
                record(new Finding(Kind.DROP, "after QUIT: redis closed " + redisClosed + ", tandem closed "
                        + tandemClosed, seed, index + cmds.size() - 1, "QUIT", null, null, "", tail(history),
                        null), null, null);
            }
            session.reconnect(conn);
        }
        return true;
    }

    private boolean isRead(List<byte[]> cmd) {
        Catalogue.Cmd c = catalogue.get(name(cmd));
        return c == null || c.flags().contains("readonly"); // an unknown command changes nothing either
    }

    /** Tandem did not answer {@code cmd}: hang, drop, crash or garbage; reconnects, or stops the run. */
    private void tandemFailed(long seed, long index, int conn, List<byte[]> cmd, Conn.Result tr, List<Sent> hist)
            throws IOException {
        dirty = true;
        List<String> dead = nodes.dead();
        if (!dead.isEmpty()) {
            record(new Finding(Kind.CRASH, "crash " + key(cmd), seed, index, Commands.show(cmd), null, null,
                    String.join("\n", dead) + "\n" + tr.detail(), tail(hist), null), null, null);
            fatal = true;
            return;
        }
        Kind kind = switch (tr.end()) {
            case TIMEOUT -> Kind.HANG;
            case CLOSED -> Kind.DROP;
            default -> Kind.PROTOCOL;
        };
        String sig = kind.name().toLowerCase(Locale.ROOT) + " " + key(cmd);
        Finding f = new Finding(kind, sig, seed, index, Commands.show(cmd), null, null, tr.detail(), tail(hist),
                KnownFindings.match(sig));
        record(f, null, null);
        if (kind == Kind.HANG && !answersPing()) {
            fatal = true;
            report.stopReason = "the primary answers no PING after a hang";
            return;
        }
        session.reconnectAll();
    }

    private boolean answersPing() {
        try (Conn c = new Conn("tandem", nodes.primaryPort(), Duration.ofSeconds(5))) {
            Conn.Result r = c.exchange(List.of(Commands.of("PING")));
            return r.end() == Conn.End.OK;
        } catch (IOException e) {
            return false;
        }
    }

    private void record(Finding f, List<Sent> prefix, Sent target) {
        boolean first = report.add(f);
        if (f.kind().fatal) {
            fatal = true;
            report.stoppedEarly = true;
            if (report.stopReason.isEmpty()) {
                report.stopReason = f.kind() + " " + f.signature();
            }
        }
        if (first && f.known() == null && target != null && pending == null) {
            pending = new Pending(f, prefix, target);
        } else if (first && f.known() == null && target == null && !history.isEmpty()) {
            String where = dump(f, history, null);
            if (!where.isEmpty()) {
                report.update(f.withReproduction(concat(f.reproduction(), "(" + where.substring(2) + ")")));
            }
        }
    }

    // ---- raw input ----------------------------------------------------------------------------------------------

    private static final byte[] SENTINEL = b("*2\r\n$4\r\nECHO\r\n$9\r\n__END__!!\r\n");
    private static final String SENTINEL_REPLY = "$9\r\n__END__!!\r\n";
    private static final Duration QUIET = Duration.ofSeconds(1);

    /** What a raw request got: the bytes (less the sentinel's reply), and how the exchange ended. */
    record Raw(String bytes, String end) {
    }

    /**
     * Sends raw bytes on a fresh connection to each server (Redis first) and compares what comes back until the
     * sentinel's reply, the close of the connection, or a quiet second when Redis also went quiet (a request that is
     * not complete yet).
     */
    private void raw(long seed, long index, Step step) throws IOException {
        byte[] request = step.raw();
        byte[] sent = request;
        if (request.length > 0 && request[request.length - 1] == '\n') {
            sent = java.util.Arrays.copyOf(request, request.length + SENTINEL.length);
            System.arraycopy(SENTINEL, 0, sent, request.length, SENTINEL.length);
        }
        Raw r = rawExchange(redisPort, sent, QUIET);
        Raw t = rawExchange(nodes.primaryPort(), sent, r.end().equals("quiet") ? QUIET : options.replyTimeout());
        List<byte[]> parsed = step.segments().isEmpty() ? null : step.segments().get(0).commands().get(0);
        if (parsed != null) {
            history.add(new Sent(0, parsed, ++writes));
        }
        if (!r.equals(t)) {
            String sig = "mismatch raw " + (parsed != null ? "inline " + key(parsed) : "request") + " | redis "
                    + rawKind(r) + " | tandem " + rawKind(t);
            String show = Escape.bytes(request, 300);
            record(new Finding(Kind.MISMATCH, sig, seed, index, "raw bytes \"" + show + "\"", Escape.bytes(b(r.bytes()),
                    300) + " (" + r.end() + ")", Escape.bytes(b(t.bytes()), 300) + " (" + t.end() + ")",
                    "sent on a connection of its own, then an ECHO as the end mark when the bytes end a line",
                    List.of("raw: \"" + show + "\""), KnownFindings.match(sig)), null, null);
            if (parsed == null || !isRead(parsed)) {
                dirty = true;
            }
            if (!nodes.dead().isEmpty()) {
                checkNodes(seed, index);
            }
        }
    }

    private static String rawKind(Raw r) {
        String first = r.bytes().isEmpty() ? "nothing" : r.bytes().split("\r\n", 2)[0];
        first = first.startsWith("-") ? first.replaceAll("'[^']*'", "'…'").replaceAll("\\d+", "N") : first.substring(0,
                Math.min(1, first.length()));
        return (first.length() > 60 ? first.substring(0, 60) : first) + " " + r.end();
    }

    private Raw rawExchange(int port, byte[] sent, Duration quiet) throws IOException {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout((int) quiet.toMillis());
            Future<?> writing = pool.submit(() -> {
                socket.getOutputStream().write(sent);
                socket.getOutputStream().flush();
                return null;
            });
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[16384];
            long end = System.nanoTime() + options.replyTimeout().toNanos();
            String how;
            while (true) {
                int n;
                try {
                    n = socket.getInputStream().read(buf);
                } catch (java.net.SocketTimeoutException e) {
                    how = "quiet";
                    break;
                } catch (java.net.SocketException e) {
                    how = "closed";
                    break;
                }
                if (n < 0) {
                    how = "closed";
                    break;
                }
                got.write(buf, 0, n);
                String sofar = got.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
                if (sofar.endsWith(SENTINEL_REPLY)) {
                    return new Raw(sofar.substring(0, sofar.length() - SENTINEL_REPLY.length()), "open");
                }
                if (System.nanoTime() > end) {
                    how = "endless";
                    break;
                }
            }
            writing.cancel(true);
            return new Raw(got.toString(java.nio.charset.StandardCharsets.ISO_8859_1), how);
        }
    }

    // ---- blocking commands ---------------------------------------------------------------------------------

    /**
     * Connection A's blocking command goes to both servers; once both show it blocked ({@code INFO clients}'s
     * {@code blocked_clients}, or it answered at once), connection B's push serves it; then both replies of each
     * connection are compared. A server that never shows the client blocked is served all the same after 4 s, and
     * its reply tells.
     */
    private void blocking(long seed, long index, Step step) throws IOException {
        Segment wait = step.segments().get(0);
        Segment serve = step.segments().get(1);
        Future<Conn.Result> r = pool.submit(() -> session.redis[0].exchange(wait.commands()));
        Future<Conn.Result> t = pool.submit(() -> session.tandem[0].exchange(wait.commands()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        while (System.nanoTime() < deadline && !((r.isDone() || blocked(redisSide))
                && (t.isDone() || blocked(tandemSide)))) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        report.harnessCommands++;
        if (!r.isDone() && !t.isDone()) {
            report.blockingServed++; // blocked on both: the push serves it
        }
        Conn.Result[] served = exchange(session, serve.conn(), serve.commands());
        Conn.Result[] waited;
        try {
            long bound = options.replyTimeout().toMillis() * 2 + 10_000;
            waited = new Conn.Result[] {r.get(bound, TimeUnit.MILLISECONDS), t.get(bound, TimeUnit.MILLISECONDS)};
        } catch (Exception e) {
            throw new IOException("a blocking command did not complete", e);
        }
        if (process(seed, index, wait, waited[0], waited[1])) {
            process(seed, index + 1, serve, served[0], served[1]);
        }
    }

    /** @return whether the server behind {@code control} has a client blocked now */
    private static boolean blocked(Conn control) {
        Conn.Result res = control.exchange(List.of(Commands.of("INFO", "clients")));
        if (res.end() != Conn.End.OK || !res.replies().get(0).isBulk() && res.replies().get(0).type != '=') {
            return false;
        }
        String info = res.replies().get(0).text();
        return info != null && info.contains("blocked_clients:") && !info.contains("blocked_clients:0");
    }

    // ---- scans --------------------------------------------------------------------------------------------------

    /** The command that counts what a scan iterates over (a key of another type answers an error: no count). */
    private static List<byte[]> scanSize(List<byte[]> cmd) {
        return switch (name(cmd)) {
            case "hscan" -> List.of(b("HLEN"), cmd.get(1));
            case "sscan" -> List.of(b("SCARD"), cmd.get(1));
            case "zscan" -> List.of(b("ZCARD"), cmd.get(1));
            default -> Commands.of("DBSIZE");
        };
    }

    private void scanIteration(long seed, long index, List<byte[]> cmd) throws IOException {
        boolean pairs = Compare.pairs(cmd);
        int at = Compare.cursorAt(cmd);
        // Tandem's COUNT is the number of keys examined, Redis' about ten buckets: allow one call per element
        Conn.Result size = redisSide.exchange(List.of(scanSize(cmd)));
        Long n = size.end() == Conn.End.OK ? size.replies().get(0).asLong() : null;
        int bound = (int) Math.min(Integer.MAX_VALUE, 2 * (n == null ? 0 : n) + MAX_SCAN_CALLS);
        Future<Object> r = pool.submit(() -> iterate(session.redis[0], cmd, at, pairs, bound));
        Future<Object> t = pool.submit(() -> iterate(session.tandem[0], cmd, at, pairs, bound));
        Object rr;
        Object tt;
        try {
            long wait = options.replyTimeout().toMillis() * 4 + 60_000;
            rr = r.get(wait, TimeUnit.MILLISECONDS);
            tt = t.get(wait, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IOException("scan iteration did not complete", e);
        }
        history.add(new Sent(0, cmd, ++writes));
        if (tt instanceof Conn.Result failed) {
            tandemFailed(seed, index, 0, cmd, failed, List.copyOf(history));
            return;
        }
        if (rr instanceof Conn.Result failed) {
            throw new IOException("redis failed a scan: " + failed);
        }
        if (rr == null) {
            return; // Redis did not end it within the bound either (a large keyspace, COUNT 1)
        }
        if (tt == null) {
            record(new Finding(Kind.ENDLESS_SCAN, "endless " + key(cmd), seed, index, Commands.show(cmd), null,
                    null, "no cursor 0 after " + bound + " calls (" + n + " keys or fields)", tail(history), null),
                    null, null);
            return;
        }
        Reply a = (Reply) rr;
        Reply b = (Reply) tt;
        report.normalised(Rule.SCAN_UNION);
        if (!a.equals(b)) {
            String sig = "mismatch " + key(cmd) + " iterated | redis " + kind(a) + " | tandem " + kind(b);
            record(new Finding(Kind.MISMATCH, sig, seed, index, Commands.show(cmd), a.show(400), b.show(400),
                    "compared under SCAN_UNION", List.of(), KnownFindings.match(sig)), null, null);
        }
    }

    /**
     * @return the sorted union of a whole iteration (an array), the error or odd reply that ended it, null when it
     *         did not end, or the {@link Conn.Result} of a failed exchange
     */
    private Object iterate(Conn c, List<byte[]> cmd, int at, boolean pairs, int bound) {
        byte[] cursor = b("0");
        Set<Reply> union = new TreeSet<>(Comparator.comparing(Reply::bytes, Arrays::compare));
        for (int calls = 0; calls < bound; calls++) {
            List<byte[]> c2 = new ArrayList<>(cmd);
            c2.set(at, cursor);
            Conn.Result res = c.exchange(List.of(c2));
            if (calls > 0) {
                synchronized (report) {
                    report.harnessCommands++;
                }
            }
            if (res.end() != Conn.End.OK) {
                return res;
            }
            Reply r = res.replies().get(0);
            if (r.isError() || !r.isArray() || r.items.size() != 2 || !r.items.get(1).isArray()
                    || !r.items.get(0).isBulk()) {
                return r;
            }
            List<Reply> els = r.items.get(1).items;
            for (int i = 0; i < els.size(); i += pairs ? 2 : 1) {
                union.add(pairs && i + 1 < els.size() ? Reply.array(els.subList(i, i + 2)) : els.get(i));
            }
            cursor = r.items.get(0).data;
            if (r.items.get(0).text().equals("0")) {
                List<Reply> flat = new ArrayList<>();
                for (Reply e : union) {
                    if (e.isArray()) {
                        flat.addAll(e.items);
                    } else {
                        flat.add(e);
                    }
                }
                return Reply.array(flat);
            }
        }
        return null;
    }

    /** EXPIRETIME or PEXPIRETIME of a key whose deadline both servers were given as the same instant. */
    private boolean exactDeadline(int conn, List<byte[]> cmd) {
        String n = name(cmd);
        return (n.equals("expiretime") || n.equals("pexpiretime")) && cmd.size() == 2
                && session.absoluteDeadline(conn, cmd.get(1));
    }

    /** @return whether the catalogue flags {@code cmd} as a write (an unknown command counts as one) */
    private boolean isWrite(List<byte[]> cmd) {
        Catalogue.Cmd c = catalogue.commands.get(name(cmd));
        return c == null || c.isWrite();
    }

    /**
     * Whether {@code key} of database {@code db} holds a set, as Redis says: only a set's {@code SORT … BY nosort}
     * comes in an order of Redis' choosing (a list's is its order, a sorted set's its score order).
     */
    private boolean isSet(int db, byte[] key) throws IOException {
        Conn.Result res = redisSide.exchange(List.of(Commands.of("SELECT", Integer.toString(db)),
                List.of(b("TYPE"), key), Commands.of("SELECT", "0")));
        report.harnessCommands += 3;
        if (res.end() != Conn.End.OK) {
            redisSide.reconnect();
            return true; // unknown: the comparison stands
        }
        Reply type = res.replies().get(1);
        // asked after the whole batch: a later command of it may have deleted the key (unknown: the comparison
        // stands)
        return "set".equals(type.text()) || "none".equals(type.text());
    }

    /** Whether an LCS would need more than {@link #MAX_LCS_CELLS} cells, from the lengths Redis reports. */
    private boolean tooCostly(List<byte[]> lcs) throws IOException {
        if (lcs.size() < 3) {
            return false;
        }
        Conn.Result res = redisSide.exchange(List.of(List.of(b("STRLEN"), lcs.get(1)), List.of(b("STRLEN"),
                lcs.get(2))));
        if (res.end() != Conn.End.OK) {
            redisSide.reconnect();
            return true;
        }
        Long a = res.replies().get(0).asLong();
        Long c = res.replies().get(1).asLong();
        return a != null && c != null && (a + 1) * (c + 1) > MAX_LCS_CELLS;
    }

    // ---- state --------------------------------------------------------------------------------------------------

    /** The databases the generator works in ({@code Gen#database}), whose keyspaces an episode's end compares. */
    static final int DATABASES = 4;

    /**
     * Compares the two keyspaces, database by database: the keys, then each key's type, value and expiry. The
     * connection is left in database 0 on both.
     */
    private void compareState(long seed, long index) throws IOException {
        for (int db = DATABASES - 1; db >= 0; db--) {
            List<byte[]> select = Commands.of("SELECT", Integer.toString(db));
            Conn.Result[] res = exchange(session, 0, List.of(select));
            report.harnessCommands++;
            if (!stateReplies(seed, index, List.of(select), res) || !compareDatabase(seed, index)) {
                return;
            }
        }
    }

    /** Compares the keyspaces of the database the connection is in; false after a difference. */
    private boolean compareDatabase(long seed, long index) throws IOException {
        List<byte[]> keys = Commands.of("KEYS", "*");
        Conn.Result[] res = exchange(session, 0, List.of(keys));
        report.harnessCommands++;
        if (!stateReplies(seed, index, List.of(keys), res)) {
            return false;
        }
        Reply rk = res[0].replies().get(0);
        if (!rk.isArray()) {
            return true;
        }
        List<List<byte[]>> types = new ArrayList<>();
        for (Reply k : rk.items.subList(0, Math.min(rk.items.size(), 200))) {
            types.add(List.of(b("TYPE"), k.data));
        }
        if (types.isEmpty()) {
            return true;
        }
        res = exchange(session, 0, types);
        report.harnessCommands += types.size();
        if (!stateReplies(seed, index, types, res)) {
            return false;
        }
        List<List<byte[]>> values = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            byte[] k = types.get(i).get(1);
            String type = res[0].replies().get(i).text();
            switch (type == null ? "" : type) {
                case "string" -> values.add(List.of(b("GET"), k));
                case "hash" -> values.add(List.of(b("HGETALL"), k));
                case "list" -> values.add(List.of(b("LRANGE"), k, b("0"), b("-1")));
                case "set" -> values.add(List.of(b("SMEMBERS"), k)); // compared sorted (Rule.SORTED)
                case "zset" -> values.add(List.of(b("ZRANGE"), k, b("0"), b("-1"), b("WITHSCORES")));
                // every entry, the groups, their pending entries and consumers (times masked, Rule.STREAM_TIMES)
                case "stream" -> values.add(List.of(b("XINFO"), b("STREAM"), k, b("FULL"), b("COUNT"), b("0")));
                default -> {
                }
            }
            values.add(List.of(b("PEXPIRETIME"), k));
        }
        // a few at a time: values may be megabytes each, and the fuzzer's heap is bounded
        for (int from = 0; from < values.size(); from += 8) {
            List<List<byte[]>> chunk = values.subList(from, Math.min(values.size(), from + 8));
            res = exchange(session, 0, chunk);
            report.harnessCommands += chunk.size();
            if (!stateReplies(seed, index, chunk, res)) {
                return false;
            }
        }
        return true;
    }

    /** @return whether every reply agreed (a difference is a STATE finding) */
    private boolean stateReplies(long seed, long index, List<List<byte[]>> cmds, Conn.Result[] res)
            throws IOException {
        for (int i = 0; i < cmds.size(); i++) {
            List<byte[]> cmd = cmds.get(i);
            if (i >= res[1].replies().size()) {
                tandemFailed(seed, index, 0, cmd, res[1], List.copyOf(history));
                return false;
            }
            if (i >= res[0].replies().size()) {
                throw new IOException("redis failed the state comparison: " + res[0].detail());
            }
            Reply r = res[0].replies().get(i);
            Reply t = res[1].replies().get(i);
            if (!compare.compare(cmd, r, t, null).same()) {
                String sig = "state " + key(cmd) + " | redis " + kind(r) + " | tandem " + kind(t);
                record(new Finding(Kind.STATE, sig, seed, index, Commands.show(cmd), r.show(400), t.show(400),
                        "the keyspaces differ after an episode whose replies all agreed", List.of(),
                        KnownFindings.match(sig)), List.copyOf(history), new Sent(0, cmd, ++writes));
                dirty = true;
                return false;
            }
        }
        return true;
    }

    // ---- nodes --------------------------------------------------------------------------------------------------

    private void checkLogs(long seed, long index, Step step) {
        for (String line : nodes.newLogProblems()) {
            String sig = "log " + line.replaceAll("^\\S+ ", "").replaceAll("\\d{4}-\\d\\d-\\d\\d \\S+\\s+", "")
                    .replaceAll("\\d+", "N").replaceAll("'[^']*'", "'…'").replaceAll("\\s+", " ");
            if (sig.length() > 240) {
                int at = sig.indexOf(" @ ");
                sig = at > 0 ? sig.substring(0, Math.min(at, 160)) + sig.substring(at) : sig.substring(0, 240);
            }
            StringBuilder cmds = new StringBuilder();
            for (Sent s : step.flatten()) {
                cmds.append(s.conn() == 0 ? "A: " : "B: ").append(Commands.show(s.command())).append('\n');
            }
            record(new Finding(Kind.LOG, sig, seed, index, null, null, null, line + "\nthe step:\n" + cmds,
                    tail(history), KnownFindings.match(sig)), null, null);
        }
    }

    private void checkNodes(long seed, long index) {
        for (String d : nodes.dead()) {
            record(new Finding(Kind.CRASH, "crash " + d.replaceAll("\\d+", "N"), seed, index, null, null, null, d,
                    tail(history), null), null, null);
        }
        for (String s : nodes.stopped()) {
            String sig = "stopped " + s.replaceAll("\\d+", "N").replaceAll(":.*", "");
            record(new Finding(Kind.STOPPED, sig, seed, index, null, null, null, s, tail(history),
                    KnownFindings.match(sig)), null, null);
        }
    }

    /** Waits for the replicas and compares their digests with the primary's; a last look at the nodes. */
    void finish() {
        if (!nodes.dead().isEmpty()) {
            checkNodes(-1, -1);
            report.convergence = "not checked: a node died";
            return;
        }
        checkLogs(-1, -1, new Step(Step.Kind.HARNESS, List.of()));
        String differs = nodes.awaitConvergence();
        report.convergence = differs == null ? "equal on the primary, the psync replica and the journal replica"
                : "DIFFERENT: " + differs;
        if (differs != null) {
            // after a stopped apply the digests must differ: the finding is the stop, which names its entry
            KnownFindings.Entry stop = report.findings.values().stream().filter(g -> g.first.kind() == Kind.STOPPED)
                    .map(g -> g.first.known()).filter(java.util.Objects::nonNull).findFirst().orElse(null);
            record(new Finding(Kind.DIGEST, "digest differs" + (stop != null ? " after a stopped apply" : ""), -1, -1,
                    null, null, null, differs, List.of(), stop), null, null);
        }
        checkNodes(-1, -1);
        checkLogs(-1, -1, new Step(Step.Kind.HARNESS, List.of()));
    }

    // ---- shrinking ----------------------------------------------------------------------------------------------

    private void shrink(Pending p) {
        long started = System.nanoTime();
        if (shrinkNanos > options.shrinkBudget().toNanos()) {
            report.update(p.finding().withReproduction(render(tailSent(p.prefix()), p.target(), null,
                    "(not shrunk: the run's shrinking budget is spent; the episode's last commands)")));
            return;
        }
        int[] tests = {0};
        Reply[] last = new Reply[2];
        java.util.function.Predicate<List<Sent>> reproduces = prefix -> {
            tests[0]++;
            try {
                Reply[] got = replay(prefix, p.target(), p.finding().signature());
                if (got != null) {
                    last[0] = got[0];
                    last[1] = got[1];
                    return true;
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        };
        List<Sent> prefix = p.prefix();
        String note = null;
        if (reproduces.test(List.of())) {
            prefix = List.of();
        } else if (!reproduces.test(prefix)) {
            note = "(did not reproduce on a replay: the episode's last commands" + dump(p) + ")";
            prefix = tailSent(prefix);
        } else {
            prefix = ddmin(prefix, reproduces, tests);
            if (tests[0] >= options.shrinkTests()) {
                note = "(shrinking stopped after " + tests[0] + " replays)";
            }
        }
        shrinkNanos += System.nanoTime() - started;
        report.update(p.finding().withReproduction(render(prefix, p.target(), last[0] == null ? null : last,
                note)));
    }

    private static List<String> concat(List<String> a, String b) {
        List<String> out = new ArrayList<>(a);
        out.add(b);
        return out;
    }

    private String dump(Pending p) {
        return dump(p.finding(), p.prefix(), p.target());
    }

    /** Writes the whole episode of a finding (one command a line, writes separated) to the dump directory. */
    private String dump(Finding f, List<Sent> prefix, Sent target) {
        if (dumpDir == null) {
            return "";
        }
        try {
            java.nio.file.Files.createDirectories(dumpDir);
            java.nio.file.Path file = dumpDir.resolve("seed" + f.seed() + "-" + f.index() + ".txt");
            StringBuilder sb = new StringBuilder("# " + f.signature() + "\n");
            long write = -1;
            for (Sent s : prefix) {
                if (s.write() != write) {
                    sb.append("--\n");
                    write = s.write();
                }
                sb.append(line(s)).append('\n');
            }
            if (target != null) {
                sb.append("--\n").append(line(target)).append("    <- differs\n");
            }
            java.nio.file.Files.writeString(file, sb);
            return "; the whole episode, one write per block: " + file;
        } catch (IOException e) {
            return "";
        }
    }

    private List<Sent> ddmin(List<Sent> input, java.util.function.Predicate<List<Sent>> test, int[] tests) {
        List<Sent> current = input;
        int n = 2;
        while (current.size() >= 1 && tests[0] < options.shrinkTests()
                && shrinkNanos < options.shrinkBudget().toNanos()) {
            int chunk = (current.size() + n - 1) / n;
            boolean reduced = false;
            for (int start = 0; start < current.size() && tests[0] < options.shrinkTests(); start += chunk) {
                List<Sent> complement = new ArrayList<>(current.subList(0, start));
                complement.addAll(current.subList(Math.min(current.size(), start + chunk), current.size()));
                if (test.test(complement)) {
                    current = complement;
                    n = Math.max(n - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                if (n >= current.size()) {
                    break;
                }
                n = Math.min(current.size(), n * 2);
            }
        }
        return current;
    }

    /**
     * Replays {@code prefix} then {@code target} on fresh connections after FLUSHALL.
     *
     * @return Redis' and Tandem's replies to the target when its finding has {@code signature}, else null
     */
    private Reply[] replay(List<Sent> prefix, Sent target, String signature) throws IOException {
        List<Sent> all = new ArrayList<>(prefix);
        all.add(target);
        try (Session s = new Session(redisPort, nodes.primaryPort(), options.replyTimeout(), protocol)) {
            Conn.Result[] res = exchange(s, 0, List.of(Commands.of("FLUSHALL"), Commands.of("FUNCTION", "FLUSH")));
            if (res[0].end() != Conn.End.OK || res[1].end() != Conn.End.OK) {
                return null;
            }
            int i = 0;
            while (i < all.size()) {
                int conn = all.get(i).conn();
                long write = all.get(i).write();
                int from = i;
                List<List<byte[]>> seg = new ArrayList<>();
                while (i < all.size() && all.get(i).conn() == conn && all.get(i).write() == write) {
                    seg.add(all.get(i).command());
                    i++;
                }
                res = exchange(s, conn, seg);
                if (res[0].end() != Conn.End.OK || res[1].end() != Conn.End.OK) {
                    return null;
                }
                for (int j = 0; j < seg.size(); j++) {
                    List<byte[]> cmd = seg.get(j);
                    if (from + j == all.size() - 1) {
                        return verdict(s, conn, cmd, res[0].replies().get(j), res[1].replies().get(j), signature);
                    }
                    s.track(conn, cmd, res[0].replies().get(j));
                }
                if (name(seg.get(seg.size() - 1)).equals("quit")) {
                    s.reconnect(conn); // as the run did
                }
            }
            return null;
        }
    }

    private Reply[] verdict(Session s, int conn, List<byte[]> cmd, Reply r, Reply t, String signature)
            throws IOException {
        List<List<byte[]>> queued = name(cmd).equals("exec") ? s.queued(conn) : null;
        Compare.Outcome o = compare.compare(cmd, r, t, queued);
        if (o.rule() == Rule.SORT_NOSORT && o.same() && !r.equals(t) && cmd.size() > 1
                && !isSet(s.db[conn], cmd.get(1))) {
            o = new Compare.Outcome(false, Rule.SORT_NOSORT);
        }
        if (o.same()) {
            return null;
        }
        String prefixOf = signature.startsWith("state ") ? "state " : "mismatch ";
        String sig = prefixOf + key(cmd) + (o.at() != null && prefixOf.equals("mismatch ") ? " [" + key(o.at())
                + "]" : "") + " | redis " + kind(r) + " | tandem " + kind(t);
        return sig.equals(signature) ? new Reply[] {r, t} : null;
    }

    private static List<String> render(List<Sent> prefix, Sent target, Reply[] replies, String note) {
        List<String> out = new ArrayList<>();
        if (note != null) {
            out.add(note);
        }
        for (Sent s : prefix) {
            out.add(line(s));
        }
        out.add(line(target) + "    <- differs");
        if (replies != null) {
            out.add("   redis:  " + replies[0].show(300));
            out.add("   tandem: " + replies[1].show(300));
        }
        return out;
    }

    private static String line(Sent s) {
        return (s.conn() == 0 ? "A: " : "B: ") + Commands.show(s.command());
    }

    private static List<Sent> tailSent(List<Sent> h) {
        return h.size() <= 30 ? h : h.subList(h.size() - 30, h.size());
    }

    private static List<String> tail(List<Sent> h) {
        List<String> out = new ArrayList<>();
        if (h.size() > 30) {
            out.add("(the episode's last 30 of " + h.size() + " commands)");
        }
        for (Sent s : tailSent(h)) {
            out.add(line(s));
        }
        return out;
    }

    // ---- signatures ---------------------------------------------------------------------------------------------

    /** The command's name, with the subcommand for containers. */
    private String key(List<byte[]> cmd) {
        String n = name(cmd);
        Catalogue.Cmd c = catalogue.get(n);
        if (c != null && !c.subcommands().isEmpty() && cmd.size() > 1) {
            String sub = Commands.arg(cmd, 1);
            return n + " " + (c.subcommands().containsKey(sub) ? sub : "?");
        }
        return c == null ? "(unknown command)" : n;
    }

    /** The kind of a reply for a signature: its type, or an error's text with numbers and quoted parts blanked. */
    static String kind(Reply r) {
        if (!r.isError()) {
            return Compare.type(r);
        }
        String e = r.text().replaceAll("'[^']*'", "'…'").replaceAll("\\d+", "N");
        return "-" + (e.length() > 70 ? e.substring(0, 70) : e);
    }

    @Override
    public void close() {
        if (session != null) {
            session.close();
        }
        if (redisSide != null) {
            redisSide.close();
        }
        if (tandemSide != null) {
            tandemSide.close();
        }
        pool.shutdownNow();
    }

    /** For tests of the harness: the distinct signatures so far. */
    Set<String> signatures() {
        return new LinkedHashSet<>(report.findings.keySet());
    }
}
