package tandem.auth;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/** Atomic, durable file replacement: a temp file with its final permissions, fsync, rename, fsync the directory. */
final class SafeFiles {

    /** {@code rw-------}: the private key, and a new {@code authorized_keys}. */
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    /** {@code rw-r--r--}: a public key file. */
    static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");

    private SafeFiles() {
    }

    /**
     * Replaces (or creates) {@code target} with {@code content} so that a reader sees either the old or the new
     * file, never a part of one, and the new one survives a crash once this returns.
     *
     * @param permissions the permissions of the new file, set when the temp file is created (so it is never
     *                    readable by others, even briefly) and again explicitly (the umask may have removed some);
     *                    ignored on a file system without POSIX permissions
     */
    static void writeAtomically(Path target, byte[] content, Set<PosixFilePermission> permissions)
            throws IOException {
        Path file = target.toAbsolutePath();
        Path dir = file.getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        boolean posix = isPosix(dir);
        FileAttribute<?>[] attributes = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)}
                : new FileAttribute<?>[0];
        try {
            try (FileChannel ch = FileChannel.open(tmp,
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
                if (posix) {
                    Files.setPosixFilePermissions(tmp, permissions);
                }
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    ch.write(buffer);
                }
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** @return the POSIX permissions of {@code file}, or null on a file system without them */
    static Set<PosixFilePermission> permissions(Path file) throws IOException {
        return isPosix(file) ? Files.getPosixFilePermissions(file) : null;
    }

    private static boolean isPosix(Path path) {
        return Files.getFileAttributeView(path, PosixFileAttributeView.class) != null;
    }
}
