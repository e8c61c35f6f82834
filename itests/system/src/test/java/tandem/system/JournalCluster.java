package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tandem.testsupport.Await;

/**
 * A primary and its journal-protocol replicas as real processes from the distribution, each with its own home and
 * ports; replicas are authorized on the primary with {@code auth:allow} and the line their first start wrote.
 */
final class JournalCluster implements AutoCloseable {

    /** Replicas retry quickly in tests; the default backoff cap (5 s) would only slow them down. */
    static final String FAST_RECONNECT = "tandem.replication:reconnect.max.ms=300";

    final TandemNode primary;
    final int replicationPort;
    final List<TandemNode> replicas = new ArrayList<>();
    private final String name;

    private JournalCluster(String name, TandemNode primary, int replicationPort) {
        this.name = name;
        this.primary = primary;
        this.replicationPort = replicationPort;
    }

    static JournalCluster start(String name, String ackPolicy, String... config) throws IOException {
        int replicationPort = TandemNode.freePort();
        List<String> args = new ArrayList<>(List.of("--replication-port", Integer.toString(replicationPort),
                "--ack-policy", ackPolicy));
        for (String c : config) {
            args.add("--config");
            args.add(c);
        }
        TandemNode p = TandemNode.start(name + "-primary", args.toArray(new String[0]));
        return new JournalCluster(name, p, replicationPort);
    }

    /** Starts a replica of the primary; with {@code authorize}, adds its key on the primary and waits until it streams. */
    TandemNode addReplica(boolean authorize) throws IOException {
        return addReplica(authorize, replicationPort);
    }

    /**
     * Starts a replica that connects to {@code primaryPort} (the primary's replication port, or a proxy in front of
     * it); each replica also gets a replication port of its own, for the day it is promoted.
     */
    TandemNode addReplica(boolean authorize, int primaryPort, String... config) throws IOException {
        List<String> args = new ArrayList<>(List.of("--replication-port", Integer.toString(TandemNode.freePort()),
                "--primary", "127.0.0.1:" + primaryPort, "--config", FAST_RECONNECT));
        for (String c : config) {
            args.add("--config");
            args.add(c);
        }
        TandemNode r = TandemNode.start(name + "-replica" + (replicas.size() + 1), args.toArray(new String[0]));
        replicas.add(r);
        if (authorize) {
            authorize(r);
            awaitStreaming(r);
        }
        return r;
    }

    void authorize(TandemNode replica) throws IOException {
        authorize(replica, primary);
    }

    /** Authorizes {@code replica}'s key on {@code on}: done for every pair up front, any node can be promoted. */
    static void authorize(TandemNode replica, TandemNode on) throws IOException {
        TandemNode.Result allowed = on.shell(replica.authAllowCommand());
        assertThat(allowed.exit()).as(allowed.err()).isZero();
    }

    /** @return the replication port a node listens on (or would, once promoted), from its configuration */
    static int replicationPort(TandemNode node) throws IOException {
        for (String line : Files.readAllLines(node.home().resolve("etc/tandem.replication.cfg"))) {
            Matcher m = Pattern.compile("\\s*port\\s*=\\s*(\\d+)\\s*").matcher(line);
            if (m.matches()) {
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("no port in " + node.home().resolve("etc/tandem.replication.cfg"));
    }

    /** Runs a shell command that must succeed; @return its output */
    static String shell(TandemNode node, String command) throws IOException {
        TandemNode.Result r = node.shell(command);
        assertThat(r.exit()).as("%s: %s %s", command, r.out(), r.err()).isZero();
        return r.out();
    }

    /** A fresh node made a psync replica of {@code primary} with REPLICAOF; returns once it streams. */
    static TandemNode psyncReplicaOf(TandemNode primary, String name) throws IOException {
        TandemNode n = TandemNode.start(name, "--replication-port", Integer.toString(TandemNode.freePort()),
                "--config", "tandem.psync:reconnect.max.ms=300");
        TandemNode.Result r = n.redisCli("REPLICAOF", "127.0.0.1", Integer.toString(primary.port()));
        if (!r.out().trim().equals("OK")) {
            n.close();
            throw new AssertionError("REPLICAOF answered " + r.out() + r.err());
        }
        awaitStreaming(n);
        return n;
    }

    /** Waits until every replica holds {@code primary}'s digest, the primary's read again after theirs. */
    static void awaitSameDigest(TandemNode primary, Duration deadline, TandemNode... replicas) {
        java.util.concurrent.atomic.AtomicReference<String> last = new java.util.concurrent.atomic.AtomicReference<>();
        try {
            Await.until("the replicas hold the primary's store:digest", deadline, Duration.ofMillis(200), () -> {
                String p = primary.digestOrNull();
                StringBuilder seen = new StringBuilder("primary " + p);
                boolean same = p != null;
                for (TandemNode r : replicas) {
                    String d = r.digestOrNull();
                    seen.append(", ").append(r.port()).append(' ').append(d);
                    same &= p != null && p.equals(d);
                }
                last.set(seen.toString());
                return same && p.equals(primary.digestOrNull());
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last digests: " + last.get(), e);
        }
    }

    static void awaitStreaming(TandemNode replica) {
        Await.until("replica " + replica.port() + " streams", Duration.ofSeconds(60),
                () -> "up".equals(info(replica).get("master_link_status")));
    }

    /** INFO replication as a map; empty when the node does not answer. */
    static Map<String, String> info(TandemNode node) {
        return node.info("replication");
    }

    /** The journal's durable sequence as INFO reports it, -1 when the node does not answer. */
    static long sequence(TandemNode node) {
        String s = info(node).get("tandem_journal_sequence");
        return s == null ? -1 : Long.parseLong(s);
    }

    /** The chain value {@code journal:info} reports, with the durable sequence it belongs to. */
    static String chain(TandemNode node) throws IOException {
        TandemNode.Result r = node.shell("journal:info");
        assertThat(r.exit()).as(r.err()).isZero();
        Matcher chain = Pattern.compile("(?m)^chain:\\s*([0-9a-f]{64})").matcher(r.out());
        Matcher durable = Pattern.compile("(?m)^durable sequence:\\s*(\\d+)").matcher(r.out());
        assertThat(chain.find() && durable.find()).as(r.out()).isTrue();
        return durable.group(1) + "@" + chain.group(1);
    }

    /** Waits until every node's durable sequence is the primary's. */
    void awaitConverged(TandemNode... nodes) {
        awaitSequenceOf(primary, nodes);
    }

    /** Waits until every node's durable sequence is {@code reference}'s. */
    static void awaitSequenceOf(TandemNode reference, TandemNode... nodes) {
        Await.until("every node at the primary's sequence", Duration.ofSeconds(60), () -> {
            long p = sequence(reference);
            for (TandemNode n : nodes) {
                if (sequence(n) != p) {
                    return false;
                }
            }
            return true;
        });
    }

    /** The nodes hold the primary's keyspace (equal {@code store:digest}) and its chain value. */
    void assertSameState(TandemNode... nodes) throws IOException {
        assertStateOf(primary, nodes);
    }

    /** The nodes hold {@code reference}'s keyspace (equal {@code store:digest}) and its chain value. */
    static void assertStateOf(TandemNode reference, TandemNode... nodes) throws IOException {
        awaitDigestOf(reference, nodes);
        String chain = chain(reference);
        for (TandemNode n : nodes) {
            assertThat(chain(n)).isEqualTo(chain);
        }
    }

    /**
     * Waits until the nodes hold {@code reference}'s keyspace: equal {@code store:digest}, every key compared. The
     * reference takes no more writes.
     */
    static void awaitDigestOf(TandemNode reference, TandemNode... nodes) throws IOException {
        String digest = reference.digest();
        for (TandemNode n : nodes) {
            // a replica applies what it made durable on its logic thread: the digest follows shortly after
            Await.until("digest of " + n.port() + " is " + reference.port() + "'s", Duration.ofSeconds(60), () -> {
                try {
                    return digest.equals(n.digest());
                } catch (IOException e) {
                    return false;
                }
            });
        }
    }

    /**
     * Compares the journal segment files of two stopped nodes: every segment both hold must agree on their common
     * length (byte-identical journals, so equal chain values at the shorter tip).
     *
     * @return the number of bytes compared
     */
    static long assertCommonPrefix(TandemNode a, TandemNode b) throws IOException {
        Path da = a.home().resolve("data/journal");
        Path db = b.home().resolve("data/journal");
        long compared = 0;
        try (var files = Files.list(da)) {
            for (Path fa : files.filter(f -> f.getFileName().toString().startsWith("journal")).toList()) {
                Path fb = db.resolve(fa.getFileName());
                if (!Files.exists(fb)) {
                    continue;
                }
                byte[] x = Files.readAllBytes(fa);
                byte[] y = Files.readAllBytes(fb);
                int n = Math.min(x.length, y.length);
                for (int i = 0; i < n; i++) {
                    if (x[i] != y[i]) {
                        throw new AssertionError(fa.getFileName() + " differs at byte " + i + " between "
                                + a.home() + " and " + b.home());
                    }
                }
                compared += n;
            }
        }
        return compared;
    }

    @Override
    public void close() {
        for (TandemNode r : replicas) {
            r.close();
        }
        primary.close();
    }
}
