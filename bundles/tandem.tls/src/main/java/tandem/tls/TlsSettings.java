package tandem.tls;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import tandem.api.tls.TlsMaterial.ClientAuth;
import tandem.protocol.config.PropertyCheck;

/**
 * The validated TLS configuration. Files are absolute (relative ones resolve against the node's home); every check
 * names the property it refuses.
 *
 * <p>The same settings are reachable under Redis' names through {@code CONFIG GET/SET}: {@link #parameters} and
 * {@link #with} translate between the two.
 */
record TlsSettings(Path certFile, Path keyFile, String keyFilePass, Path clientCertFile, Path clientKeyFile,
        String clientKeyFilePass, Path caCertFile, Path caCertDir, ClientAuth authClients, boolean replication,
        List<String> protocols, List<String> ciphers, List<String> ciphersuites, String provider,
        long reloadIntervalMs, Path home) {

    static final String PID = "tandem.tls";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);
    static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");

    static TlsSettings of(TlsComponent.Config c, Path home) {
        Map<String, String> redis = new LinkedHashMap<>();
        redis.put("tls-cert-file", c.cert_file());
        redis.put("tls-key-file", c.key_file());
        redis.put("tls-key-file-pass", c.key_file_pass());
        redis.put("tls-client-cert-file", c.client_cert_file());
        redis.put("tls-client-key-file", c.client_key_file());
        redis.put("tls-client-key-file-pass", c.client_key_file_pass());
        redis.put("tls-ca-cert-file", c.ca_cert_file());
        redis.put("tls-ca-cert-dir", c.ca_cert_dir());
        redis.put("tls-auth-clients", c.auth_clients());
        redis.put("tls-replication", c.replication() ? "yes" : "no");
        redis.put("tls-protocols", c.protocols());
        redis.put("tls-ciphers", c.ciphers());
        redis.put("tls-ciphersuites", c.ciphersuites());
        redis.put("tls-provider", c.provider());
        return parse(redis, CHECK.range("reload.interval.ms", c.reload_interval_ms(), 0, 86_400_000L), home);
    }

    /** The property of {@code tandem.tls} each Redis parameter is kept in, for error messages. */
    private static String property(String redisName) {
        return redisName.substring("tls-".length()).replace('-', '.');
    }

    private static TlsSettings parse(Map<String, String> p, long reloadMs, Path home) {
        Path cert = file(p, "tls-cert-file", home);
        Path key = file(p, "tls-key-file", home);
        if ((cert == null) != (key == null)) {
            throw CHECK.invalid(cert == null ? "cert.file" : "key.file", "",
                    "cert.file and key.file are set together");
        }
        Path clientCert = file(p, "tls-client-cert-file", home);
        Path clientKey = file(p, "tls-client-key-file", home);
        if ((clientCert == null) != (clientKey == null)) {
            throw CHECK.invalid(clientCert == null ? "client.cert.file" : "client.key.file", "",
                    "client.cert.file and client.key.file are set together");
        }
        Path caFile = file(p, "tls-ca-cert-file", home);
        Path caDir = file(p, "tls-ca-cert-dir", home);
        if (cert != null && caFile == null && caDir == null) {
            throw CHECK.invalid("ca.cert.file", "", "a CA (ca.cert.file or ca.cert.dir) is required with cert.file: "
                    + "only the configured CAs are trusted, never the JDK's store");
        }
        ClientAuth auth = switch (value(p, "tls-auth-clients").toLowerCase(Locale.ROOT)) {
            case "yes" -> ClientAuth.YES;
            case "no" -> ClientAuth.NO;
            case "optional" -> ClientAuth.OPTIONAL;
            default -> throw CHECK.invalid("auth.clients", value(p, "tls-auth-clients"), "must be yes, no or optional");
        };
        boolean replication = switch (value(p, "tls-replication").toLowerCase(Locale.ROOT)) {
            case "yes", "true" -> true;
            case "no", "false" -> false;
            default -> throw CHECK.invalid("replication", value(p, "tls-replication"), "must be yes or no");
        };
        List<String> protocols = words(value(p, "tls-protocols"));
        for (String protocol : protocols) {
            if (!PROTOCOLS.contains(protocol)) {
                throw CHECK.invalid("protocols", value(p, "tls-protocols"),
                        "'" + protocol + "' is not TLSv1.2 or TLSv1.3 (older versions are not served)");
            }
        }
        String provider = value(p, "tls-provider");
        if (!provider.equals("JDK") && !provider.equals("BCJSSE")) {
            throw CHECK.invalid("provider", provider, "must be JDK or BCJSSE");
        }
        return new TlsSettings(cert, key, value(p, "tls-key-file-pass"), clientCert, clientKey,
                value(p, "tls-client-key-file-pass"), caFile, caDir, auth, replication, protocols,
                suites(p, "tls-ciphers"), suites(p, "tls-ciphersuites"), provider, reloadMs, home);
    }

    /** @return the TLS versions served: those named, or (none named, Redis's default) TLSv1.2 and TLSv1.3 */
    List<String> served() {
        return protocols.isEmpty() ? List.of("TLSv1.2", "TLSv1.3") : protocols;
    }

    /** @return whether a server certificate is configured at all */
    boolean configured() {
        return certFile != null;
    }

    /** Every file the material is read from, for the reload check. */
    List<Path> files() {
        List<Path> files = new ArrayList<>();
        for (Path f : new Path[] {certFile, keyFile, clientCertFile, clientKeyFile, caCertFile, caCertDir}) {
            if (f != null) {
                files.add(f);
            }
        }
        return files;
    }

    /** @return Redis' TLS parameters with these values, for {@code CONFIG GET} (passwords included, as Redis) */
    Map<String, String> parameters() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("tls-cert-file", text(certFile));
        m.put("tls-key-file", text(keyFile));
        m.put("tls-key-file-pass", keyFilePass);
        m.put("tls-client-cert-file", text(clientCertFile));
        m.put("tls-client-key-file", text(clientKeyFile));
        m.put("tls-client-key-file-pass", clientKeyFilePass);
        m.put("tls-ca-cert-file", text(caCertFile));
        m.put("tls-ca-cert-dir", text(caCertDir));
        m.put("tls-auth-clients", authClients.name().toLowerCase(Locale.ROOT));
        m.put("tls-replication", replication ? "yes" : "no");
        m.put("tls-protocols", String.join(" ", protocols));
        m.put("tls-ciphers", String.join(":", ciphers));
        m.put("tls-ciphersuites", String.join(":", ciphersuites));
        m.put("tls-provider", provider);
        return m;
    }

    /**
     * @param changes Redis parameter names and values
     * @return these settings with the changes, validated
     * @throws IllegalArgumentException naming a parameter that is unknown or invalid
     */
    TlsSettings with(Map<String, String> changes) {
        Map<String, String> p = parameters();
        for (Map.Entry<String, String> e : changes.entrySet()) {
            if (!p.containsKey(e.getKey())) {
                throw new IllegalArgumentException("not a TLS parameter: " + e.getKey());
            }
            p.put(e.getKey(), e.getValue());
        }
        return parse(p, reloadIntervalMs, home);
    }

    private static String value(Map<String, String> p, String name) {
        String v = p.get(name);
        return v == null ? "" : v.trim();
    }

    private static Path file(Map<String, String> p, String name, Path home) {
        String v = value(p, name);
        if (v.isEmpty()) {
            return null;
        }
        try {
            return home.resolve(Path.of(v)).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw CHECK.invalid(property(name), v, "is not a valid path");
        }
    }

    /** Cipher lists are separated by colons (OpenSSL's form) or spaces; names are the JDK's (IANA) names. */
    private static List<String> suites(Map<String, String> p, String name) {
        String v = value(p, name);
        return v.isEmpty() ? List.of() : List.of(v.split("[:,\\s]+"));
    }

    private static List<String> words(String v) {
        return v.isEmpty() ? List.of() : List.of(v.split("\\s+"));
    }

    private static String text(Path p) {
        return p == null ? "" : p.toString();
    }

    /** Without the passwords, for logs. */
    @Override
    public String toString() {
        return "TlsSettings[cert=" + certFile + ", ca=" + (caCertFile != null ? caCertFile : caCertDir)
                + ", authClients=" + authClients + ", replication=" + replication + ", protocols=" + protocols
                + ", provider=" + provider + "]";
    }
}
