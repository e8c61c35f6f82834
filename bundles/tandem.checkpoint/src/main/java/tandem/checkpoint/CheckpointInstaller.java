package tandem.checkpoint;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Installs a staged checkpoint as the store directory, crash-safe at every point: two same-file-system renames,
 * the parents fsynced after each (research/frogdb.md §2.4, boot install). The store must be closed while
 * {@link #install} runs, and {@link #recover} runs at startup before the store opens.
 *
 * <h2>State machine</h2>
 *
 * Each state is what a crash leaves on disk: S (S') = the old (new) store directory exists, T =
 * {@code <root>/staged} exists, R = the old store set aside as {@code <root>/replaced.<n>}, - = absent.
 *
 * <pre>
 *  A  S  T       old store, a checkpoint awaiting install
 *     |  install: rename store -&gt; replaced.&lt;n&gt;, fsync root and the store's parent
 *  B  -  T  R    no store: the install was cut between its renames
 *     |  install: rename staged -&gt; store, fsync the store's parent and root
 *  C  S' -  R    new store
 *     |  install: prune replaced.* to the newest K
 *  D  S' -       new store, done
 *
 *  recover():
 *    A -&gt; A      both exist: the install had not begun. Both are left; the caller decides whether the staged
 *                checkpoint is still wanted ({@link Recovery#STAGED_PENDING}).
 *    B -&gt; D      finish the install: rename staged -&gt; store, prune ({@link Recovery#FINISHED_INSTALL}).
 *    C, D -&gt; D   nothing to install; prune ({@link Recovery#NOTHING}).
 *    -  -        a fresh node: nothing to do, the store opens empty ({@link Recovery#NOTHING}).
 * </pre>
 *
 * So after {@code recover()} the store directory holds the old store (A) or the new one (C, D), never a mix: a
 * rename is atomic, and the only state without a store (B) is always completed forward, since the old store is
 * already set aside and the staged checkpoint is complete by construction ({@link CheckpointReceiver} commits it
 * with one rename). Recover also deletes {@code incoming} and {@code discarded} left by an interrupted receive;
 * it is idempotent. A crash while pruning leaves a partly deleted {@code replaced.<n>}: it is the oldest, so the
 * next prune deletes it.
 *
 * <p>{@code <root>} and the store directory must be on one file system (a rename across them fails, it never
 * becomes a copy). Not thread-safe; the caller serializes install and recover with the store's lifecycle.
 */
public final class CheckpointInstaller {

    private static final System.Logger LOG = System.getLogger("tandem.checkpoint");

    /** What {@link #recover} found. */
    public enum Recovery {
        /** No install was pending: the store directory (if any) is what the store opens. */
        NOTHING,
        /** An install cut short by a crash was finished: the store directory holds the staged checkpoint. */
        FINISHED_INSTALL,
        /** Both the store and a staged checkpoint exist: an install had not begun; both were left. */
        STAGED_PENDING
    }

    /** The points a crash test stops at; each is reported right after it happened. */
    enum Step {
        STORE_SET_ASIDE, STORE_SET_ASIDE_SYNCED, STAGED_MOVED_IN, STAGED_MOVED_IN_SYNCED, PRUNED
    }

    private final Path root;
    private final Path storeDir;
    private final int keepReplaced;
    private final Consumer<Step> steps;

    /**
     * @param root the checkpoint root ({@code staged}, {@code replaced.<n>} live there)
     * @param storeDir the live store directory
     * @param keepReplaced how many set-aside store directories to keep, newest first (0: none)
     */
    public CheckpointInstaller(Path root, Path storeDir, int keepReplaced) {
        this(root, storeDir, keepReplaced, s -> { });
    }

    CheckpointInstaller(Path root, Path storeDir, int keepReplaced, Consumer<Step> steps) {
        if (keepReplaced < 0) {
            throw new IllegalArgumentException("keepReplaced " + keepReplaced + " must be >= 0");
        }
        this.root = root.toAbsolutePath().normalize();
        this.storeDir = storeDir.toAbsolutePath().normalize();
        this.keepReplaced = keepReplaced;
        this.steps = steps;
        if (CheckpointRoot.staged(this.root).equals(this.storeDir)) {
            throw new IllegalArgumentException("store directory " + storeDir + " is the staged directory");
        }
    }

    /** @return the staged checkpoint awaiting install, or null when there is none */
    public StagedCheckpoint staged() throws IOException {
        Path staged = CheckpointRoot.staged(root);
        return Files.isDirectory(staged, LinkOption.NOFOLLOW_LINKS) ? StagedCheckpoint.read(staged) : null;
    }

    /**
     * Installs {@code <root>/staged} as the store directory, setting the current store (if any) aside as
     * {@code <root>/replaced.<n>}; then keeps the newest {@code keepReplaced} of those.
     *
     * @return the installed checkpoint's metadata, its directory now the store directory (its CHECKPOINT file
     *         is there too: read it to adopt the replication position)
     * @throws IOException when there is no complete staged checkpoint, or a rename or sync fails (recover then
     *         tells where it stopped)
     */
    public StagedCheckpoint install() throws IOException {
        Path staged = CheckpointRoot.staged(root);
        StagedCheckpoint checkpoint = StagedCheckpoint.read(staged); // a staged dir without metadata is not ours
        if (Files.exists(storeDir, LinkOption.NOFOLLOW_LINKS)) {
            Path aside = CheckpointRoot.replaced(root, nextReplacedNumber());
            DurableFiles.rename(storeDir, aside);
            steps.accept(Step.STORE_SET_ASIDE);
            syncRootAndStoreParent();
            steps.accept(Step.STORE_SET_ASIDE_SYNCED);
            LOG.log(Level.INFO, "store " + storeDir + " set aside as " + aside);
        }
        moveIn(staged);
        prune();
        steps.accept(Step.PRUNED);
        return checkpoint.movedTo(storeDir);
    }

    /**
     * Brings the directories to a consistent state after a crash; run at startup before the store opens. See the
     * state machine above. Idempotent.
     */
    public Recovery recover() throws IOException {
        Path staged = CheckpointRoot.staged(root);
        for (Path leftover : List.of(CheckpointRoot.incoming(root), CheckpointRoot.discarded(root))) {
            if (Files.exists(leftover, LinkOption.NOFOLLOW_LINKS)) {
                LOG.log(Level.INFO, "deleting " + leftover + " left by an interrupted receive");
                DurableFiles.deleteTree(leftover);
            }
        }
        boolean store = Files.exists(storeDir, LinkOption.NOFOLLOW_LINKS);
        boolean pending = Files.exists(staged, LinkOption.NOFOLLOW_LINKS);
        Recovery result;
        if (pending && !store) {
            StagedCheckpoint.read(staged); // refuse to make a store out of something we did not stage
            LOG.log(Level.WARNING, "finishing the install of " + staged + " into " + storeDir
                    + ", cut short by a crash");
            moveIn(staged);
            result = Recovery.FINISHED_INSTALL;
        } else if (pending) {
            LOG.log(Level.INFO, "a staged checkpoint awaits install in " + staged);
            result = Recovery.STAGED_PENDING;
        } else {
            result = Recovery.NOTHING;
        }
        prune();
        return result;
    }

    /** @return the set-aside store directories, oldest first */
    public List<Path> replaced() throws IOException {
        return CheckpointRoot.replacedDirectories(root);
    }

    private void moveIn(Path staged) throws IOException {
        DurableFiles.rename(staged, storeDir);
        steps.accept(Step.STAGED_MOVED_IN);
        syncRootAndStoreParent();
        steps.accept(Step.STAGED_MOVED_IN_SYNCED);
        LOG.log(Level.INFO, "installed the staged checkpoint as " + storeDir);
    }

    private void syncRootAndStoreParent() throws IOException {
        Path parent = DurableFiles.parent(storeDir);
        DurableFiles.syncDirectory(parent);
        if (!parent.equals(root)) {
            DurableFiles.syncDirectory(root);
        }
    }

    /**
     * Max + 1 rather than a durable counter: the numbers only have to order the directories that exist, and a
     * counter file would be one more thing a crash could tear.
     */
    private long nextReplacedNumber() throws IOException {
        List<Path> dirs = CheckpointRoot.replacedDirectories(root);
        return dirs.isEmpty() ? 1 : CheckpointRoot.replacedNumber(dirs.get(dirs.size() - 1)) + 1;
    }

    private void prune() throws IOException {
        List<Path> dirs = CheckpointRoot.replacedDirectories(root);
        for (Path old : dirs.subList(0, Math.max(0, dirs.size() - keepReplaced))) {
            LOG.log(Level.INFO, "deleting the set-aside store " + old);
            DurableFiles.deleteTree(old);
        }
    }
}
