package tandem.protocol.files;

import java.io.IOException;
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

/**
 * The few file-system operations the store, the checkpoints and the replication state build their crash safety on: a same-file-system rename
 * that is atomic or fails (never a copy), a directory fsync that makes renames, creations and deletions in it
 * durable, and a recursive delete that never follows a symbolic link out of the tree.
 */
public final class DurableFiles {

    private DurableFiles() {
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
