package tandem.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The permissions of the key files, which {@link tandem.protocol.files.DurableFiles#writeAtomically} gives a new file
 * from its creation on.
 */
final class SafeFiles {

    /** {@code rw-------}: the private key, and a new {@code authorized_keys}. */
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    /** {@code rw-r--r--}: a public key file. */
    static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");

    private SafeFiles() {
    }

    /** @return the POSIX permissions of {@code file}, or null on a file system without them */
    static Set<PosixFilePermission> permissions(Path file) throws IOException {
        return isPosix(file) ? Files.getPosixFilePermissions(file) : null;
    }

    private static boolean isPosix(Path path) {
        return Files.getFileAttributeView(path, PosixFileAttributeView.class) != null;
    }
}
