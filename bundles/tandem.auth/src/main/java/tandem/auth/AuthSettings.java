package tandem.auth;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

import tandem.api.home.NodeHome;
import tandem.protocol.config.PropertyCheck;

/**
 * The validated configuration of replication authentication. Every check names the property it refuses, so that an
 * operator who mistypes {@code etc/tandem.auth.cfg} reads which line is wrong.
 *
 * @param home           the node's home ({@link NodeHome#directory()}), absolute
 * @param keyFile        the node's private key (raw 32-byte Ed25519 seed), absolute
 * @param authorizedKeys the {@code authorized_keys} file, absolute
 * @param reloadCheckMs  the least time between two checks of whether {@code authorized_keys} changed
 */
record AuthSettings(Path home, Path keyFile, Path authorizedKeys, long reloadCheckMs) {

    static final String PID = "tandem.auth";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);

    static AuthSettings of(AuthComponent.Config c, NodeHome nodeHome) {
        Path home = nodeHome.directory();
        Path keyFile = file("key.file", c.key_file(), home);
        Path authorizedKeys = file("authorized.keys", c.authorized_keys(), home);
        if (keyFile.equals(authorizedKeys)) {
            throw CHECK.invalid("authorized.keys", c.authorized_keys(), "is the same file as key.file");
        }
        long reload = CHECK.range("reload.check.ms", c.reload_check_ms(), 0, 3_600_000);
        return new AuthSettings(home, keyFile, authorizedKeys, reload);
    }

    /** The comment of this node's authorizing line: {@code tandem@<name of the home directory>}. */
    String comment() {
        return comment(home);
    }

    /** @return {@code value} resolved against {@code home} when relative, absolute and normalized */
    static Path resolve(Path home, String value) {
        return home.resolve(Path.of(value)).toAbsolutePath().normalize();
    }

    static String comment(Path directory) {
        Path name = directory.getFileName();
        String n = name == null ? "" : name.toString().strip().replaceAll("\\s+", "_");
        return n.isEmpty() ? "tandem" : "tandem@" + n;
    }

    private static Path file(String property, String configured, Path home) {
        String value = configured == null ? "" : configured.trim();
        if (value.isEmpty()) {
            throw CHECK.invalid(property, "", "must name a file (relative to tandem.home or absolute)");
        }
        Path path;
        try {
            path = resolve(home, value);
        } catch (InvalidPathException e) {
            throw CHECK.invalid(property, value, "is not a valid path");
        }
        if (path.getFileName() == null || path.equals(home)) {
            throw CHECK.invalid(property, value, "must name a file, not a directory");
        }
        return path;
    }
}
