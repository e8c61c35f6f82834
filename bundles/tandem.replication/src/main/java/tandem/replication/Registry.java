package tandem.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tandem.protocol.files.DurableFiles;

/**
 * The journal replicas this primary has served, by public key, persisted in {@code <state>/registry}: one line per
 * replica, {@code <base64 key> <first-seen epoch ms>}. The registry decides the default ack policy and, in the
 * next issue, the fence of a restarted primary; so it is written atomically (temporary file, fsync, rename, fsync of
 * the directory) before a new replica receives anything.
 */
final class Registry {

    private final Path file;
    private final Map<String, Long> replicas = new LinkedHashMap<>();

    Registry(Path directory) {
        this.file = directory.resolve("registry");
        try {
            Files.createDirectories(directory);
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    String[] parts = line.trim().split("\\s+");
                    if (parts.length >= 1 && !parts[0].isEmpty() && !parts[0].startsWith("#")) {
                        replicas.put(parts[0], parts.length > 1 ? parseLong(parts[1]) : 0L);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the replica registry " + file + ": " + e.getMessage(), e);
        }
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    synchronized boolean isEmpty() {
        return replicas.isEmpty();
    }

    synchronized List<String> ids() {
        return List.copyOf(replicas.keySet());
    }

    /** @return true when the key was new (and is now on disk) */
    synchronized boolean register(String key, long nowMillis) {
        if (replicas.containsKey(key)) {
            return false;
        }
        replicas.put(key, nowMillis);
        write();
        return true;
    }

    synchronized boolean forget(String key) {
        if (replicas.remove(key) == null) {
            return false;
        }
        write();
        return true;
    }

    private void write() {
        StringBuilder sb = new StringBuilder(
                "# journal replicas this primary has served: <base64 key> <first seen ms>\n");
        replicas.forEach((k, v) -> sb.append(k).append(' ').append(v).append('\n'));
        try {
            DurableFiles.writeAtomically(file, sb.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the replica registry " + file + ": " + e.getMessage(), e);
        }
    }
}
