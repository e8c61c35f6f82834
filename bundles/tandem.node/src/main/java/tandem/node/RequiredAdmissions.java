package tandem.node;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import tandem.protocol.files.DurableFiles;

/**
 * The required write-admission providers this node has seen, kept in {@code <state.directory>/admissions.required}
 * so that a restarted node fails closed without them from its first write: without the record, a primary of a
 * failover group restarted after the group moved on would take writes as a primary in the second or two before its
 * Raft peer is up again. One line per provider, {@code <bundle symbolic name> <name>}; a provider's line goes when
 * its bundle is uninstalled ({@code feature:uninstall}), so a node that gave the provider up for good does not wait
 * for it after a restart. Written durably (fsync, atomic rename) at each change.
 */
final class RequiredAdmissions {

    private static final Logger LOG = System.getLogger("tandem.node");
    static final String FILE = "admissions.required";

    private final Path file;
    /** Name by bundle, as the file holds them. Guarded by {@code this}. */
    private final Map<String, String> byBundle = new LinkedHashMap<>();

    RequiredAdmissions(Path directory) {
        this.file = directory.resolve(FILE);
    }

    /** @return the providers recorded, name by bundle symbolic name (empty when none, or the file is unreadable) */
    synchronized Map<String, String> read() {
        byBundle.clear();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int space = line.indexOf(' ');
                if (space > 0 && space < line.length() - 1) {
                    byBundle.put(line.substring(0, space), line.substring(space + 1));
                }
            }
        } catch (NoSuchFileException e) {
            // no required provider was ever seen
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "cannot read the required write-admission providers from {0} ({1}): writes wait "
                    + "only for those seen since this start", file, e.toString());
        }
        return Map.copyOf(byBundle);
    }

    /** Records that {@code bundle} provides the required provider {@code name}. */
    synchronized void seen(String bundle, String name) {
        if (!name.equals(byBundle.put(bundle, name))) {
            write();
        }
    }

    /** Forgets the provider of {@code bundle}, which was uninstalled. */
    synchronized void uninstalled(String bundle) {
        if (byBundle.remove(bundle) != null) {
            write();
        }
    }

    /** Holds {@code this}; a failure is logged, the requirement still applies in memory. */
    private void write() {
        StringBuilder text = new StringBuilder();
        byBundle.forEach((bundle, name) -> text.append(bundle).append(' ').append(name).append('\n'));
        try {
            Files.createDirectories(file.getParent());
            DurableFiles.writeAtomically(file, text.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "cannot record the required write-admission providers in {0} ({1}): after a restart "
                    + "writes wait only for those seen again", file, e.toString());
        }
    }
}
