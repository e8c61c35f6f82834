package tandem.health;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Dictionary;
import java.util.Hashtable;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.home.NodeHome;
import tandem.api.server.ServerStatus;
import tandem.api.tls.TlsMaterial;

/**
 * Where the health endpoint listens. Felix HTTP owns the listener and reads its address from its own
 * configuration ({@code org.apache.felix.http}); this component writes that configuration from {@code tandem.health}
 * so that an operator configures one PID, and a change of port or address applies live (Jetty rebinds; the node's
 * clients never notice). By default the port follows the RESP port (plus 3000), live.
 * While this component is inactive (the health feature removed or being updated), Felix HTTP
 * is disabled: no port stays open that serves nothing.
 */
@Component(immediate = true, configurationPid = HealthSettings.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = HttpEndpoint.Config.class)
public final class HttpEndpoint {

    private static final Logger LOG = System.getLogger("tandem.health");
    static final String HTTP_PID = "org.apache.felix.http";

    @ObjectClassDefinition(id = HealthSettings.PID, name = "Tandem health",
            description = "The node's health and metrics endpoint: /health, /ready, /metrics and a status page.")
    public @interface Config {

        @AttributeDefinition(description = "Address the HTTP endpoint binds to: an IP literal (default 127.0.0.1, "
                + "loopback only; 0.0.0.0 exposes health and metrics to the network). Applies live.")
        String bind() default "127.0.0.1";

        @AttributeDefinition(description = "TCP port of the HTTP endpoint (1..65535); 0 (default): the RESP port plus "
                + "3000 (9379 beside 6379), so that nodes on one machine never collide; -1: serve no HTTP at all. "
                + "Applies live.")
        int port() default 0;

        @AttributeDefinition(description = "Most threads Jetty serves requests with (4..64, default 8): health is "
                + "read by a scraper and a person, not by clients. Applies live.")
        int threads() default 8;

        @AttributeDefinition(description = "Serves HTTPS instead of HTTP on port (default false), with the "
                + "certificate of etc/tandem.tls.cfg, which it follows when that rotates; a scraper must present a "
                + "client certificate as tls.auth.clients there says (yes: required). Applies live.")
        boolean tls() default false;
    }

    /** What is added to the RESP port when {@code port} is 0. */
    static final int RESP_PORT_OFFSET = 3000;

    private final ConfigurationAdmin configAdmin;
    private final Path tlsDirectory;
    private final ScheduledExecutorService tlsWatch = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tandem-health-tls");
        t.setDaemon(true);
        return t;
    });
    private volatile Config config;
    private volatile ServerStatus server;
    /** The node's TLS material, for {@code tls=true}. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile TlsMaterial tls;
    /** Protects the key store files; one per activation, so that an unchanged certificate changes no setting. */
    private final char[] storePassword = new SecureRandom().ints(24, 'a', 'z' + 1)
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString().toCharArray();
    /** The TLS material's generation the key stores were last written from; -1: none written. */
    private long storesGeneration = -1;

    @Activate
    public HttpEndpoint(@Reference ConfigurationAdmin configAdmin, @Reference NodeHome home, Config config) {
        this.configAdmin = configAdmin;
        this.tlsDirectory = home.directory().resolve("data/tls");
        HealthSettings.validate(config);
        this.config = config;
        apply();
        // Jetty reads its key store from a file when it starts: a rotation of the node's certificate is followed by
        // writing the file again and restarting Jetty through its configuration
        tlsWatch.scheduleWithFixedDelay(() -> {
            TlsMaterial t = tls;
            if (this.config.tls() && t != null && t.generation() != storesGeneration) {
                apply();
            }
        }, 1, 1, TimeUnit.SECONDS);
    }

    @Modified
    void modified(Config next) {
        try {
            HealthSettings.validate(next);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "tandem.health: configuration refused, the endpoint stays as it was: {0}",
                    e.getMessage());
            return;
        }
        config = next;
        apply();
    }

    /**
     * The RESP server: its port decides this endpoint's when {@code port} is 0. A live change of the RESP port
     * updates the server's service properties once it listens on the new one (DS does so after its
     * {@code @Modified}), which moves this endpoint along.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, updated = "updatedServer")
    void bindServer(ServerStatus s) {
        server = s;
        if (config != null && config.port() == 0) {
            apply();
        }
    }

    void updatedServer(ServerStatus s) {
        bindServer(s);
    }

    void unbindServer(ServerStatus s) {
        if (server == s) {
            server = null;
        }
    }

    @Deactivate
    void deactivate() {
        tlsWatch.shutdownNow();
        Dictionary<String, Object> p = new Hashtable<>();
        p.put("org.apache.felix.http.enable", false);
        update(p);
    }

    /** @return the port to serve on, or -1 for none (off, or derived from a RESP port not known yet) */
    static int port(Config config, ServerStatus server) {
        if (config.port() != 0) {
            return config.port();
        }
        int resp = server == null ? -1 : server.port();
        return resp > 0 && resp + RESP_PORT_OFFSET <= 65535 ? resp + RESP_PORT_OFFSET : -1;
    }

    private synchronized void apply() {
        Config config = this.config;
        int port = port(config, server);
        if (port < 0 && config.port() == 0) {
            ServerStatus s = server;
            if (s != null && s.port() > 0) {
                LOG.log(Level.ERROR, "tandem.health: the RESP port {0} plus {1} is no TCP port: set port in "
                        + "etc/tandem.health.cfg", s.port(), RESP_PORT_OFFSET);
            } else {
                return; // the RESP server is not up yet: its binding applies this again
            }
        }
        Dictionary<String, Object> p = new Hashtable<>();
        boolean enabled = port > 0;
        boolean secure = enabled && config.tls();
        if (secure && !https(p)) {
            enabled = false;
            secure = false;
        }
        p.put("org.apache.felix.http.enable", enabled && !secure);
        p.put("org.osgi.service.http.port", enabled && !secure ? port : 0);
        p.put("org.apache.felix.https.enable", secure);
        p.put("org.osgi.service.http.port.secure", secure ? port : 0);
        p.put("org.apache.felix.http.host", config.bind());
        p.put("org.apache.felix.http.jetty.threadpool.max", config.threads());
        p.put("org.apache.felix.http.jetty.acceptors", 1);
        p.put("org.apache.felix.http.jetty.selectors", 1);
        p.put("org.apache.felix.http.jetty.sendServerHeader", false);
        p.put("org.apache.felix.http.name", "tandem-health");
        if (update(p)) {
            LOG.log(Level.INFO, enabled ? "health endpoint: " + (secure ? "https" : "http") + "://" + config.bind()
                    + ":" + port + "/" : "health endpoint: disabled (port -1, or no TLS material for tls=true)");
        }
    }

    /**
     * Writes the node's certificate and CAs as PKCS#12 files Jetty reads ({@code data/tls/health-*.p12}, readable
     * by the node's user only) and puts Felix HTTP's HTTPS settings into {@code p}.
     *
     * @return false when there is no TLS material to serve, which is logged
     */
    private boolean https(Dictionary<String, Object> p) {
        TlsMaterial t = tls;
        if (t == null || !t.ready()) {
            LOG.log(Level.ERROR, "tandem.health: tls=true but {0}; the endpoint is off until it is",
                    t == null ? "the TLS component (tandem.tls) is not active" : "no TLS material is loaded");
            return false;
        }
        long generation = t.generation();
        char[] password = storePassword;
        Path key = tlsDirectory.resolve("health-key.p12");
        Path trust = tlsDirectory.resolve("health-trust.p12");
        try {
            Map<String, KeyStore> stores = t.keyStores(password);
            Files.createDirectories(tlsDirectory);
            write(stores.get("key"), key, password);
            write(stores.get("trust"), trust, password);
        } catch (IOException | GeneralSecurityException | IllegalStateException e) {
            LOG.log(Level.ERROR, "tandem.health: the HTTPS key stores cannot be written to {0}: {1}", tlsDirectory,
                    e.getMessage());
            return false;
        }
        storesGeneration = generation;
        String pw = new String(password);
        p.put("org.apache.felix.https.keystore", key.toString());
        p.put("org.apache.felix.https.keystore.type", "PKCS12");
        p.put("org.apache.felix.https.keystore.password", pw);
        p.put("org.apache.felix.https.keystore.key.password", pw);
        p.put("org.apache.felix.https.truststore", trust.toString());
        p.put("org.apache.felix.https.truststore.type", "PKCS12");
        p.put("org.apache.felix.https.truststore.password", pw);
        p.put("org.apache.felix.https.clientcertificate", switch (t.clientAuth()) {
            case YES -> "needs";
            case OPTIONAL -> "wants";
            case NO -> "none";
        });
        p.put("tandem.tls.generation", generation);
        return true;
    }

    private static void write(KeyStore store, Path file, char[] password) throws IOException, GeneralSecurityException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (OutputStream out = Files.newOutputStream(tmp)) {
            store.store(out, password);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** @return whether Felix HTTP's configuration changed */
    private boolean update(Dictionary<String, Object> p) {
        try {
            Configuration c = configAdmin.getConfiguration(HTTP_PID, "?");
            Dictionary<String, Object> current = c.getProperties();
            if (current != null && same(current, p)) {
                return false;
            }
            c.update(p);
            return true;
        } catch (IOException | IllegalStateException e) {
            // ConfigAdmin going away with the framework: nothing to change any more
            LOG.log(Level.DEBUG, "could not update " + HTTP_PID, e);
            return false;
        }
    }

    private static boolean same(Dictionary<String, Object> current, Dictionary<String, Object> wanted) {
        for (java.util.Enumeration<String> keys = wanted.keys(); keys.hasMoreElements(); ) {
            String k = keys.nextElement();
            if (!String.valueOf(wanted.get(k)).equals(String.valueOf(current.get(k)))) {
                return false;
            }
        }
        return true;
    }
}
