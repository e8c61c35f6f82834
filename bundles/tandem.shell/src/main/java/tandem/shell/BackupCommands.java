package tandem.shell;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.Locale;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import tandem.api.checkpoint.Backups;

/** {@code backup:*}: backups of the node, which {@code bin/tandem restore} builds a new node from. */
@Component(service = BackupCommands.class, immediate = true, property = {
    "osgi.command.scope=backup",
    "osgi.command.function=create",
    "osgi.command.function=verify"
})
public final class BackupCommands {

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Backups backups;

    private Backups backups() {
        Backups b = backups;
        if (b == null) {
            throw new IllegalStateException("backup: not active (are tandem.journal, tandem.checkpoint and "
                    + "tandem.store started? see scr:list)");
        }
        return b;
    }

    @Descriptor("writes a backup into DIR (created; it must be empty): a checkpoint of the store, the journal's "
            + "segment prefix up to it and a manifest with SHA-256 hashes, verified by reading it back; the node "
            + "serves on meanwhile")
    public String create(@Descriptor("an absolute directory on the node's machine") String directory) throws IOException {
        return describe("backup written and verified", backups().create(path(directory)));
    }

    @Descriptor("verifies the backup in DIR reading nothing but it: manifest, SHA-256 of each file, the checkpoint's "
            + "own checksums, the journal seed's entries and chain value")
    public String verify(@Descriptor("the backup's directory") String directory) throws IOException {
        return describe("backup OK", backups().verify(path(directory)));
    }

    /** Absolute only: the node's working directory is not the shell user's, and a backup must land where meant. */
    private static Path path(String directory) {
        Path p = Paths.get(directory);
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException("give the backup's directory as an absolute path, not " + directory);
        }
        return p.normalize();
    }

    private static String describe(String what, Backups.Backup b) {
        return String.format(Locale.ROOT, "%s: %s%n"
                + "store at sequence:  %d (%s)%n"
                + "history:            chain %s, psync id %s, epoch %d%n"
                + "size:               %d bytes%n"
                + "taken:              %s",
                what, b.directory(), b.appliedSequence(),
                b.timestampNs() == 0 ? "no entry" : Instant.ofEpochSecond(0, b.timestampNs()), b.chainHex(),
                b.replicationId(), b.epoch(), b.bytes(), b.createdAt());
    }
}
