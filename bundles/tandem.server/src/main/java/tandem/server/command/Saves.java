package tandem.server.command;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import tandem.api.checkpoint.Checkpoints;

/**
 * {@code SAVE}, {@code BGSAVE} and {@code LASTSAVE}: where Redis writes {@code dump.rdb}, Tandem writes the node's
 * backup ({@code Backups#save}: {@code data/backup}, which {@code bin/tandem restore} builds a node from), or, while
 * the journal's backups are not active, keeps a RocksDB checkpoint of the store ({@link Checkpoints#save}). One save runs at a time, on a thread
 * of its own ({@code BGSAVE}) or on the front end's admin thread while its client waits ({@code SAVE}); no client
 * waits on the node's logic thread for either. Thread-safe.
 */
public final class Saves implements AutoCloseable {

    private static final Logger LOG = System.getLogger("tandem.server");
    static final String IN_PROGRESS = "ERR Background save already in progress";

    private final ExecutorService background = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tandem-bgsave");
        t.setDaemon(true);
        return t;
    });
    private volatile long lastSaveEpochSecond = java.time.Instant.now().getEpochSecond();
    private volatile long lastSavedSequence = -1;
    private volatile boolean lastOk = true;
    private volatile long saves;
    private boolean running;
    private boolean scheduled;

    /** {@code SAVE}: makes the copy now. @return {@code +OK} or the error line */
    public String save(java.util.function.Supplier<Checkpoints.Saved> saver) {
        synchronized (this) {
            if (running) {
                return "-" + IN_PROGRESS;
            }
            running = true;
        }
        try {
            return run(saver);
        } finally {
            finished(saver);
        }
    }

    /**
     * {@code BGREWRITEAOF}: the journal is Tandem's append-only file, and a rewritten one is the state without its
     * history, which a checkpoint is: the same copy as {@code BGSAVE}, scheduled behind one that runs.
     *
     * @return the reply line
     */
    public synchronized String bgrewriteaof(java.util.function.Supplier<Checkpoints.Saved> saver) {
        if (running) {
            scheduled = true;
            return "+Background append only file rewriting scheduled";
        }
        bgsave(saver, false);
        return "+Background append only file rewriting started";
    }

    /**
     * {@code BGSAVE [SCHEDULE]}: starts the copy on its own thread.
     *
     * @return the reply line
     */
    public synchronized String bgsave(java.util.function.Supplier<Checkpoints.Saved> saver, boolean schedule) {
        if (running) {
            if (!schedule) {
                return "-" + IN_PROGRESS;
            }
            scheduled = true;
            return "+Background saving scheduled";
        }
        running = true;
        background.execute(() -> {
            try {
                run(saver);
            } finally {
                finished(saver);
            }
        });
        return "+Background saving started";
    }

    private String run(java.util.function.Supplier<Checkpoints.Saved> saver) {
        try {
            Checkpoints.Saved saved = saver.get();
            lastSaveEpochSecond = saved.epochSecond();
            lastSavedSequence = saved.appliedSequence();
            lastOk = true;
            saves++;
            return "+OK";
        } catch (RuntimeException e) {
            lastOk = false;
            LOG.log(Level.WARNING, "SAVE/BGSAVE failed: " + e.getMessage());
            return "-ERR " + e.getMessage();
        }
    }

    /** One save ended: a scheduled one starts now. */
    private void finished(java.util.function.Supplier<Checkpoints.Saved> saver) {
        boolean again;
        synchronized (this) {
            running = false;
            again = scheduled;
            scheduled = false;
        }
        if (again) {
            bgsave(saver, false);
        }
    }

    /** @return {@code LASTSAVE}: when the last copy was made, or the server started (seconds of the epoch) */
    public long lastSave() {
        return lastSaveEpochSecond;
    }

    /** @return whether a save is running now */
    public synchronized boolean inProgress() {
        return running;
    }

    /** @return whether the last save succeeded (true before any) */
    public boolean lastOk() {
        return lastOk;
    }

    /** @return how many saves succeeded */
    public long saves() {
        return saves;
    }

    /** @return the applied sequence the last copy holds, or -1 */
    public long lastSavedSequence() {
        return lastSavedSequence;
    }

    @Override
    public void close() {
        background.shutdownNow();
    }
}
