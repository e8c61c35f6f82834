package tandem.failover;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.failover.FailoverStatus.Failover;
import tandem.failover.GroupCodec.Answer;
import tandem.failover.GroupCodec.Report;

/** Three Raft peers in one JVM on loopback: reports reach the leader, entries apply everywhere, in log order. */
@Timeout(120)
class GroupPeerTest {

    private final List<GroupPeer> peers = new ArrayList<>();
    private final List<GroupMachine> machines = new ArrayList<>();
    private final List<Liveness> tables = new ArrayList<>();

    @AfterEach
    void close() {
        peers.forEach(GroupPeer::close);
    }

    @Test
    void reportsReachTheLeaderAndEntriesApplyOnEveryPeer() throws Exception {
        Path dir = Files.createTempDirectory("group-peer");
        String list = "n1@127.0.0.1:" + freePort() + ",n2@127.0.0.1:" + freePort() + ",n3@127.0.0.1:" + freePort();
        AtomicInteger applied = new AtomicInteger();
        for (String id : List.of("n1", "n2", "n3")) {
            FailoverSettings s = FailoverSettings.of(config(id, list, dir), dir);
            Liveness table = new Liveness();
            GroupMachine m = new GroupMachine(table, () -> 1_000_000_000L, applied::incrementAndGet);
            tables.add(table);
            machines.add(m);
            peers.add(new GroupPeer(s, m, null));
        }
        await("a leader", () -> leader() >= 0);
        Answer a = GroupCodec.readAnswer(peers.get(0).query(GroupCodec.report(
                new Report("n1", "primary", "127.0.0.1:1", "127.0.0.1:2", 0, 7, "disk+ram", false))));
        assertThat(a.leader()).isTrue();
        assertThat(a.primary()).isNull();
        int leader = leader();
        assertThat(tables.get(leader).get("n1")).isNotNull();
        assertThat(tables.get(leader).get("n1").report().tip()).isEqualTo(7);

        peers.get(1).append(GroupCodec.join(new GroupState.Member("n1", "127.0.0.1:1", "127.0.0.1:2", false))).get();
        peers.get(2).append(GroupCodec.promote(new Failover("", "n1", 1, 0, 0, "test"))).get();
        await("every peer applied both entries", () -> machines.stream().allMatch(m -> m.state().epoch() == 1
                && m.state().members().containsKey("n1")));
        assertThat(machines.get(0).state().primary()).isEqualTo("n1");
    }

    /**
     * A follower stopped and started again on its storage is appended to again: it applies what was committed while
     * it was away and what comes after. How long that took is printed (Ratis' default appender backoff made it up to
     * 15 s; see {@link GroupPeer#APPENDER_RETRIES}).
     */
    @Test
    void aFollowerRestartedOnItsStorageCatchesUp() throws Exception {
        Path dir = Files.createTempDirectory("group-peer");
        String list = "n1@127.0.0.1:" + freePort() + ",n2@127.0.0.1:" + freePort() + ",n3@127.0.0.1:" + freePort();
        List<FailoverSettings> settings = new ArrayList<>();
        for (String id : List.of("n1", "n2", "n3")) {
            settings.add(FailoverSettings.of(config(id, list, dir), dir));
            GroupMachine m = new GroupMachine(new Liveness(), () -> 1_000_000_000L, () -> { });
            machines.add(m);
            peers.add(new GroupPeer(settings.get(settings.size() - 1), m, null));
        }
        await("a leader", () -> leader() >= 0);
        int leader = leader();
        int follower = (leader + 1) % 3;
        peers.get(leader).append(GroupCodec.promote(new Failover("", "n1", 1, 0, 0, "test"))).get();
        await("every peer applied epoch 1", () -> machines.stream().allMatch(m -> m.state().epoch() == 1));
        peers.get(follower).close();
        peers.get(leader).append(GroupCodec.promote(new Failover("n1", "n2", 2, 0, 0, "test"))).get();
        long started = System.nanoTime();
        GroupMachine again = new GroupMachine(new Liveness(), () -> 1_000_000_000L, () -> { });
        machines.set(follower, again);
        peers.set(follower, new GroupPeer(settings.get(follower), again, null));
        await("the restarted follower applied epoch 2", () -> again.state().epoch() == 2);
        peers.get(leader).append(GroupCodec.promote(new Failover("n2", "n3", 3, 0, 0, "test"))).get();
        await("the restarted follower applied epoch 3", () -> again.state().epoch() == 3);
        System.getLogger("tandem.failover").log(System.Logger.Level.INFO, "a restarted follower caught up in {0} ms",
                (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * The group over mutual TLS: two members whose certificates the cluster's CA issued elect a leader and apply
     * entries; a third whose certificate another CA issued is refused by both and applies nothing.
     */
    @Test
    void overMutualTlsOnlyMembersOfTheClustersCaTakePart() throws Exception {
        Path dir = Files.createTempDirectory("group-peer-tls");
        tandem.testsupport.TestPki ca = tandem.testsupport.TestPki.create(dir.resolve("ca"), "cluster-ca");
        tandem.testsupport.TestPki rogue = tandem.testsupport.TestPki.create(dir.resolve("rogue"), "rogue-ca");
        String list = "n1@127.0.0.1:" + freePort() + ",n2@127.0.0.1:" + freePort() + ",n3@127.0.0.1:" + freePort();
        for (String id : List.of("n1", "n2", "n3")) {
            tandem.testsupport.TestPki issuer = id.equals("n3") ? rogue : ca;
            tandem.testsupport.TestPki.Issued cert = issuer.issue(id);
            tandem.tls.TlsComponent tls = new tandem.tls.TlsComponent(() -> dir, org.osgi.util.converter.Converters
                    .standardConverter().convert(java.util.Map.of("cert.file", cert.cert().toString(), "key.file",
                            cert.key().toString(), "ca.cert.file", issuer.caCert().toString()))
                    .to(tandem.tls.TlsComponent.Config.class));
            FailoverSettings s = FailoverSettings.of(config(id, list, dir), dir);
            GroupMachine m = new GroupMachine(new Liveness(), () -> 1_000_000_000L, () -> { });
            machines.add(m);
            peers.add(new GroupPeer(s, m, tls));
        }
        await("a leader among n1 and n2", () -> leader() == 0 || leader() == 1);
        peers.get(leader()).append(GroupCodec.promote(new Failover("", "n1", 1, 0, 0, "test"))).get();
        await("n1 and n2 applied epoch 1", () -> machines.get(0).state().epoch() == 1
                && machines.get(1).state().epoch() == 1);
        assertThat(machines.get(2).state().epoch()).isZero();
    }

    private int leader() {
        for (int i = 0; i < peers.size(); i++) {
            var info = peers.get(i).info();
            if (info != null && info.isLeader() && info.isLeaderReady()) {
                return i;
            }
        }
        return -1;
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static FailoverConfig config(String id, String peers, Path dir) {
        return config(id, peers, dir.toString(), false, 1000, 600);
    }

    static FailoverConfig config(String id, String peers, String dir, boolean lossy, int down, int lease) {
        return new FailoverConfig() {
            @Override public Class<? extends Annotation> annotationType() { return FailoverConfig.class; }
            @Override public String group() { return "test"; }
            @Override public String node_id() { return id; }
            @Override public String peers() { return peers; }
            @Override public String raft_bind() { return "127.0.0.1"; }
            @Override public int raft_port() { return 0; }
            @Override public boolean witness() { return false; }
            @Override public boolean join() { return false; }
            @Override public boolean tls() { return false; }
            @Override public boolean automatic() { return true; }
            @Override public int down_after_ms() { return down; }
            @Override public int lease_ms() { return lease; }
            @Override public int report_interval_ms() { return 100; }
            @Override public int election_timeout_min_ms() { return 150; }
            @Override public int election_timeout_max_ms() { return 300; }
            @Override public boolean lossy() { return lossy; }
            @Override public int update_grace_ms() { return 10_000; }
            @Override public String storage_directory() { return dir; }
        };
    }
}
