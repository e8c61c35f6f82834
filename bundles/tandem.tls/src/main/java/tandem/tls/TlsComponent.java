package tandem.tls;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Provider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLEngine;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.home.NodeHome;
import tandem.api.tls.TlsMaterial;
import tandem.api.tls.TlsStatus;

/**
 * The node's TLS material ({@code etc/tandem.tls.cfg}), loaded from PEM files and kept current: a configuration
 * change ({@code @Modified}, or {@code CONFIG SET tls-…} through {@link #set}) and a change of any of the files
 * (checked every {@code reload.interval.ms}) load it again. Material that does not load is refused with a logged
 * reason and the previous one stays; connections take the material current when they open, so a rotation never
 * touches an established one.
 */
@Component(service = TlsMaterial.class, immediate = true, configurationPid = TlsSettings.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = TlsComponent.Config.class)
public final class TlsComponent implements TlsMaterial {

    private static final Logger LOG = System.getLogger("tandem.tls");

    @ObjectClassDefinition(id = TlsSettings.PID, name = "Tandem TLS",
            description = "The node's certificate, key and trusted CAs, which its TLS ports and links use. Paths "
                    + "are relative to the node's home or absolute; every change applies live to new connections.")
    public @interface Config {

        @AttributeDefinition(description = "PEM file with this node's certificate, then its chain (Redis' "
                + "tls-cert-file); empty (default): no TLS is served.")
        String cert_file() default "";

        @AttributeDefinition(description = "PEM file with the certificate's private key: PKCS#8, PKCS#1 or SEC1, "
                + "encrypted or not (Redis' tls-key-file).")
        String key_file() default "";

        @AttributeDefinition(description = "Password of an encrypted key.file (Redis' tls-key-file-pass).",
                type = AttributeType.PASSWORD)
        String key_file_pass() default "";

        @AttributeDefinition(description = "PEM certificate this node presents when it connects to another node "
                + "(Redis' tls-client-cert-file); empty: cert.file.")
        String client_cert_file() default "";

        @AttributeDefinition(description = "Key of client.cert.file (Redis' tls-client-key-file).")
        String client_key_file() default "";

        @AttributeDefinition(description = "Password of an encrypted client.key.file.", type = AttributeType.PASSWORD)
        String client_key_file_pass() default "";

        @AttributeDefinition(description = "PEM file of the CA certificates peers' certificates must chain to "
                + "(Redis' tls-ca-cert-file). The JDK's trust store is never used.")
        String ca_cert_file() default "";

        @AttributeDefinition(description = "Directory of CA certificates (*.pem, *.crt, *.cer), beside or instead "
                + "of ca.cert.file (Redis' tls-ca-cert-dir).")
        String ca_cert_dir() default "";

        @AttributeDefinition(description = "Whether clients of the RESP TLS port must present a certificate: yes "
                + "(default, as Redis), no, or optional. Node-to-node ports always require one.")
        String auth_clients() default "yes";

        @AttributeDefinition(description = "Whether a psync replica connects to its primary's TLS port "
                + "(Redis' tls-replication). The primary's address must then name its tls.port.")
        boolean replication() default false;

        @AttributeDefinition(description = "TLS versions served, separated by spaces: TLSv1.2 and/or TLSv1.3 "
                + "(default both, as Redis).")
        String protocols() default "";

        @AttributeDefinition(description = "TLS 1.2 cipher suites by their IANA names, separated by colons; empty "
                + "(default): the provider's.")
        String ciphers() default "";

        @AttributeDefinition(description = "TLS 1.3 cipher suites by their IANA names, separated by colons; empty "
                + "(default): the provider's.")
        String ciphersuites() default "";

        @AttributeDefinition(description = "JSSE provider: JDK (default, the JDK's SunJSSE) or BCJSSE "
                + "(BouncyCastle's, for FIPS-style deployments; needs the bctls bundle).")
        String provider() default "JDK";

        @AttributeDefinition(description = "How often (milliseconds) the files are checked for changes, which "
                + "reload them (0: never, 1..86400000; default 2000).")
        long reload_interval_ms() default 2000;
    }

    /** The files' modification times and sizes, compared to see whether anything changed. */
    private record Stamp(List<Object> parts) {
    }

    private final Path home;
    private final ScheduledExecutorService watcher;
    private volatile TlsSettings settings;
    private volatile Material material;
    private volatile Stamp stamp;
    private volatile long generation;
    private volatile long reloads;
    private volatile long loadedAt;
    private volatile String lastError = "";
    private ScheduledFuture<?> watch;

    @Activate
    public TlsComponent(@Reference NodeHome home, Config config) {
        this.home = home.directory();
        this.watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tandem-tls-reload");
            t.setDaemon(true);
            return t;
        });
        TlsSettings s = TlsSettings.of(config, this.home);
        String refused = load(s, "configuration");
        if (refused != null && s.configured()) {
            LOG.log(Level.ERROR, "tandem.tls: no TLS is served until the material loads: {0}", refused);
        }
        this.settings = s;
        schedule(s);
    }

    @Modified
    void modified(Config config) {
        TlsSettings next;
        try {
            next = TlsSettings.of(config, home);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "configuration change refused, the running TLS material stays: {0}", e.getMessage());
            return;
        }
        String refused = load(next, "configuration");
        if (refused != null && next.configured()) {
            LOG.log(Level.ERROR, "tandem.tls: configuration change refused, the running TLS material stays: {0}",
                    refused);
            return;
        }
        settings = next;
        schedule(next);
    }

    @Deactivate
    void deactivate() {
        watcher.shutdownNow();
    }

    @Override
    public boolean ready() {
        return material != null;
    }

    @Override
    public SSLEngine serverEngine(ClientAuth auth) {
        return current().serverEngine(auth);
    }

    @Override
    public SSLEngine clientEngine(String host, int port) {
        return current().clientEngine(host, port);
    }

    @Override
    public java.net.Socket clientSocket(java.net.Socket connected, String host, int port) throws IOException {
        Material m;
        try {
            m = current();
        } catch (IllegalStateException e) {
            throw new IOException(e.getMessage());
        }
        return m.clientSocket(connected, host, port);
    }

    @Override
    public javax.net.ssl.X509ExtendedKeyManager keyManager() {
        return Following.keys(this::current);
    }

    @Override
    public javax.net.ssl.X509ExtendedTrustManager trustManager() {
        return Following.trust(this::current);
    }

    @Override
    public ClientAuth clientAuth() {
        return settings.authClients();
    }

    @Override
    public boolean replication() {
        return settings.replication();
    }

    @Override
    public Map<String, KeyStore> keyStores(char[] password) {
        Material m = current();
        try {
            return Map.of("key", m.keyStore(password), "trust", m.trustStore());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("tandem.tls: the key stores cannot be made: " + e.getMessage(), e);
        }
    }

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public Map<String, String> parameters() {
        return settings.parameters();
    }

    @Override
    public synchronized String set(Map<String, String> changes) {
        TlsSettings next;
        try {
            next = settings.with(changes);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        String refused = load(next, "CONFIG SET");
        if (refused != null && next.configured()) {
            return refused;
        }
        settings = next;
        schedule(next);
        return null;
    }

    @Override
    public TlsStatus status() {
        Material m = material;
        if (m == null) {
            return new TlsStatus(settings.provider(), "", 0, "", 0, 0, reloads, lastError);
        }
        return new TlsStatus(m.providerName, m.chain[0].getSubjectX500Principal().getName(),
                m.chain[0].getNotAfter().getTime(), m.fingerprint(), m.cas.size(), loadedAt, reloads, lastError);
    }

    private Material current() {
        Material m = material;
        if (m == null) {
            throw new IllegalStateException(settings.configured()
                    ? "TLS material did not load: " + lastError
                    : "no TLS certificate is configured (cert.file in etc/tandem.tls.cfg)");
        }
        return m;
    }

    /**
     * Loads the material {@code s} names and makes it current.
     *
     * @return null when it loaded (or none is configured: then none is current), otherwise why not; the current
     *         material then stays
     */
    private synchronized String load(TlsSettings s, String cause) {
        if (!s.configured()) {
            if (material != null) {
                LOG.log(Level.INFO, "tandem.tls: no certificate configured any more; TLS ports serve no new "
                        + "connection");
            }
            material = null;
            stamp = stamp(s);
            generation++;
            return null;
        }
        Stamp before = stamp(s);
        try {
            Material m = Material.load(s, provider(s));
            material = m;
            stamp = before;
            generation++;
            reloads++;
            loadedAt = System.currentTimeMillis();
            lastError = "";
            LOG.log(Level.INFO, "tandem.tls: loaded ({0}) {1}, expires {2}, SHA-256 {3}, {4} trusted CA(s), {5}",
                    cause, m.chain[0].getSubjectX500Principal().getName(), m.chain[0].getNotAfter().toInstant(),
                    m.fingerprint(), m.cas.size(), m.providerName);
            return null;
        } catch (IOException | GeneralSecurityException | RuntimeException | LinkageError e) {
            lastError = String.valueOf(e.getMessage());
            if (s == settings) {
                stamp = before; // a broken file is reported once, not at every check, until it changes again
            }
            return lastError;
        }
    }

    private static Provider provider(TlsSettings s) throws IOException {
        if (!s.provider().equals("BCJSSE")) {
            return null;
        }
        try {
            return BcJsse.provider();
        } catch (LinkageError e) {
            throw new IOException("provider=BCJSSE needs BouncyCastle's bctls bundle, which is not installed");
        }
    }

    private synchronized void schedule(TlsSettings s) {
        if (watch != null) {
            watch.cancel(false);
            watch = null;
        }
        if (s.configured() && s.reloadIntervalMs() > 0) {
            watch = watcher.scheduleWithFixedDelay(this::check, s.reloadIntervalMs(), s.reloadIntervalMs(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Reloads when a file changed; runs on the watcher thread. */
    private void check() {
        TlsSettings s = settings;
        if (Objects.equals(stamp(s), stamp)) {
            return;
        }
        String refused = load(s, "files changed");
        if (refused != null) {
            LOG.log(Level.ERROR, "tandem.tls: the changed files do not load, {0}: {1}",
                    material == null ? "no TLS is served" : "the previous material stays", refused);
        }
    }

    private static Stamp stamp(TlsSettings s) {
        List<Object> parts = new ArrayList<>();
        for (Path f : s.files()) {
            parts.add(f);
            try {
                if (Files.isDirectory(f)) {
                    try (var list = Files.list(f)) {
                        list.sorted().forEach(p -> parts.add(attributes(p)));
                    }
                } else {
                    parts.add(attributes(f));
                }
            } catch (IOException | RuntimeException e) {
                parts.add("unreadable");
            }
        }
        return new Stamp(parts);
    }

    private static Object attributes(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
            return List.of(f.toString(), a.lastModifiedTime(), a.size(), String.valueOf(a.fileKey()));
        } catch (IOException e) {
            return List.of(f.toString(), "missing");
        }
    }
}
