package tandem.store;

import static tandem.protocol.files.DurableFiles.deleteTree;
import static tandem.protocol.files.DurableFiles.syncDirectory;
import static tandem.protocol.files.DurableFiles.writeAtomically;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.Properties;
import java.util.function.Consumer;

import tandem.api.store.Keyspace;

/**
 * The store's directory, and how a checkpoint takes its place: crash-safe at every step, because every step is a
 * same-file-system rename followed by an fsync of the directory that holds it. With {@code D} the store directory:
 *
 * <pre>
 *  D              the store (RocksDB); its ORIGIN file, when present, is the journal position it was installed at
 *  D.installing   a complete checkpoint to put in place of D, its ORIGIN inside: it exists only once complete
 *  D.replaced     the store an install set aside; deleted once the new one is in place
 *
 *  install(cp):   write cp/ORIGIN, fsync it and cp               a crash here leaves cp to whoever made it
 *                 rename cp -&gt; D.installing, fsync both parents  the commit point: from here on the install
 *                                                                is finished, at once or by the next recover()
 *                 (the caller closes RocksDB)
 *  complete():    delete a stale D.replaced, rename D -&gt; D.replaced, fsync the parent
 *                 rename D.installing -&gt; D, fsync the parent
 *                 delete D.replaced, fsync the parent
 *  recover():     complete() from wherever the names show a crash stopped it; run before RocksDB opens
 * </pre>
 *
 * Written here rather than taken from a library: no library offers a crash-safe directory swap, and the whole of it
 * is three renames and their fsyncs. The store never reads anything of a checkpoint but RocksDB's files and ORIGIN.
 */
final class StoreDirectory {

    private static final Logger LOG = System.getLogger("tandem.store");
    static final String ORIGIN = "ORIGIN";

    /** Points a crash test stops at, each reported right after it happened. */
    enum Step { ORIGIN_WRITTEN, COMMITTED, SET_ASIDE, MOVED_IN, CLEANED }

    private final Path store;
    private final Path installing;
    private final Path replaced;
    private final Consumer<Step> steps;

    StoreDirectory(Path store) {
        this(store, s -> { });
    }

    StoreDirectory(Path store, Consumer<Step> steps) {
        this.store = store.toAbsolutePath().normalize();
        this.installing = sibling(".installing");
        this.replaced = sibling(".replaced");
        this.steps = steps;
        if (this.store.getParent() == null) {
            throw new IllegalArgumentException("the store directory " + store + " has no parent");
        }
    }

    private Path sibling(String suffix) {
        return store.resolveSibling(store.getFileName() + suffix);
    }

    Path path() {
        return store;
    }

    /**
     * Makes {@code checkpoint} the store to install, with its origin: after this returns, the install is committed
     * and {@link #complete} (now, or {@link #recover} after a crash) puts it in place.
     */
    void commit(Path checkpoint, Keyspace.Origin origin) {
        Path cp = checkpoint.toAbsolutePath().normalize();
        try {
            if (Files.exists(installing, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException("an install into " + store + " is already pending (" + installing
                        + ")");
            }
            writeOrigin(cp, origin);
            steps.accept(Step.ORIGIN_WRITTEN);
            Files.move(cp, installing, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(installing.getParent());
            if (!cp.getParent().equals(installing.getParent())) {
                syncDirectory(cp.getParent());
            }
            steps.accept(Step.COMMITTED);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot commit the checkpoint " + cp + " for " + store + ": "
                    + e.getMessage(), e);
        }
    }

    /** Puts the committed checkpoint in place of the store; RocksDB must be closed. */
    void complete() {
        try {
            if (!Files.exists(installing, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException("no install into " + store + " is pending");
            }
            if (Files.exists(store, LinkOption.NOFOLLOW_LINKS)) {
                deleteTree(replaced); // a crash's, during the previous clean-up
                Files.move(store, replaced, StandardCopyOption.ATOMIC_MOVE);
                syncDirectory(store.getParent());
                steps.accept(Step.SET_ASIDE);
            }
            Files.move(installing, store, StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(store.getParent());
            steps.accept(Step.MOVED_IN);
            if (Files.exists(replaced, LinkOption.NOFOLLOW_LINKS)) {
                deleteTree(replaced);
                syncDirectory(store.getParent());
            }
            steps.accept(Step.CLEANED);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot put the checkpoint in place of " + store + ": " + e.getMessage()
                    + " (the next start finishes the install)", e);
        }
        LOG.log(Level.INFO, "{0}: installed a checkpoint", store);
    }

    /**
     * Finishes an install that a crash cut short, and removes what an interrupted clean-up left. Idempotent; runs
     * before RocksDB opens.
     *
     * @return true when an install was finished
     */
    boolean recover() {
        if (Files.exists(installing, LinkOption.NOFOLLOW_LINKS)) {
            LOG.log(Level.WARNING, "{0}: finishing the install of a checkpoint that a restart interrupted", store);
            complete();
            return true;
        }
        if (Files.exists(replaced, LinkOption.NOFOLLOW_LINKS)) {
            try {
                deleteTree(replaced);
                syncDirectory(store.getParent());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + replaced + ": " + e.getMessage(), e);
            }
        }
        return false;
    }

    /** @return the origin recorded in the store directory, or null */
    Keyspace.Origin origin() {
        Path f = store.resolve(ORIGIN);
        if (!Files.exists(f)) {
            return null;
        }
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(f, StandardCharsets.US_ASCII)) {
            p.load(r);
            return new Keyspace.Origin(Long.parseLong(p.getProperty("sequence", "").trim()),
                    HexFormat.of().parseHex(p.getProperty("chain", "").trim()));
        } catch (IOException | RuntimeException e) {
            // written complete and fsynced before the rename that published it: a bad one is not ours to guess at
            throw new IllegalStateException(f + " is unreadable (" + e.getMessage() + "); the store cannot tell "
                    + "which journal history it belongs to", e);
        }
    }

    /** Forgets the origin, durably. */
    void clearOrigin() {
        try {
            if (Files.deleteIfExists(store.resolve(ORIGIN))) {
                syncDirectory(store);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + store.resolve(ORIGIN) + ": " + e.getMessage(), e);
        }
    }

    private static void writeOrigin(Path dir, Keyspace.Origin origin) throws IOException {
        String text = "sequence=" + origin.sequence() + "\nchain=" + HexFormat.of().formatHex(origin.chain()) + "\n";
        writeAtomically(dir.resolve(ORIGIN), text.getBytes(StandardCharsets.US_ASCII));
    }
}
