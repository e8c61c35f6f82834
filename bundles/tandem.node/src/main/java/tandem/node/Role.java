package tandem.node;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import tandem.protocol.files.DurableFiles;

/**
 * The node's role as last declared by a replication protocol, kept in {@code <state.directory>/role} so that a
 * restarted replica is one before any client connects, whichever bundle starts first: one line, {@code <protocol>
 * <address>} for a replica, {@code <protocol>} for a primary a protocol declared (its restart fence, if any, comes from
 * that protocol, so a restart waits for it), empty for a primary nothing declared (a promotion). Written durably
 * (fsync, atomic rename) at each change.
 */
final class Role {

    private static final Logger LOG = System.getLogger("tandem.node");
    static final String FILE = "role";

    /** A declared role: {@code upstream == null} on a primary, whose {@code protocol} may be null. */
    record Declared(String upstream, String protocol) {

        /**
         * @return whether a restart waits for {@code protocol} to declare the role again: a primary it declared may
         *         come up fenced (restarted after a crash with a replica ahead), and must not take a write before
         */
        boolean awaitsProtocol() {
            return upstream == null && protocol != null;
        }
    }

    private final Path file;
    private Declared written;

    Role(Path directory) {
        this.file = directory.resolve(FILE);
    }

    /** @return the role the file holds, or null when none was ever declared (or the file cannot be read) */
    Declared read() {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "cannot read the node''s role from {0} ({1}): the role is awaited from the "
                    + "replication protocols", file, e.toString());
            return null;
        }
        int space = text.indexOf(' ');
        written = text.isEmpty() ? new Declared(null, null)
                : space < 0 ? new Declared(null, text)
                : new Declared(text.substring(space + 1).trim(), text.substring(0, space));
        return written;
    }

    /** Records {@code role} when it differs from what the file holds; a failure is logged, the role still applies. */
    synchronized void write(Declared role) {
        if (role.equals(written)) {
            return;
        }
        String line = role.upstream() != null ? role.protocol() + " " + role.upstream()
                : role.protocol() == null ? "" : role.protocol();
        try {
            Files.createDirectories(file.getParent());
            DurableFiles.writeAtomically(file, (line + "\n").getBytes(StandardCharsets.UTF_8));
            written = role;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "cannot record the node''s role in {0} ({1}): after a restart the role is awaited "
                    + "from the replication protocols again", file, e.toString());
        }
    }
}
