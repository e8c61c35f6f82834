package tandem.replication;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import tandem.api.journal.Journal;
import tandem.api.replication.ReplicationHub;

/**
 * The restart fence of a primary: a primary with replicas that restarts after a crash comes up fenced (the node core
 * refuses client writes with the fence's message), because its replicas may hold writes it lost, or another node may
 * have been promoted meanwhile. The fence lifts once every registered replica has shown that it is not ahead (its
 * handshake), or on {@code repl:promote --force}. A standalone node is never fenced.
 *
 * <p>A crash is told from a clean stop by the marker file {@value #MARKER} in the replication state directory:
 * present while this node is a primary that may have sent replicas a batch it had not made durable yet (it streams
 * a batch while it syncs it), deleted at a clean stop once the journal holds everything it sent.
 */
final class RestartFence {

    static final String MARKER = "primary.running";

    private static final Logger LOG = System.getLogger("tandem.replication");

    private final Journal journal;
    private final ReplicationHub hub;
    private final EpochFile epoch;
    /** Registered replicas that have not shown their position since this primary restarted after a crash. */
    private final Set<String> unconfirmed = ConcurrentHashMap.newKeySet();
    private volatile String aheadNote;
    private volatile long supersededBy;
    private volatile String error;

    RestartFence(Journal journal, ReplicationHub hub, EpochFile epoch) {
        this.journal = journal;
        this.hub = hub;
        this.epoch = epoch;
    }

    /** @return why client writes are refused, as the node core answers them; null while not fenced */
    String error() {
        return error;
    }

    /**
     * A primary starts: finds whether its previous run crashed, leaves the marker (durably) for the next start, and
     * fences this node when it crashed with {@code registered} replicas. Called before the node declares its role.
     */
    void guard(Path stateDirectory, Collection<String> registered) throws IOException {
        Path marker = stateDirectory.resolve(MARKER);
        boolean crashed = Files.exists(marker);
        Files.createDirectories(stateDirectory);
        try (FileChannel ch = FileChannel.open(marker, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        try (FileChannel dir = FileChannel.open(stateDirectory, StandardOpenOption.READ)) {
            dir.force(true);
        }
        if (crashed && !registered.isEmpty()) {
            unconfirmed.addAll(registered);
            LOG.log(Level.WARNING, "journal replication: this primary restarted after a crash with {0} registered "
                    + "replicas; client writes are refused until each has shown it is not ahead", unconfirmed.size());
        }
        update();
    }

    /** A clean stop of a primary: once the journal holds everything sent, no replica can be ahead of it. */
    void end(Path stateDirectory) {
        if (error != null) {
            return; // still fenced: what made it so survives this stop, and so does the marker
        }
        try {
            journal.awaitDurable(journal.lastSequence());
            Files.deleteIfExists(stateDirectory.resolve(MARKER));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "the next start of this primary will be fenced: {0}", e.toString());
        }
    }

    /** A replica has no tenure to guard: its marker goes (the fence itself with {@link #clear}). */
    static void removeMarker(Path stateDirectory) throws IOException {
        Files.deleteIfExists(stateDirectory.resolve(MARKER));
    }

    /** Lifts the fence, whatever made it. */
    void clear() {
        unconfirmed.clear();
        aheadNote = null;
        supersededBy = 0;
        update();
    }

    /**
     * A replica showed its position in its handshake, ahead of this journal or not.
     *
     * @return false when this primary is fenced for that replica and it is ahead: it is to be sent nothing, and the
     *         fence names it
     */
    boolean shown(String id, String address, long replicaLast, boolean ahead) {
        if (!unconfirmed.contains(id)) {
            return true;
        }
        if (ahead) {
            aheadNote = "replica " + id + " at " + address + " holds sequence " + replicaLast + " beyond this node's "
                    + journal.durableSequence() + ": promote it (repl:promote there) and make this node its replica, "
                    + "or run repl:promote --force here to give up what it holds";
            LOG.log(Level.ERROR, "journal replication: fenced: {0}", aheadNote);
            update();
            return false;
        }
        unconfirmed.remove(id);
        if (unconfirmed.isEmpty()) {
            aheadNote = null;
            LOG.log(Level.WARNING, "journal replication: every registered replica has shown it is not ahead of "
                    + "this restarted primary");
        }
        update();
        return true;
    }

    /** A replica has seen epoch {@code replicaEpoch}, above this primary's: another node was promoted after it. */
    void superseded(long replicaEpoch) {
        if (replicaEpoch > supersededBy) {
            supersededBy = replicaEpoch;
            update();
        }
    }

    /** Tells the node core the fence as it is now, when it changed. */
    private synchronized void update() {
        String f = null;
        if (supersededBy > 0) {
            f = "FENCED another node was promoted after this one: a replica has seen epoch " + supersededBy
                    + ", this node is at " + epoch.current() + "; make this node a replica of the new primary with "
                    + "repl:replicaof IP:PORT";
        } else if (!unconfirmed.isEmpty()) {
            f = "FENCED this primary restarted after a crash; it accepts writes once every registered replica has "
                    + "shown that it is not ahead (" + unconfirmed.size() + " not yet"
                    + (aheadNote == null ? "" : "; " + aheadNote) + "), or after repl:promote --force";
        }
        if (!Objects.equals(f, error)) {
            error = f;
            hub.fence(f);
        }
    }
}
