package tandem.checkpoint;

import java.nio.file.Path;

/**
 * The layout under a checkpoint root, in one place because the receiver and the installer must agree on it and a
 * restart must find what a crash left behind:
 *
 * <pre>
 *  &lt;root&gt;/incoming/      a stream being received; never trusted: deleted at the next receive or recover
 *  &lt;root&gt;/staged/        a verified, complete checkpoint (with its CHECKPOINT file) awaiting install
 *  &lt;root&gt;/discarded/     a superseded staged checkpoint on its way out (renamed first so it is never half deleted
 *                          while still called staged)
 *  &lt;root&gt;/fullsync_&lt;name&gt;/ a primary's copy of its store for one transfer, deleted when the transfer ends
 *  &lt;root&gt;/saved/         the copy {@code SAVE}/{@code BGSAVE} kept last, with its SAVED file
 *  &lt;root&gt;/saving/        a copy being made; never trusted: deleted at the next save or start
 *  &lt;root&gt;/unsaved/       the copy kept before, on its way out once the new one is in place
 * </pre>
 *
 * The root and the store directory must be on one file system: the store installs {@code staged} by a rename.
 */
final class CheckpointRoot {

    static final String INCOMING = "incoming";
    static final String STAGED = "staged";
    static final String DISCARDED = "discarded";
    static final String FULLSYNC_PREFIX = "fullsync_";
    static final String SAVED = "saved";
    static final String SAVING = "saving";
    static final String UNSAVED = "unsaved";

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

    static Path fullsync(Path root, String name) {
        return root.resolve(FULLSYNC_PREFIX + name);
    }
}
