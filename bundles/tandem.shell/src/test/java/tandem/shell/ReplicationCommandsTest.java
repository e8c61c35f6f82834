package tandem.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.replication.AckPolicy;
import tandem.api.replication.ReplicationControl;
import tandem.api.replication.ReplicationStatus;
import tandem.api.replication.ReplicationStatusSource;

/** The repl:* commands as Gogo parses and calls them, over test implementations of the contracts. */
@Timeout(20)
class ReplicationCommandsTest {

    private static final String KEY_B = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";
    private static final String KEY_C = "CCqYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";
    private static final String NL = System.lineSeparator();

    private final ReplicationCommands commands = new ReplicationCommands();
    private final TestProtocol journal = new TestProtocol("journal");
    private final Gogo gogo = new Gogo("repl", commands, "status", "ackPolicy", "forget", "promote", "replicaof");

    @BeforeEach
    void ackPolicyCommand() {
        gogo.add("repl", new ReplicationCommands.AckPolicyCommand(commands), "ack-policy");
    }

    @AfterEach
    void close() {
        gogo.close();
    }

    private Object run(String line) throws Exception {
        return gogo.run(line);
    }

    private void bind(TestProtocol... protocols) {
        commands.sources = List.of(protocols);
        commands.controls = List.of(protocols);
    }

    @Test
    void withoutTheServicesEveryCommandSaysSo() throws Exception {
        for (String line : List.of("repl:status", "repl:ack-policy", "repl:ack-policy disk", "repl:ackpolicy",
                "repl:forget " + KEY_B)) {
            assertThat(run(line)).asString().startsWith("repl: not active");
        }
    }

    @Test
    void statusOfAPrimaryListsItsReplicasAligned() throws Exception {
        journal.status = new ReplicationStatus("journal", "primary", AckPolicy.DISK_RAM, 3, "127.0.0.1:7379", null,
                List.of(new ReplicationStatus.Replica(KEY_B, "127.0.0.1:50000", "streaming", 1200, 1200, 1100, 5,
                        12),
                        new ReplicationStatus.Replica(KEY_C, "", "disconnected", 0, 0, 0, 0, -1)));
        bind(journal);
        String out = (String) run("repl:status");
        assertThat(out).isEqualTo(String.join(NL,
                "protocol:    journal",
                "role:        primary",
                "ack policy:  disk+ram",
                "epoch:       3",
                "listening:   127.0.0.1:7379",
                "replicas:    2",
                "  ID                                            ADDRESS          STATE         SENT  IN-MEMORY  ACKED"
                        + "  LAG  LAST ACK",
                "  " + KEY_B + "  127.0.0.1:50000  streaming     1200  1200       1100   5    12 ms ago",
                "  " + KEY_C + "  -                disconnected  0     0          0      0    never"));
    }

    @Test
    void statusOfAReplicaThatStoppedApplyingSaysSo() throws Exception {
        journal.status = new ReplicationStatus("journal", "replica", AckPolicy.DISK, 1, null,
                new ReplicationStatus.Upstream("10.0.0.1:7379", "streaming", 12, 12, 5, null), List.of());
        bind(journal);
        commands.server = (tandem.api.server.ServerStatus) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {tandem.api.server.ServerStatus.class},
                (proxy, method, args) -> method.getName().equals("applyStopped")
                        ? "applying journal entry 9 (SETRANGE) failed: java.lang.IllegalStateException: boom" : null);
        assertThat(run("repl:status").toString()).endsWith(String.join(NL, "last error:  -", "",
                "apply:       STOPPED, writes are refused and nothing more is applied: applying journal entry 9 "
                        + "(SETRANGE) failed: java.lang.IllegalStateException: boom"));
    }

    @Test
    void statusOfAReplicaShowsItsUpstream() throws Exception {
        journal.status = new ReplicationStatus("journal", "replica", null, 2, null,
                new ReplicationStatus.Upstream("10.0.0.1:7379", "refused", 0, 0, -1,
                        "the primary refused this node's key; authorize it there with: auth:allow replication K c"),
                List.of());
        TestProtocol psync = new TestProtocol("psync");
        psync.status = new ReplicationStatus("psync", "primary", AckPolicy.DISK, 0, null, null, List.of());
        bind(journal, psync);
        assertThat(run("repl:status")).isEqualTo(String.join(NL,
                "protocol:    journal",
                "role:        replica",
                "ack policy:  (not announced yet)",
                "epoch:       2",
                "listening:   -",
                "upstream:    10.0.0.1:7379",
                "state:       refused",
                "received:    0",
                "acked:       0",
                "last frame:  never",
                "last error:  the primary refused this node's key; authorize it there with: auth:allow replication K c",
                "",
                "protocol:    psync",
                "role:        primary",
                "ack policy:  disk",
                "epoch:       0",
                "listening:   -",
                "replicas:    none"));
        assertThat(run("repl:ack-policy")).isEqualTo("ack policy: not announced by the primary yet");
        journal.status = new ReplicationStatus("journal", "replica", AckPolicy.TWO_DISKS, 2, null,
                journal.status.upstream(), List.of());
        assertThat(run("repl:ack-policy")).isEqualTo("ack policy: two-disks (announced by the primary)");
    }

    @Test
    void ackPolicyPrintsSetsAndExplainsARefusal() throws Exception {
        journal.status = new ReplicationStatus("journal", "primary", AckPolicy.DISK, 0, "127.0.0.1:7379", null,
                List.of());
        TestProtocol psync = new TestProtocol("psync");
        psync.status = new ReplicationStatus("psync", "primary", AckPolicy.DISK, 0, null, null, List.of());
        bind(psync, journal);
        assertThat(run("repl:ack-policy")).isEqualTo("ack policy: disk");
        assertThat(run("repl:ack-policy two-disks")).isEqualTo("ack policy set to two-disks; ack policy: two-disks");
        assertThat(run("repl:ackpolicy disk+ram")).isEqualTo("ack policy set to disk+ram; ack policy: disk+ram");
        assertThat(run("repl:ack-policy fast")).isEqualTo(
                "unknown ack policy 'fast' (disk, disk+ram, two-disks or ram)");
        assertThat(run("repl:ack-policy a b")).asString().startsWith("usage: repl:ack-policy");
        assertThat(journal.calls).containsExactly("ackPolicy two-disks", "ackPolicy disk+ram", "ackPolicy fast");
        assertThat(psync.calls).isEmpty(); // only the journal protocol's control
    }

    @Test
    void promoteAndReplicaofCallTheJournalProtocolAndSayWhatHappened() throws Exception {
        journal.status = new ReplicationStatus("journal", "primary", AckPolicy.DISK, 0, null, null, List.of());
        TestProtocol psync = new TestProtocol("psync");
        psync.status = new ReplicationStatus("psync", "primary", null, 0, null, null, List.of());
        bind(journal, psync);
        assertThat(run("repl:promote")).isEqualTo("not promoted: this node is a primary already");
        assertThat(run("repl:promote --force")).isEqualTo("promoted");
        assertThat(run("repl:replicaof 127.0.0.1:7101")).isEqualTo("following 127.0.0.1:7101");
        assertThat(run("repl:replicaof nowhere")).isEqualTo("tandem.replication: primary=nowhere is invalid");
        assertThat(journal.calls).containsExactly("promote false", "promote true", "replicaOf 127.0.0.1:7101",
                "replicaOf nowhere");
        assertThat(psync.calls).isEmpty();
        assertThat(run("repl:replicaof --psync 127.0.0.1:6379")).isEqualTo("following 127.0.0.1:6379");
        psync.status = new ReplicationStatus("psync", "replica", null, 0, null,
                new ReplicationStatus.Upstream("127.0.0.1:6379", "streaming", 5, 5, 10, null), List.of());
        assertThat(run("repl:promote")).as("the protocol the node follows promotes it").isEqualTo("promoted");
        assertThat(psync.calls).containsExactly("replicaOf 127.0.0.1:6379", "promote false");
    }

    @Test
    void forgetSaysWhetherTheReplicaWasRegistered() throws Exception {
        journal.registered.add(KEY_B);
        bind(journal);
        assertThat(run("repl:forget " + KEY_B)).isEqualTo("forgotten: " + KEY_B);
        assertThat(run("repl:forget " + KEY_B)).isEqualTo("not registered, nothing forgotten: " + KEY_B);
        assertThat(journal.calls).containsExactly("forget " + KEY_B, "forget " + KEY_B);
    }

    /** One protocol: its status and control, recording the control's calls. */
    private static final class TestProtocol implements ReplicationStatusSource, ReplicationControl {
        final String protocol;
        final List<String> calls = new ArrayList<>();
        final Set<String> registered = new HashSet<>();
        volatile ReplicationStatus status;

        TestProtocol(String protocol) {
            this.protocol = protocol;
        }

        @Override
        public ReplicationStatus replicationStatus() {
            return status;
        }

        @Override
        public String protocol() {
            return protocol;
        }

        @Override
        public void ackPolicy(String policy) {
            calls.add("ackPolicy " + policy);
            AckPolicy p = AckPolicy.parse(policy);
            status = new ReplicationStatus(status.protocol(), status.role(), p, status.epoch(), status.listening(),
                    status.upstream(), status.replicas());
        }

        @Override
        public boolean forget(String id) {
            calls.add("forget " + id);
            return registered.remove(id);
        }

        @Override
        public String promote(boolean force) {
            calls.add("promote " + force);
            if (!force && "primary".equals(status.role())) {
                throw new IllegalStateException("this node is a primary already");
            }
            return "promoted";
        }

        @Override
        public String replicaOf(String address) {
            calls.add("replicaOf " + address);
            if (!address.contains(":")) {
                throw new IllegalArgumentException("tandem.replication: primary=" + address + " is invalid");
            }
            return "following " + address;
        }
    }
}
