package tandem.protocol.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * The few file-system operations the store, the checkpoints, the keys and the replication state build their crash
 * safety on: a file replaced whole and durably, a same-file-system rename that is atomic or fails (never a copy), a
 * directory fsync that makes renames, creations and deletions in it durable, and a recursive delete that never
 * follows a symbolic link out of the tree.
 */
public final class DurableFiles {

    private DurableFiles() {
    }

    /**
     * Replaces (or creates) {@code target} with {@code content} so that a reader sees the old file or the new one,
     * never a part of one, and the new one survives a crash once this returns: the content goes to
     * {@code <name>.tmp} in the same directory (created if missing), is forced to disk, renamed over the target
     * (ATOMIC_MOVE: a rename, never a copy) and the directory is synced, which makes the rename durable. When it
     * fails, the target is as it was and the temporary file is removed; one a crash left behind is replaced.
     */
    public static void writeAtomically(Path target, byte[] content) throws IOException {
        writeAtomically(target, content, null);
    }

    /**
     * {@link #writeAtomically(Path, byte[])} with the new file's permissions.
     *
     * @param permissions set when the temporary file is created (so it is never readable by others, even briefly)
     *                    and again explicitly (the umask may have removed some); null for the defaults, ignored on a
     *                    file system without POSIX permissions
     */
    public static void writeAtomically(Path target, byte[] content, Set<PosixFilePermission> permissions)
            throws IOException {
        write(target, permissions, ch -> {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
        });
    }

    /** @return the POSIX permissions of {@code file}, to give its replacement; null on a file system without them */
    public static Set<PosixFilePermission> permissions(Path file) throws IOException {
        return Files.getFileAttributeView(file, PosixFileAttributeView.class) != null
                ? Files.getPosixFilePermissions(file) : null;
    }

    /** Writes the content of a file being replaced. */
    interface Content {
        void writeTo(FileChannel channel) throws IOException;
    }

    static void write(Path target, Set<PosixFilePermission> permissions, Content content) throws IOException {
        Path file = target.toAbsolutePath().normalize();
        Path dir = parent(file);
        Files.createDirectories(dir);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        boolean posix = permissions != null && Files.getFileAttributeView(dir, PosixFileAttributeView.class) != null;
        FileAttribute<?>[] attributes = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)}
                : new FileAttribute<?>[0];
        try {
            try (FileChannel ch = FileChannel.open(tmp,
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
                if (posix) {
                    Files.setPosixFilePermissions(tmp, permissions);
                }
                content.writeTo(ch);
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
        syncDirectory(dir);
    }

    /**
     * Renames {@code from} to {@code to}, which must not exist. ATOMIC_MOVE so a rename across file systems fails
     * instead of degrading into a copy that a crash could leave half done.
     */
    public static void rename(Path from, Path to) throws IOException {
        if (Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
            // rename(2) would silently replace an empty directory: refuse instead of guessing
            throw new IOException("cannot rename " + from + " to " + to + ": the target exists");
        }
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Makes the renames, creations and deletions in {@code directory} durable. */
    public static void syncDirectory(Path directory) throws IOException {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Syncs the directory that holds {@code path}'s entry. */
    public static void syncParent(Path path) throws IOException {
        syncDirectory(parent(path));
    }

    public static Path parent(Path path) {
        Path parent = path.toAbsolutePath().normalize().getParent();
        if (parent == null) {
            throw new IllegalArgumentException("no parent directory: " + path);
        }
        return parent;
    }

    /**
     * Deletes {@code tree} and everything under it; a missing tree is no error. Symbolic links are removed, not
     * followed.
     */
    public static void deleteTree(Path tree) throws IOException {
        if (!Files.exists(tree, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(tree, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** {@link #deleteTree}, logging instead of throwing: for clean-up on a path that is already failing. */
    public static boolean deleteTreeQuietly(Path tree, System.Logger log) {
        try {
            deleteTree(tree);
            return true;
        } catch (IOException | RuntimeException e) {
            log.log(System.Logger.Level.WARNING, "could not delete " + tree + "; the next start clears it", e);
            return false;
        }
    }
}
