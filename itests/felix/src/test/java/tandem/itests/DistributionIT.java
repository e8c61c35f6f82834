package tandem.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import javax.inject.Inject;

import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.Timeout;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

import tandem.api.server.ServerStatus;
import tandem.testsupport.Await;

/**
 * Provisions exactly the distribution's bundle set (bundle/ and deploy/, less the console that would read standard
 * input) into Felix and checks that it resolves, wires, reconfigures, swaps and serves RESP.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class DistributionIT {

    private static final Duration DEADLINE = Duration.ofSeconds(15);

    @Rule
    public Timeout timeout = Timeout.seconds(60);

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Inject
    private ServiceComponentRuntime scr;

    @Inject
    private MetaTypeService metaType;

    @Configuration
    public Option[] config() throws IOException {
        Path dist = Path.of(System.getProperty("tandem.dist"));
        Path home = Path.of(System.getProperty("tandem.itest.home"));
        Files.createDirectories(home.resolve("deploy"));
        List<Option> options = new ArrayList<>();
        for (Path jar : distributionJars(dist)) {
            String name = jar.getFileName().toString();
            if (name.startsWith("org.apache.felix.gogo.shell")) {
                continue; // the console reads standard input; the admin channel is tested instead
            }
            boolean fragment = name.contains("native-epoll");
            options.add(fragment ? bundle(jar.toUri().toString()).noStart() : bundle(jar.toUri().toString()));
        }
        options.add(junitBundles());
        for (String jar : System.getProperty("tandem.itest.bundles").split(",")) {
            options.add(bundle(Path.of(jar).toUri().toString())); // the tests' own: Await, Awaitility, Hamcrest 2
        }
        options.add(cleanCaches(true));
        options.add(frameworkProperty("tandem.home").value(home.toString()));
        options.add(frameworkProperty("felix.fileinstall.dir").value(home.resolve("deploy").toString()));
        options.add(systemProperty("tandem.dist").value(dist.toString()));
        return options.toArray(new Option[0]);
    }

    static List<Path> distributionJars(Path dist) throws IOException {
        List<Path> jars = new ArrayList<>();
        for (String dir : List.of("bundle", "deploy")) {
            try (Stream<Path> s = Files.list(dist.resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(jars::add);
            }
        }
        if (jars.isEmpty()) {
            throw new IllegalStateException("no bundles under " + dist + ": build the distribution first");
        }
        return jars;
    }

    @Before
    public void listenOnAFreePort() throws Exception {
        // replication waits for its configuration (etc/tandem.replication.cfg in the distribution)
        org.osgi.service.cm.Configuration replication = configAdmin.getConfiguration("tandem.replication", "?");
        if (replication.getProperties() == null) {
            Dictionary<String, Object> r = new java.util.Hashtable<>();
            r.put("port", 0);
            replication.update(r);
        }
        org.osgi.service.cm.Configuration config = configAdmin.getConfiguration("tandem.server", "?");
        Dictionary<String, Object> props = config.getProperties();
        if (props != null && Integer.valueOf(0).equals(props.get("port"))) {
            await("the server listens on a free port", () -> server() != null && server().port() > 0);
            return;
        }
        // until the change is applied the server still answers on the port it had: wait for it to move
        int before = server() == null ? -1 : server().port();
        config.update(props(0, 10000));
        await("the server moves to a free port", () -> {
            ServerStatus s = server();
            return s != null && s.port() > 0 && s.port() != before && s.port() != 6379;
        });
    }

    @Test
    public void everyBundleIsActiveAndEveryFragmentResolved() {
        await("every bundle active", () -> {
            for (Bundle b : context.getBundles()) {
                boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
                if (b.getState() != (fragment ? Bundle.RESOLVED : Bundle.ACTIVE)) {
                    return false;
                }
            }
            return true;
        });
        for (String bsn : List.of("tandem.api", "tandem.server", "tandem.shell")) {
            assertTrue(bsn + " is installed",
                    Stream.of(context.getBundles()).anyMatch(b -> b.getSymbolicName().equals(bsn)));
        }
    }

    @Test
    public void everyComponentIsSatisfied() {
        await("every Tandem component active", () -> {
            for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
                for (ComponentConfigurationDTO c : scr.getComponentConfigurationDTOs(d)) {
                    if (c.state != ComponentConfigurationDTO.ACTIVE && c.state != ComponentConfigurationDTO.SATISFIED) {
                        return false;
                    }
                }
            }
            return true;
        });
        List<String> names = new ArrayList<>();
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            // Tandem's components all run; a library's may wait for a configuration nobody gives it (Felix Health
            // Checks' servlet, say), and so does the failover group, which needs this node's id and its peers
            if (d.bundle.symbolicName.startsWith("tandem.") && !d.name.equals("tandem.failover.FailoverComponent")) {
                assertFalse(d.name + " has a configuration", scr.getComponentConfigurationDTOs(d).isEmpty());
            }
            names.add(d.name);
        }
        assertTrue(names.toString(), names.contains("tandem.server.RespServer"));
        assertTrue(names.toString(), names.contains("tandem.shell.admin.AdminChannel"));
        assertTrue(names.toString(), names.contains("tandem.shell.ServerCommands"));
    }

    @Test
    public void answersRespOnItsPort() throws IOException {
        assertEquals("+PONG\r\n", exchange(server().port(), "PING\r\n", 7));
        assertEquals("$5\r\nhello\r\n", exchange(server().port(), "*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n", 11));
    }

    @Test
    public void aWriteAdmissionServiceIsAskedBeforeEveryWriteFromTheMomentItIsRegistered() throws Exception {
        int port = server().port();
        String set = "*3\r\n$3\r\nSET\r\n$9\r\nadmission\r\n$1\r\nv\r\n";
        await("writes are taken", () -> {
            try {
                return "+OK\r\n".equals(exchange(port, set, 5));
            } catch (IOException e) {
                return false;
            }
        });
        String refusal = "-FENCED refused by DistributionIT\r\n";
        tandem.api.server.WriteAdmission fence = replicas -> "FENCED refused by DistributionIT";
        org.osgi.framework.ServiceRegistration<tandem.api.server.WriteAdmission> registration =
                context.registerService(tandem.api.server.WriteAdmission.class, fence, null);
        try {
            await("the registered provider refuses writes", () -> {
                try {
                    return refusal.equals(exchange(port, set, refusal.length()));
                } catch (IOException e) {
                    return false;
                }
            });
            assertEquals("reads go on", "$1\r\nv\r\n",
                    exchange(port, "*2\r\n$3\r\nGET\r\n$9\r\nadmission\r\n", 7));
        } finally {
            registration.unregister();
        }
        assertEquals("+OK\r\n", exchange(port, set, 5));
    }

    @Test
    public void followsAPortChangeLiveAndKeepsConnectedClients() throws Exception {
        ServerStatus status = server();
        int before = status.port();
        try (Socket client = new Socket()) {
            client.connect(new InetSocketAddress("127.0.0.1", before), 5000);
            int next = freePort();
            configAdmin.getConfiguration("tandem.server", "?").update(props(next, 10000));
            await("rebound to " + next, () -> server() != null && server().port() == next);
            assertSame("rebinding does not reactivate the component", status, server());
            assertEquals("+PONG\r\n", exchange(next, "PING\r\n", 7));
            client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals("+PONG\r\n", read(client.getInputStream(), 7));
            try (Socket old = new Socket()) {
                old.connect(new InetSocketAddress("127.0.0.1", before), 2000);
                fail("the old port still accepts connections");
            } catch (ConnectException expected) {
                // the old listener is closed
            }
        }
    }

    @Test
    public void refusesAnInvalidConfigurationAndKeepsTheRunningOne() throws Exception {
        ServerStatus status = server();
        int port = status.port();
        configAdmin.getConfiguration("tandem.server", "?").update(props(70000, 10000));
        Dictionary<String, Object> bad = props(port, 10000);
        bad.put("bind", "not-an-address");
        configAdmin.getConfiguration("tandem.server", "?").update(bad);
        // a valid change made after the refused ones still applies, so they have been processed by then
        configAdmin.getConfiguration("tandem.server", "?").update(props(port, 7));
        await("max.clients follows", () -> server().maxClients() == 7);
        assertSame(status, server());
        assertEquals(port, server().port());
        assertEquals("127.0.0.1", server().bindAddress());
        assertEquals("+PONG\r\n", exchange(port, "PING\r\n", 7));
    }

    @Test
    public void theServerBundleCanBeUpdatedWhileTheNodeRuns() throws Exception {
        Bundle serverBundle = Stream.of(context.getBundles())
                .filter(b -> b.getSymbolicName().equals("tandem.server")).findFirst().orElseThrow();
        ServerStatus before = server();
        serverBundle.update();
        await("a new server instance listens", () -> {
            ServerStatus s = server();
            return s != null && s != before && s.port() > 0;
        });
        assertNotSame(before, server());
        assertEquals("+PONG\r\n", exchange(server().port(), "PING\r\n", 7));
    }

    @Test
    public void everyConfigurationAttributeIsDescribedAndDocumented() throws IOException {
        Path doc = Path.of(System.getProperty("tandem.docs"), "configuration.md");
        String reference = Files.readString(doc);
        int attributes = 0;
        for (Bundle b : context.getBundles()) {
            if (!b.getSymbolicName().startsWith("tandem.")) {
                continue;
            }
            MetaTypeInformation info = metaType.getMetaTypeInformation(b);
            for (String pid : info.getPids()) {
                ObjectClassDefinition ocd = info.getObjectClassDefinition(pid, null);
                assertTrue("configuration.md documents PID " + pid, reference.contains("`" + pid + "`"));
                for (AttributeDefinition ad : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL)) {
                    attributes++;
                    assertNotNull(pid + "/" + ad.getID() + " has a description", ad.getDescription());
                    assertFalse(pid + "/" + ad.getID() + " has a description", ad.getDescription().isBlank());
                    String row = "| `" + ad.getID() + "` | `" + String.join(",", ad.getDefaultValue()) + "` |";
                    assertTrue("configuration.md has the row " + row, reference.contains(row));
                }
            }
        }
        assertTrue("attributes were checked", attributes > 0);
    }

    private ServerStatus server() {
        ServiceReference<ServerStatus> ref = context.getServiceReference(ServerStatus.class);
        return ref == null ? null : context.getService(ref);
    }

    private static Dictionary<String, Object> props(int port, int maxClients) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("port", port);
        props.put("max.clients", maxClients);
        return props;
    }

    static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private static String exchange(int port, String request, int replyLength) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return read(socket.getInputStream(), replyLength);
        }
    }

    private static String read(InputStream in, int length) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (out.size() < length) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            out.write(b);
        }
        return out.toString(StandardCharsets.US_ASCII);
    }

    /** Polls {@code condition} every 20 ms until it holds, failing after {@link #DEADLINE}. */
    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, DEADLINE, Duration.ofMillis(20), condition);
    }
}
