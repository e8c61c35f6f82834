package tandem.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.converter.Converters;

import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;
import tandem.auth.AuthComponent;
import tandem.journal.JournalComponent;
import tandem.transport.tcp.TcpTransport;

/**
 * The journal protocol's component as a primary restarted after a crash, with a real journal, auth and TCP transport
 * and a hub that records the order of its calls. A node accepts client writes exactly while it follows nobody and
 * carries no fence, so the order of {@code follow} and {@code fence} decides whether a write can slip in between.
 */
@Timeout(30)
class ReplicationComponentTest {

    @TempDir
    Path root;

    private final TestHub hub = new TestHub();
    private JournalComponent journal;
    private AuthComponent auth;
    private TcpTransport transport;
    private ReplicationComponent component;

    @AfterEach
    void close() {
        if (component != null) {
            component.deactivate();
        }
        if (transport != null) {
            Nodes.invoke(transport, "deactivate");
        }
        if (journal != null) {
            Nodes.close(journal);
        }
    }

    private int port;

    /** A primary that crashed (its running marker left behind) with one registered replica. */
    private ReplicationComponent crashedPrimary() throws IOException {
        Path home = Nodes.home(root, "primary");
        Path state = home.resolve("data/replication");
        Files.createDirectories(state);
        new Registry(state).register("a2V5LTE=", 0);
        Files.createFile(state.resolve(RestartFence.MARKER));
        journal = Nodes.journal(home);
        auth = Nodes.auth(home);
        transport = tcp();
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        Map<String, Object> props = new HashMap<>();
        props.put("port", port);
        props.put("ack.policy", "disk");
        props.put("handshake.timeout.ms", 500);
        ReplicationComponent.Config config = Converters.standardConverter().convert(props)
                .to(ReplicationComponent.Config.class);
        ReplicationComponent c = new ReplicationComponent(config, () -> home, journal, hub, configAdmin());
        c.bindTransport(transport);
        c.bindIdentity(auth);
        c.bindAuthorizer(auth);
        c.activate();
        return c;
    }

    private static TcpTransport tcp() {
        return new TcpTransport(Converters.standardConverter().convert(Map.of()).to(TcpTransport.Config.class));
    }

    private boolean listening() {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aPrimaryRestartedAfterACrashIsFencedBeforeItDeclaresItselfAPrimary() throws IOException {
        component = crashedPrimary();
        assertThat(hub.fence).startsWith("FENCED this primary restarted after a crash");
        assertThat(writable(hub.events, "(not declared)", false))
                .as("the fence comes before the role, so no write is taken in between: %s", hub.events).isFalse();
        assertThat(hub.events).contains("follow null");
    }

    @Test
    void aFencedPrimaryMadeAReplicaFollowsBeforeItsFenceIsDropped() throws IOException {
        component = crashedPrimary();
        hub.events.clear();
        String out = component.replicaOf("127.0.0.1:1"); // nothing listens there: the link keeps trying
        assertThat(out).startsWith("following 127.0.0.1:1");
        assertThat(hub.events).as("the order of the hub's calls").containsSubsequence("follow 127.0.0.1:1",
                "fence null");
        assertThat(writable(hub.events, "null", true)).as("a write could slip in between: %s", hub.events)
                .isFalse();
        assertThat(hub.upstream).isEqualTo("127.0.0.1:1");
        assertThat(hub.fence).isNull();
    }

    @Test
    void aNewTransportTakesTheListenerOverWithoutRestartingTheProtocol() throws IOException {
        component = crashedPrimary();
        assertThat(listening()).isTrue();
        hub.events.clear();
        TcpTransport old = transport;
        component.unbindTransport(old); // the transport bundle being updated
        Nodes.invoke(old, "deactivate");
        assertThat(listening()).as("no transport, no listener").isFalse();
        transport = tcp();
        component.bindTransport(transport);
        assertThat(listening()).as("listening again through the new transport").isTrue();
        assertThat(hub.events).as("no restart: the role and the fence were left as they were").isEmpty();
        assertThat(hub.fence).startsWith("FENCED this primary restarted after a crash");
    }

    @Test
    void aPrimaryListensOnEveryPreferredTransportAndSaysWhyNotOnOthers() throws IOException {
        component = crashedPrimary();
        NamedTransport broken = new NamedTransport("dpdk", "EAL init failed: no memory");
        component.bindTransport(broken);
        assertThat(broken.listens).as("an unavailable transport is not used").isEmpty();
        assertThat(component.transportStatus()).isEqualTo("listening on tcp; dpdk unavailable: EAL init failed: "
                + "no memory");
        component.unbindTransport(broken);

        NamedTransport dpdk = new NamedTransport("dpdk", null);
        component.bindTransport(dpdk);
        assertThat(dpdk.listens).as("the same port as TCP's").containsExactly(port);
        assertThat(listening()).as("TCP's listener and its links stay").isTrue();
        assertThat(component.transportStatus()).as("in the order they started").isEqualTo("listening on tcp, dpdk");
        component.unbindTransport(dpdk);
        assertThat(dpdk.closed).isEqualTo(1);
        assertThat(listening()).isTrue();
        assertThat(component.transportStatus()).isEqualTo("listening on tcp; dpdk not installed");
        assertThat(hub.fence).as("no restart").startsWith("FENCED this primary restarted after a crash");
    }

    /** A transport that only records what the protocol asks of it; {@code reason} makes it unavailable. */
    private static final class NamedTransport implements FrameTransport {
        final String name;
        final String reason;
        final List<Integer> listens = new java.util.ArrayList<>();
        int closed;

        NamedTransport(String name, String reason) {
            this.name = name;
            this.reason = reason;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String unavailableReason() {
            return reason;
        }

        @Override
        public FrameListener listen(String bindAddress, int p, int maxFrame,
                java.util.function.Supplier<FrameSession> sessions) {
            listens.add(p);
            return new FrameListener() {
                @Override
                public int port() {
                    return p;
                }

                @Override
                public void close() {
                    closed++;
                }
            };
        }

        @Override
        public void connect(String host, int p, int maxFrame, int connectMillis, FrameSession session) {
            session.closed("not connecting");
        }
    }

    /**
     * Replays the hub's role and fence calls from the given state and tells whether the node was ever an unfenced
     * primary on the way, the state in which it takes client writes.
     */
    private static boolean writable(List<String> events, String upstream, boolean fenced) {
        for (String e : events) {
            if (e.startsWith("follow ")) {
                upstream = e.substring("follow ".length());
            } else if (e.startsWith("fence ")) {
                fenced = !e.equals("fence null");
            } else {
                continue;
            }
            if (upstream.equals("null") && !fenced) {
                return true;
            }
        }
        return false;
    }

    /** Configuration Admin holding one configuration in memory: what {@code repl:replicaof} persists. */
    private static ConfigurationAdmin configAdmin() {
        Dictionary<String, Object> stored = new Hashtable<>();
        Configuration configuration = (Configuration) Proxy.newProxyInstance(Configuration.class.getClassLoader(),
                new Class<?>[] {Configuration.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperties" -> stored;
                    case "update" -> {
                        if (args != null && args.length == 1) {
                            @SuppressWarnings("unchecked")
                            Dictionary<String, Object> d = (Dictionary<String, Object>) args[0];
                            for (var keys = d.keys(); keys.hasMoreElements();) {
                                String k = keys.nextElement();
                                stored.put(k, d.get(k));
                            }
                        }
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (ConfigurationAdmin) Proxy.newProxyInstance(ConfigurationAdmin.class.getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConfiguration")) {
                        return configuration;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
