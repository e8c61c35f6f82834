package tandem.system;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import tandem.testsupport.Await;

/**
 * One Tandem node as a real process: the built distribution's {@code bin/tandem}, with its own home, on a free port,
 * headless (standard input is {@code /dev/null}), with a bounded heap. Later issues start several of these to form
 * a primary and replicas.
 */
public final class TandemNode implements AutoCloseable {

    /**
     * The heap of every node a test starts; the suite runs several JVMs on two cores. A node out of memory exits
     * (as bin/tandem's default does) rather than serve on half-broken. The long on-demand checker, whose keyspace
     * grows to hundreds of thousands of keys, raises the heap with {@code -Dtandem.node.heap=512m}.
     */
    public static final String NODE_JAVA_OPTS = "-Xmx" + System.getProperty("tandem.node.heap", "160m")
            + " -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError";

    public static final Duration START_DEADLINE = Duration.ofSeconds(30);

    private final Path home;
    private final Path dist;
    private final Map<String, String> env;
    private final List<String> extraArgs;
    /** The address the node listens on and is reached at: loopback, or its network namespace's own address. */
    private final String host;
    /** What runs {@code bin/tandem}: nothing, or {@code ip netns exec <namespace>}. */
    private final List<String> launcher;
    private int port;
    /** How the test reaches the node's RESP port when it serves TLS only; null: plain text. */
    private TlsClient tls;
    /** The health endpoint's port: each node gets its own, since several run on one machine (default 9379). */
    private final int healthPort;
    private Process process;

    private TandemNode(Path home, int port, Map<String, String> env, List<String> extraArgs, String host,
            List<String> launcher) throws IOException {
        this.home = home;
        this.host = host;
        this.launcher = launcher;
        this.port = port;
        this.env = env;
        this.extraArgs = extraArgs;
        this.dist = dist();
        this.healthPort = extraArgs.stream().anyMatch(a -> a.startsWith("tandem.health:port=")) ? -1 : freePort();
    }

    /** @return the port of the node's health endpoint ({@code http://<host>:<port>/health}) */
    public int healthPort() {
        return healthPort;
    }

    /** A reply of the health endpoint. */
    public record HttpReply(int status, String contentType, String body) {
    }

    /** GETs {@code path} from the node's health endpoint; throws while nothing listens there. */
    public HttpReply http(String path) throws IOException {
        try {
            java.net.http.HttpResponse<String> r = HTTP.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://" + host + ":" + healthPort + path)).timeout(Duration.ofSeconds(10))
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            return new HttpReply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** The distribution under test, built by the reactor before this module. */
    public static Path dist() {
        Path dist = Path.of(System.getProperty("tandem.dist", "../../distribution/target/tandem")).toAbsolutePath()
                .normalize();
        if (!Files.isExecutable(dist.resolve("bin/tandem"))) {
            throw new IllegalStateException(dist + "/bin/tandem is missing: build the distribution first");
        }
        return dist;
    }

    /** A fresh home directory under the module's target directory. */
    public static Path newHome(String name) throws IOException {
        Path base = Path.of(System.getProperty("tandem.test.dir", "target/nodes")).toAbsolutePath();
        Files.createDirectories(base);
        return Files.createTempDirectory(base, name + "-");
    }

    /**
     * Starts a node with a fresh home ({@link #newHome}) on a free port and waits until it serves its keyspace.
     *
     * @param extraArgs more arguments for {@code bin/tandem} ({@code --config PID:KEY=VALUE}…)
     */
    public static TandemNode start(String name, String... extraArgs) throws IOException {
        return start(newHome(name), freePort(), Map.of(), extraArgs);
    }

    /**
     * Starts a node on {@code home} (created from the defaults when empty) and waits until it serves its keyspace
     * (the journal replayed into the store).
     *
     * @param env       environment variables for {@code bin/tandem} ({@code JAVA_HOME}…)
     * @param extraArgs more arguments for {@code bin/tandem} ({@code --config PID:KEY=VALUE}…)
     */
    public static TandemNode start(Path home, int port, Map<String, String> env, String... extraArgs)
            throws IOException {
        TandemNode node = new TandemNode(home, port, env, List.of(extraArgs), "127.0.0.1", List.of());
        node.launch();
        return node;
    }

    /**
     * Starts a node with a fresh home inside network namespace {@code host}, listening (RESP, health, replication,
     * the failover group's Raft port) on that namespace's address only, so that the namespace's routes can cut it off
     * from the other nodes while the test still reaches it.
     */
    public static TandemNode startIn(Netns.Host host, String name, String... extraArgs) throws IOException {
        List<String> args = new ArrayList<>(List.of("--config", "tandem.server:bind=" + host.ip(), "--config",
                "tandem.health:bind=" + host.ip(), "--config", "tandem.replication:bind=" + host.ip(), "--config",
                "tandem.failover:raft.bind=" + host.ip()));
        args.addAll(List.of(extraArgs));
        TandemNode node = new TandemNode(newHome(name), freePort(), Map.of(), args, host.ip(), host.exec());
        node.launch();
        return node;
    }

    /**
     * Starts a node with a fresh home that serves RESP over TLS only (its plain port closed), on a free port which
     * {@link #port()} names and every helper of this class reaches through {@code client}; the node's certificate,
     * key and CA come from {@code extraArgs} ({@code --config tandem.tls:…}).
     */
    public static TandemNode startTls(String name, TlsClient client, String... extraArgs) throws IOException {
        int port = freePort();
        List<String> args = new ArrayList<>(List.of(extraArgs));
        args.addAll(List.of("--config", "tandem.server:port=-1", "--config", "tandem.server:tls.port=" + port));
        TandemNode node = new TandemNode(newHome(name), port, Map.of(), args, "127.0.0.1", List.of());
        node.tls = client;
        node.launch();
        return node;
    }

    /** @return how this node is reached over TLS, or null when it is reached in plain text */
    public TlsClient tls() {
        return tls;
    }

    /** Sends {@code request} to this node (over TLS when it serves only that); null on error. */
    public String tryExchange(String request) {
        if (tls == null) {
            return tryExchange(host, port, request);
        }
        try {
            return tls.exchange(host, port, request, Duration.ofMillis(300));
        } catch (IOException e) {
            return null;
        }
    }

    private void launch() throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(dist.resolve("bin/tandem").toString(), "--home", home.toString(), "--port",
                Integer.toString(port), "--no-console"));
        if (healthPort > 0) {
            command.addAll(List.of("--config", "tandem.health:port=" + healthPort));
        }
        command.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("TANDEM_JAVA_OPTS", NODE_JAVA_OPTS);
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectErrorStream(true);
        Files.createDirectories(home);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("console.log").toFile()));
        process = pb.start();
        try {
            Await.until("node on port " + port + " answers PING", START_DEADLINE, () -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("node exited with " + process.exitValue() + "\n" + log());
                }
                return "+PONG\r\n".equals(tryExchange("PING\r\n"));
            });
            // PING is answered as soon as the listener is up; a keyspace command waits until the store is bound
            // and the journal replayed into it, which is when the node holds its data again (or until the node
            // has given up waiting for a store or journal that cannot start, which a test may intend)
            Await.until("node on port " + port + " has its store", START_DEADLINE, () -> {
                String reply = tryExchange("DBSIZE\r\n");
                return reply != null && (reply.startsWith(":") || reply.contains("is not active"));
            });
        } catch (RuntimeException | AssertionError e) {
            process.destroyForcibly(); // never leave a node behind: the caller has no handle to close yet
            throw e;
        }
    }

    /** Restarts a stopped or killed node on the same home and port. */
    public void restart() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("node is still running");
        }
        launch();
    }

    public int port() {
        return port;
    }

    /** @return the address the node is reached at: {@code 127.0.0.1}, or its network namespace's address */
    public String host() {
        return host;
    }

    /** The port the harness expects the node on after a test changed it. */
    public void port(int newPort) {
        this.port = newPort;
    }

    /**
     * @return the shell command that authorizes this node's replication key on a primary: its authorizing line with
     *         the key quoted (Gogo reads a word that starts with {@code //} as a comment, and a base64 key may)
     * @throws IOException when the node has no key (it exited before creating one)
     */
    public String authAllowCommand() throws IOException {
        Path key = home().resolve("etc/replication_ed25519.pub");
        // the key is created when tandem.auth starts, which may come after the node first answers
        Await.until("node " + port + " has its replication key", START_DEADLINE,
                () -> Files.exists(key) || !process.isAlive());
        String[] f = Files.readString(key).trim().split(" ", 3);
        return "auth:allow " + f[0] + " \"" + f[1] + "\"" + (f.length > 2 ? " " + f[2] : "");
    }

    public Path home() {
        return home;
    }

    public Process process() {
        return process;
    }

    private volatile boolean bindingFailuresExpected;

    /** Everything the node printed so far. */
    public String log() {
        try {
            return Files.readString(home.resolve("console.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Runs a Gogo command through {@code bin/tandem shell --home … -c …}. */
    public Result shell(String gogoCommand) throws IOException {
        return run(Duration.ofSeconds(30), dist.resolve("bin/tandem").toString(), "shell", "--home",
                home.toString(), "-c", gogoCommand);
    }

    /** {@code store:digest}: SHA-256 over the node's keyspace, 64 hex digits; the node must be ready. */
    public String digest() throws IOException {
        Result r = shell("store:digest");
        String hex = r.out().trim();
        if (r.exit() != 0 || !hex.matches("[0-9a-f]{64}")) {
            throw new AssertionError("store:digest answered (exit " + r.exit() + ") " + hex + r.err());
        }
        return hex;
    }

    /** {@code store:digest}, or null when it cannot be read now (the node is down or not ready): for polling. */
    public String digestOrNull() {
        try {
            return digest();
        } catch (IOException | AssertionError e) {
            return null;
        }
    }

    /**
     * Deletes directories of the home ({@code data/store}, say; those that exist) with all they hold, as a disk that
     * was lost would; the node is stopped.
     */
    public void delete(String... dirs) throws IOException {
        for (String dir : dirs) {
            Path root = home.resolve(dir);
            if (Files.exists(root)) {
                try (var walk = Files.walk(root)) {
                    for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
    }

    /** @return the id of the active bundle named {@code name} (its Bundle-Name, as {@code lb} lists it) */
    public long bundleId(String name) throws IOException {
        Result lb = shell("lb");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\s*(\\d+)\\|Active\\s*\\|\\s*\\d+\\|"
                + java.util.regex.Pattern.quote(name) + " ").matcher(lb.out());
        if (!m.find()) {
            throw new AssertionError(name + " is not an active bundle in\n" + lb.out());
        }
        return Long.parseLong(m.group(1));
    }

    /** @return the value of {@code name} in an INFO reply */
    public static String infoField(String info, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + name + ":(\\S+)").matcher(info);
        if (!m.find()) {
            throw new AssertionError(name + " is not in\n" + info);
        }
        return m.group(1);
    }

    /** {@code INFO section} as a map; empty when the node does not answer (it is down). */
    public java.util.Map<String, String> info(String section) {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        try {
            for (String line : redisCli("INFO", section).out().split("\r?\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    out.put(line.substring(0, colon), line.substring(colon + 1).trim());
                }
            }
        } catch (IOException e) {
            // a node that is down has no info
        }
        return out;
    }

    /** One counter of {@code INFO stats}; -1 when the node does not answer or has no such field. */
    public long stat(String name) {
        return Long.parseLong(info("stats").getOrDefault(name, "-1"));
    }

    /** Runs {@code redis-cli -h <host> -p <port> args…}. */
    public Result redisCli(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", host, "-p", Integer.toString(port)));
        if (tls != null) {
            command.addAll(tls.redisCliArgs());
        }
        command.addAll(Arrays.asList(args));
        return run(Duration.ofSeconds(30), command.toArray(new String[0]));
    }

    /** Stops the node with SIGTERM and waits for it to exit. */
    public int stop() {
        process.destroy();
        return waitForExit(Duration.ofSeconds(30));
    }

    /** Kills the node with SIGKILL ({@code kill -9}) and waits for it to be gone. */
    public int kill() {
        process.destroyForcibly();
        return waitForExit(Duration.ofSeconds(30));
    }

    private int waitForExit(Duration deadline) {
        try {
            if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("node did not exit within " + deadline + "\n" + log());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * For a test whose node fails components on purpose (a corrupt journal): SCR then cannot get services that are
     * going away, and says so, which {@link #close} otherwise takes for a fault.
     */
    public void expectBindingFailures() {
        bindingFailuresExpected = true;
    }

    /**
     * Stops the node, then fails when SCR logged that it could not get a service for a reference: on a node that
     * started normally that is a service cycle between components (one once left a replica's node core without the
     * front end's subscribers on some starts), and it strikes only now and then.
     */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        removeStaleAdminSocket();
        if (!bindingFailuresExpected) {
            String failed = log().lines().filter(l -> l.contains("Could not get service from ref")).findFirst()
                    .orElse(null);
            if (failed != null) {
                throw new AssertionError("SCR could not bind a service on the node in " + home + " (a service "
                        + "cycle between components?): " + failed);
            }
        }
    }

    /**
     * A node killed with SIGKILL leaves its admin socket and that socket's private directory in the temporary
     * directory (a restart on the same home removes them); a node the harness is done with does not restart.
     */
    private void removeStaleAdminSocket() {
        if (process != null && process.isAlive()) {
            return;
        }
        try {
            Path record = home.resolve("data/shell.path");
            if (!Files.exists(record)) {
                return;
            }
            Path socket = Path.of(Files.readString(record).trim());
            Files.deleteIfExists(socket);
            Path dir = socket.getParent();
            if (dir != null && dir.getFileName().toString().startsWith("tandem-")) {
                Files.deleteIfExists(dir);
            }
            Files.deleteIfExists(record);
        } catch (IOException | RuntimeException e) {
            // best effort: the directory is the operating system's temporary one
        }
    }

    /** Output and exit status of a command. */
    public record Result(int exit, String out, String err) {
    }

    /** Runs a command to completion with its own bounded deadline. */
    public static Result run(Duration deadline, String... command) throws IOException {
        Path out = Files.createTempFile("tandem-run", ".out");
        Path err = Files.createTempFile("tandem-run", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish within " + deadline);
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Every port {@link #freePort} handed out in this JVM. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A port that was free a moment ago on the loopback interface, and that this JVM has not handed out before: the
     * kernel may offer a port again once its probe socket closed, and two nodes started together (a RESP port, a
     * replication port, a health port each) would then try to listen on one port, the second failing.
     */
    public static int freePort() throws IOException {
        for (int attempt = 0; attempt < 1000; attempt++) {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
        throw new IOException("every port the kernel offered was handed out before");
    }

    /** Sends raw bytes and returns whatever arrives until the reply goes quiet or the peer closes; null on error. */
    public static String tryExchange(int port, String request) {
        return tryExchange("127.0.0.1", port, request);
    }

    /** {@link #tryExchange(int, String)} with a node at {@code host}. */
    public static String tryExchange(String host, int port, String request) {
        try {
            return exchange(host, port, request.getBytes(StandardCharsets.ISO_8859_1), Duration.ofMillis(300))
                    .reply();
        } catch (IOException e) {
            return null;
        }
    }

    /** The bytes a peer sent back, and whether it closed the connection. */
    public record Exchange(String reply, boolean closed) {
    }

    /**
     * Sends {@code request}, then reads until the peer closes or sends nothing more for {@code quiet}.
     */
    public static Exchange exchange(int port, byte[] request, Duration quiet) throws IOException {
        return exchange("127.0.0.1", port, request, quiet);
    }

    private static Exchange exchange(String host, int port, byte[] request, Duration quiet) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2000);
            return exchange(socket, request, quiet);
        }
    }

    /** Sends {@code request} on a connected socket, then reads until the peer closes or goes quiet. */
    public static Exchange exchange(Socket socket, byte[] request, Duration quiet) throws IOException {
        socket.setSoTimeout((int) quiet.toMillis());
        socket.getOutputStream().write(request);
        socket.getOutputStream().flush();
        StringBuilder sb = new StringBuilder();
        byte[] buf = new byte[8192];
        while (true) {
            int n;
            try {
                n = socket.getInputStream().read(buf);
            } catch (java.net.SocketTimeoutException e) {
                return new Exchange(sb.toString(), false);
            } catch (java.net.SocketException e) {
                return new Exchange(sb.toString(), true); // reset by the peer after its last reply
            }
            if (n < 0) {
                return new Exchange(sb.toString(), true);
            }
            sb.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
        }
    }
}
