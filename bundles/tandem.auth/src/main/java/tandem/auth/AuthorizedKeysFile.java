package tandem.auth;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import tandem.api.auth.AuthorizedKey;
import tandem.protocol.files.DurableFiles;

/**
 * The {@code authorized_keys} file: one key per line, {@code <permission> <base64 32-byte key> [comment]}, {@code #}
 * comments and blank lines ignored. A malformed line is logged with its file and line number and skipped; a missing
 * file authorizes nothing.
 *
 * <p>The file is re-read when its modification time, size or identity (inode) changed, checked on demand (by
 * {@link #keys()} and {@link #replicationKey}) at most once per reload interval: no thread. {@link #allow} and
 * {@link #revoke} edit the lines on disk as they are (comments and other lines stay) and replace the file
 * atomically.
 */
final class AuthorizedKeysFile {

    /** The permissions a line may carry; only {@code replication} grants anything here. */
    static final Set<String> PERMISSIONS = Set.of("operator", "trader", "custodian", "readonly", "replication");
    static final String REPLICATION = "replication";

    private static final Logger LOG = System.getLogger("tandem.auth");

    /** What was read: valid entries in file order, by canonical base64 key, and why the other lines were skipped. */
    record Parsed(List<AuthorizedKey> keys, Map<String, AuthorizedKey> byKey, List<String> problems) {
    }

    /** Modification time, size and file key; equal stamps are taken as an unchanged file. */
    private record Stamp(FileTime modified, long size, Object fileKey) {
        static final Stamp MISSING = new Stamp(null, -1, null);

        /** Equal to no other stamp, so that the next check reads again. */
        static Stamp unreadable() {
            return new Stamp(null, -2, new Object());
        }
    }

    private record Snapshot(Stamp stamp, Parsed parsed) {
    }

    private final LongSupplier nanoClock;
    private Path file;
    private long intervalNs;
    private long lastCheckNs;
    private boolean checked;
    private volatile Snapshot snapshot;

    /**
     * Reads the file now.
     *
     * @param nanoClock {@link System#nanoTime} but in tests
     */
    AuthorizedKeysFile(Path file, long reloadCheckMs, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.file = file;
        this.intervalNs = TimeUnit.MILLISECONDS.toNanos(reloadCheckMs);
        synchronized (this) {
            load();
        }
    }

    /** Switches to another file (read at once) and/or another interval. */
    synchronized void reconfigure(Path newFile, long reloadCheckMs) {
        intervalNs = TimeUnit.MILLISECONDS.toNanos(reloadCheckMs);
        if (!newFile.equals(file)) {
            LOG.log(Level.INFO, "authorized keys: now {0} (was {1})", newFile, file);
            file = newFile;
            load();
        }
    }

    synchronized Path file() {
        return file;
    }

    /** @return the valid entries, all permissions, in file order, after a re-read if the file changed */
    List<AuthorizedKey> keys() {
        refreshIfDue();
        return snapshot.parsed().keys();
    }

    /** @return the last parse of the file (no check for a change) */
    Parsed parsed() {
        return snapshot.parsed();
    }

    /** @return whether {@code publicKey} is listed with the {@code replication} permission, after a re-read if due */
    boolean replicationKey(byte[] publicKey) {
        refreshIfDue();
        AuthorizedKey k = snapshot.parsed().byKey().get(Base64.getEncoder().encodeToString(publicKey));
        return k != null && REPLICATION.equals(k.permission());
    }

    /**
     * Adds {@code replication <key> <comment>} at the end of the file unless the key is there with that permission.
     *
     * @throws IllegalArgumentException when the key is not standard base64 of 32 bytes
     * @throws IllegalStateException    when the key is listed with another permission (a key has one permission;
     *                                  the line is left for the operator to change), or the file cannot be written
     */
    synchronized void allow(String base64Key, String comment) {
        byte[] key = decode(base64Key);
        String canonical = Base64.getEncoder().encodeToString(key);
        List<String> lines = readLines();
        Parsed current = parse(file.toString(), lines);
        AuthorizedKey existing = current.byKey().get(canonical);
        if (existing != null) {
            if (REPLICATION.equals(existing.permission())) {
                LOG.log(Level.INFO, "authorized keys: {0} is already allowed for replication", canonical);
                return;
            }
            throw new IllegalStateException(file + " lists " + canonical + " with the permission "
                    + existing.permission() + "; a key has one permission, edit that line to change it");
        }
        String c = comment == null ? "" : comment.strip().replaceAll("\\s+", " ");
        lines.add(REPLICATION + " " + canonical + (c.isEmpty() ? "" : " " + c));
        write(lines);
        LOG.log(Level.INFO, "authorized keys: allowed {0} for replication ({1})", canonical, file);
    }

    /**
     * Removes every line that lists the key, whatever its permission.
     *
     * @return false when no line listed it
     * @throws IllegalArgumentException when the key is not standard base64 of 32 bytes
     */
    synchronized boolean revoke(String base64Key) {
        byte[] key = decode(base64Key);
        String canonical = Base64.getEncoder().encodeToString(key);
        List<String> lines = readLines();
        List<String> kept = new ArrayList<>(lines.size());
        for (String line : lines) {
            if (!canonical.equals(keyOf(line))) {
                kept.add(line);
            }
        }
        if (kept.size() == lines.size()) {
            return false;
        }
        write(kept);
        LOG.log(Level.INFO, "authorized keys: revoked {0} ({1})", canonical, file);
        return true;
    }

    /**
     * Parses the lines of an {@code authorized_keys} file. A key listed twice keeps its first line.
     *
     * @param name the file's name in the problems
     */
    static Parsed parse(String name, List<String> lines) {
        List<AuthorizedKey> keys = new ArrayList<>();
        Map<String, AuthorizedKey> byKey = new HashMap<>();
        Map<String, Integer> lineOf = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            int number = i + 1;
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] tokens = line.split("\\s+", 3);
            String why = null;
            byte[] key = null;
            if (!PERMISSIONS.contains(tokens[0])) {
                why = "unknown permission '" + tokens[0] + "' (operator, trader, custodian, readonly or replication)";
            } else if (tokens.length < 2) {
                why = "no key after the permission";
            } else {
                try {
                    key = Base64.getDecoder().decode(tokens[1]);
                    if (key.length != NodeKey.PUBLIC_KEY_BYTES) {
                        why = "the key is " + key.length + " bytes, an Ed25519 public key is "
                                + NodeKey.PUBLIC_KEY_BYTES;
                    }
                } catch (IllegalArgumentException e) {
                    why = "the key is not standard base64: " + e.getMessage();
                }
            }
            if (why == null) {
                String canonical = Base64.getEncoder().encodeToString(key);
                Integer first = lineOf.get(canonical);
                if (first != null) {
                    why = "the key is listed already at line " + first;
                } else {
                    AuthorizedKey k = new AuthorizedKey(tokens[0], canonical, tokens.length > 2 ? tokens[2] : "");
                    keys.add(k);
                    byKey.put(canonical, k);
                    lineOf.put(canonical, number);
                }
            }
            if (why != null) {
                problems.add(name + ":" + number + ": " + why + "; line skipped");
            }
        }
        return new Parsed(Collections.unmodifiableList(keys), Collections.unmodifiableMap(byKey),
                Collections.unmodifiableList(problems));
    }

    /** @return the 32-byte key of standard base64 {@code base64Key} */
    static byte[] decode(String base64Key) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(base64Key == null ? "" : base64Key.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a key: " + base64Key + " is not standard base64 ("
                    + e.getMessage() + ")");
        }
        if (key.length != NodeKey.PUBLIC_KEY_BYTES) {
            throw new IllegalArgumentException("not a key: " + base64Key + " is " + key.length
                    + " bytes of base64, an Ed25519 public key is " + NodeKey.PUBLIC_KEY_BYTES);
        }
        return key;
    }

    /** @return the canonical base64 key of a line that lists one (whatever its permission), else null */
    private static String keyOf(String line) {
        String l = line.strip();
        if (l.isEmpty() || l.startsWith("#")) {
            return null;
        }
        String[] tokens = l.split("\\s+", 3);
        if (tokens.length < 2) {
            return null;
        }
        try {
            byte[] key = Base64.getDecoder().decode(tokens[1]);
            return key.length == NodeKey.PUBLIC_KEY_BYTES ? Base64.getEncoder().encodeToString(key) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private void refreshIfDue() {
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (checked && now - lastCheckNs < intervalNs) {
                return;
            }
            Stamp stamp = stamp();
            if (!stamp.equals(snapshot.stamp())) {
                load();
            } else {
                checked = true;
                lastCheckNs = now;
            }
        }
    }

    /** Reads and parses the file; logs what was skipped. Holds the lock. */
    private void load() {
        Stamp stamp = stamp();
        Snapshot previous = snapshot;
        Snapshot next;
        if (stamp == Stamp.MISSING) {
            next = new Snapshot(stamp, parse(file.toString(), List.of()));
            if (previous == null || previous.stamp() != Stamp.MISSING) {
                LOG.log(Level.INFO, "authorized keys: {0} does not exist: no replica is authorized", file);
            }
        } else {
            try {
                List<String> lines = lines(Files.readAllBytes(file));
                next = new Snapshot(stamp, parse(file.toString(), lines));
                for (String problem : next.parsed().problems()) {
                    LOG.log(Level.WARNING, problem);
                }
                long replication = next.parsed().keys().stream()
                        .filter(k -> REPLICATION.equals(k.permission())).count();
                LOG.log(Level.INFO, "authorized keys: read {0}: {1} key(s), {2} for replication, {3} line(s) "
                        + "skipped", file, next.parsed().keys().size(), replication, next.parsed().problems().size());
            } catch (NoSuchFileException e) {
                next = new Snapshot(Stamp.MISSING, parse(file.toString(), List.of()));
                LOG.log(Level.INFO, "authorized keys: {0} does not exist: no replica is authorized", file);
            } catch (IOException e) {
                next = new Snapshot(Stamp.unreadable(), parse(file.toString(), List.of()));
                LOG.log(Level.ERROR, "authorized keys: cannot read {0}, no replica is authorized until it can be "
                        + "read: {1}", file, e.toString());
            }
        }
        snapshot = next;
        checked = true;
        lastCheckNs = nanoClock.getAsLong();
    }

    private Stamp stamp() {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new Stamp(a.lastModifiedTime(), a.size(), a.fileKey());
        } catch (NoSuchFileException e) {
            return Stamp.MISSING;
        } catch (IOException e) {
            return Stamp.unreadable();
        }
    }

    /** The lines on disk now, for an edit; none when there is no file. */
    private List<String> readLines() {
        try {
            return lines(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return new ArrayList<>();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e, e);
        }
    }

    private static List<String> lines(byte[] content) {
        String text = new String(content, StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>(text.lines().toList());
        return lines;
    }

    /** Replaces the file with {@code lines}, each ended by a newline, with the permissions it had; then reads it. */
    private void write(List<String> lines) {
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            text.append(line).append('\n');
        }
        try {
            Set<PosixFilePermission> permissions = KeyFilePermissions.OWNER_ONLY;
            if (Files.exists(file)) {
                Set<PosixFilePermission> existing = DurableFiles.permissions(file);
                if (existing != null) {
                    permissions = existing;
                }
            }
            DurableFiles.writeAtomically(file, text.toString().getBytes(StandardCharsets.UTF_8), permissions);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e, e);
        }
        load();
    }
}
