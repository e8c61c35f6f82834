package tandem.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import tandem.protocol.files.DurableFiles;

/**
 * A backup's {@code MANIFEST}: what the backup holds and which history it belongs to, one {@code key=value} per
 * line, written last (atomically), so that a directory without it is no backup.
 *
 * <pre>
 *  # Tandem backup
 *  format=1
 *  created_at=2026-12-07T06:30:00.123Z
 *  applied_sequence=48211                  the last journal sequence the store holds
 *  applied_timestamp_ns=1796624999912345678 that entry's timestamp
 *  chain=9c0e…(64 hex)                     the journal's chain value at applied_sequence
 *  replication_offset=1827734              the psync replication offset after applied_sequence
 *  replication_id=3f1c…(40 hex)            the node's psync id (40 zeros: none)
 *  epoch=2                                 the node's fencing epoch
 *  file.store.checkpoint=52428800 ab12…    size and SHA-256 of each file
 *  file.journal.seed=1048576 77f0…
 * </pre>
 */
public record BackupManifest(Instant createdAt, long appliedSequence, long appliedTimestampNs, String chainHex,
        long replicationOffset, String replicationId, long epoch, Map<String, FileHash> files) {

    public static final String FILE = "MANIFEST";
    /** The store checkpoint, as the checkpoint stream a full sync sends. */
    public static final String STORE = "store.checkpoint";
    /** The journal segment prefix up to the applied sequence (a snapshot's segment seed). */
    public static final String SEED = "journal.seed";
    static final int FORMAT = 1;

    private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern HEX40 = Pattern.compile("[0-9a-f]{40}");

    /** A file's size and SHA-256 in hex. */
    public record FileHash(long size, String sha256) {
    }

    public BackupManifest {
        files = Map.copyOf(files);
    }

    /** Writes the manifest into {@code directory}, durably and atomically. */
    void write(Path directory) throws IOException {
        StringBuilder sb = new StringBuilder("# Tandem backup: written last; a directory without it is no backup\n");
        sb.append("format=").append(FORMAT).append('\n');
        sb.append("created_at=").append(createdAt).append('\n');
        sb.append("applied_sequence=").append(appliedSequence).append('\n');
        sb.append("applied_timestamp_ns=").append(appliedTimestampNs).append('\n');
        sb.append("chain=").append(chainHex).append('\n');
        sb.append("replication_offset=").append(replicationOffset).append('\n');
        sb.append("replication_id=").append(replicationId).append('\n');
        sb.append("epoch=").append(epoch).append('\n');
        for (String name : new String[] {STORE, SEED}) {
            FileHash h = files.get(name);
            sb.append("file.").append(name).append('=').append(h.size()).append(' ').append(h.sha256()).append('\n');
        }
        DurableFiles.writeAtomically(directory.resolve(FILE), sb.toString().getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Reads {@code directory/MANIFEST}.
     *
     * @throws IOException naming the line or key that is wrong, or that there is no manifest
     */
    public static BackupManifest read(Path directory) throws IOException {
        Path file = directory.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new IOException(directory + " is no backup: it has no " + FILE
                    + " (a backup writes it last; one cut short has none)");
        }
        if (Files.size(file) > 65536) {
            throw new IOException(file + ": " + Files.size(file) + " bytes, more than a manifest holds");
        }
        Map<String, String> values = new LinkedHashMap<>();
        int n = 0;
        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] < 0) {
                throw new IOException(file + ": byte " + i + " is not ASCII: a manifest is ASCII text");
            }
        }
        for (String line : new String(bytes, StandardCharsets.US_ASCII).split("\n", -1)) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0 || values.put(line.substring(0, eq), line.substring(eq + 1)) != null) {
                throw new IOException(file + ": line " + n + " is not a new key=value: '" + line + "'");
            }
        }
        try {
            if (Integer.parseInt(need(values, "format")) != FORMAT) {
                throw new IOException(file + ": format " + values.get("format") + ", this Tandem reads " + FORMAT);
            }
            String chain = need(values, "chain");
            String id = need(values, "replication_id");
            if (!HEX64.matcher(chain).matches() || !HEX40.matcher(id).matches()) {
                throw new IllegalArgumentException("chain or replication_id is not lowercase hex of its length");
            }
            Map<String, FileHash> files = new LinkedHashMap<>();
            for (String name : new String[] {STORE, SEED}) {
                String[] f = need(values, "file." + name).split(" ");
                if (f.length != 2 || !HEX64.matcher(f[1]).matches()) {
                    throw new IllegalArgumentException("file." + name + " is not '<size> <sha256>'");
                }
                files.put(name, new FileHash(Long.parseLong(f[0]), f[1]));
            }
            BackupManifest m = new BackupManifest(Instant.parse(need(values, "created_at")),
                    Long.parseLong(need(values, "applied_sequence")),
                    Long.parseLong(need(values, "applied_timestamp_ns")), chain,
                    Long.parseUnsignedLong(need(values, "replication_offset")), id,
                    Long.parseLong(need(values, "epoch")), files);
            if (m.appliedSequence < 0) {
                throw new IllegalArgumentException("applied_sequence is negative");
            }
            return m;
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    private static String need(Map<String, String> values, String key) {
        String v = values.get(key);
        if (v == null) {
            throw new IllegalArgumentException("no " + key + "=");
        }
        return v;
    }
}
