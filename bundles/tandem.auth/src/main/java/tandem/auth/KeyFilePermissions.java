package tandem.auth;

import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The permissions of the key files, which {@link tandem.protocol.files.DurableFiles#writeAtomically} gives a new file
 * from its creation on.
 */
final class KeyFilePermissions {

    /** {@code rw-------}: the private key, and a new {@code authorized_keys}. */
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    /** {@code rw-r--r--}: a public key file. */
    static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");

    private KeyFilePermissions() {
    }
}
