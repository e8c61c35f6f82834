package tandem.psync;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import tandem.protocol.files.DurableFiles;

/**
 * The psync identity of a node (spec 001 "Replication Identity"): its replication id, the secondary id it took
 * over from its former primary with the offset up to which that id is valid, and its psync epoch. Kept in
 * {@code <state.directory>/state}, {@code key=value} lines, written to a temporary file, fsynced, renamed and the
 * directory fsynced: after a crash the file is the old one or the new one.
 *
 * <p>The offset itself is never stored: it is the journal's (the FRPL bytes of its durable commands), so after a
 * crash a node resumes from exactly what it replays. A replica whose full sync has not completed holds no id
 * ({@link #NONE}): it asks {@code PSYNC ? -1}, so a node whose data was lost never keeps an id that claims it.
 *
 * @param replicationId  40 lowercase hex digits, or {@link #NONE} on a replica that holds no complete history
 * @param secondaryId    the former primary's id, or {@link #NONE}
 * @param secondaryOffset the offset up to which {@code secondaryId} is valid, inclusive; -1 when none
 * @param epoch          promotions this node has seen
 * @param viaJournal     the id was taken from a primary this node follows by the journal protocol: it names the
 *                       journal's history only while the node follows so, or once a journal promotion made it the
 *                       secondary ({@link #promoted})
 */
record Identity(String replicationId, String secondaryId, long secondaryOffset, long epoch, boolean viaJournal) {

    /** 40 zeros: no id (Redis' way of rendering an absent {@code master_replid2}). */
    static final String NONE = "0".repeat(40);
    static final String FILE = "state";

    private static final SecureRandom RANDOM = new SecureRandom();

    Identity(String replicationId, String secondaryId, long secondaryOffset, long epoch) {
        this(replicationId, secondaryId, secondaryOffset, epoch, false);
    }

    Identity {
        requireId("replication id", replicationId);
        requireId("secondary id", secondaryId);
        if (secondaryOffset < -1) {
            throw new IllegalArgumentException("secondary offset " + secondaryOffset + " is below -1");
        }
    }

    /** @return a fresh history: a new random id, no secondary */
    static Identity fresh(long epoch) {
        return new Identity(newId(), NONE, -1, epoch);
    }

    static String newId() {
        byte[] bytes = new byte[20];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** @return whether {@code id} is a replication id: exactly 40 hex digits */
    static boolean isId(String id) {
        if (id == null || id.length() != 40) {
            return false;
        }
        for (int i = 0; i < 40; i++) {
            if (Character.digit(id.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private static void requireId(String what, String id) {
        if (!isId(id)) {
            throw new IllegalArgumentException(what + " '" + id + "' is not 40 hex digits");
        }
    }

    boolean hasHistory() {
        return !replicationId.equals(NONE);
    }

    /**
     * spec 001's {@code window_contains}: whether a replica that holds {@code (id, offset)} can continue from this
     * node, whose own offset is {@code current}.
     */
    boolean windowContains(String id, long offset, long current) {
        if (offset < 0) {
            return false;
        }
        if (hasHistory() && id.equalsIgnoreCase(replicationId) && offset <= current) {
            return true;
        }
        return !secondaryId.equals(NONE) && id.equalsIgnoreCase(secondaryId) && secondaryOffset >= 0
                && offset <= secondaryOffset;
    }

    /** Promotion: a new id; the old one stays valid up to {@code offset}, for the former primary's other replicas. */
    Identity promoted(long offset) {
        return new Identity(newId(), hasHistory() ? replicationId : NONE, hasHistory() ? offset : -1, epoch + 1);
    }

    /**
     * {@code +CONTINUE <id>} with another id (the primary was promoted): that id is ours now, and ours stays valid
     * up to {@code offset} (Redis' {@code shiftReplicationId}).
     */
    Identity shifted(String newId, long offset) {
        return new Identity(newId.toLowerCase(java.util.Locale.ROOT), replicationId, offset, epoch);
    }

    /** A completed full sync: the primary's id, no secondary. */
    Identity adopted(String id) {
        return new Identity(id.toLowerCase(java.util.Locale.ROOT), NONE, -1, epoch);
    }

    /** A full sync under way: no id until it completes. */
    Identity cleared() {
        return new Identity(NONE, NONE, -1, epoch);
    }

    /**
     * This node follows by the journal protocol a primary whose psync id is {@code id} (null: none known): the id
     * names its journal's history, and no secondary does (the journal may have been replaced since).
     */
    Identity followedByJournal(String id) {
        return new Identity(id == null ? NONE : id.toLowerCase(java.util.Locale.ROOT), NONE, -1, epoch, true);
    }

    /**
     * Reads the identity in {@code dir}; a missing file gives a fresh one (written), a damaged one is refused.
     *
     * @throws IOException naming the file and the line when it cannot be read or parsed
     */
    static Identity load(Path dir) throws IOException {
        Path f = dir.resolve(FILE);
        if (!Files.exists(f)) {
            Identity fresh = fresh(0);
            fresh.store(dir);
            return fresh;
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw new IOException(f + ": not key=value: '" + line + "'");
            }
            values.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
        try {
            return new Identity(values.get("replid"), values.getOrDefault("replid2", NONE),
                    Long.parseLong(values.getOrDefault("second_repl_offset", "-1")),
                    Long.parseLong(values.getOrDefault("epoch", "0")), "journal".equals(values.get("via")));
        } catch (RuntimeException e) {
            throw new IOException(f + ": " + e.getMessage(), e);
        }
    }

    /** Writes this identity to {@code dir}: temporary file, fsync, atomic rename, directory fsync. */
    void store(Path dir) throws IOException {
        String text = "# the psync identity of this node (spec 001); the offset is the journal's\n"
                + "replid=" + replicationId + "\nreplid2=" + secondaryId + "\nsecond_repl_offset=" + secondaryOffset
                + "\nepoch=" + epoch + "\n" + (viaJournal ? "via=journal\n" : "");
        DurableFiles.writeAtomically(dir.resolve(FILE), text.getBytes(StandardCharsets.US_ASCII));
    }
}
