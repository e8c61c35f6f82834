package tandem.checkpoint;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The layout under a checkpoint root, in one place because the receiver and the installer must agree on it and a
 * restart must find what a crash left behind:
 *
 * <pre>
 *  &lt;root&gt;/incoming/      a stream being received; never trusted: deleted at the next receive or recover
 *  &lt;root&gt;/staged/        a verified, complete checkpoint (with its CHECKPOINT file) awaiting install
 *  &lt;root&gt;/discarded/     a superseded staged checkpoint on its way out (renamed first so it is never half deleted
 *                          while still called staged)
 *  &lt;root&gt;/replaced.&lt;n&gt;/  a store directory an install set aside, n increasing; the newest K are kept
 * </pre>
 *
 * The root and the store directory must be on one file system: every step is a rename.
 */
final class CheckpointRoot {

    static final String INCOMING = "incoming";
    static final String STAGED = "staged";
    static final String DISCARDED = "discarded";
    static final String REPLACED_PREFIX = "replaced.";

    private CheckpointRoot() {
    }

    static Path incoming(Path root) {
        return root.resolve(INCOMING);
    }

    static Path staged(Path root) {
        return root.resolve(STAGED);
    }

    static Path discarded(Path root) {
        return root.resolve(DISCARDED);
    }

    static Path replaced(Path root, long n) {
        return root.resolve(REPLACED_PREFIX + n);
    }

    /** @return the {@code replaced.<n>} directories, oldest (smallest n) first; names that do not parse are not ours */
    static List<Path> replacedDirectories(Path root) throws IOException {
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return found;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root, REPLACED_PREFIX + "*")) {
            for (Path p : ds) {
                if (replacedNumber(p) >= 0) {
                    found.add(p);
                }
            }
        }
        found.sort(Comparator.comparingLong(CheckpointRoot::replacedNumber));
        return found;
    }

    /** @return n of {@code replaced.<n>}, or -1 */
    static long replacedNumber(Path p) {
        String s = p.getFileName().toString().substring(REPLACED_PREFIX.length());
        if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(s);
    }
}
