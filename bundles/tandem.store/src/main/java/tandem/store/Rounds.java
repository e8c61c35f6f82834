package tandem.store;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WBWIRocksIterator;
import org.rocksdb.WriteBatchWithIndex;
import org.rocksdb.WriteOptions;

/**
 * The store's writer thread and the rounds it writes. {@link RocksKeyspace#commit} hands the round's batch here; the
 * writer inserts it into RocksDB's memtables while the logic thread applies the next round into a second batch (the
 * two are swapped, never allocated per round): profiled under pipelined SETs, the memtable insert cost about as much
 * as the apply, and was a quarter of the logic thread, the serial limit.
 *
 * <p>What the logic thread reads of RocksDB waits for the round being written ({@link #awaitReadable}); what other
 * threads read waits until what was committed before they asked is written ({@link #awaitCommitted}). When a round
 * cannot be written (a full disk), it is kept whole, what was applied after it is laid over it, and the logic
 * thread's reads go on through it; every later commit is refused until the store is reopened and the journal
 * replays what is missing.
 */
final class Rounds {

    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final Tx tx;
    private final List<ColumnFamilyHandle> families;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tandem-store-writer");
        t.setDaemon(true);
        return t;
    });

    /** The round being written, or null; the logic thread's. */
    private Future<?> writing;
    /** The empty batch the next round starts with once the one being written is in the database. */
    private WriteBatchWithIndex spare = new WriteBatchWithIndex(true);
    /** The last sequence handed to the writer; written by the logic thread. */
    private volatile long handed;
    /** The last sequence written to RocksDB with its effects: what a flush makes durable. */
    private volatile long committed;
    /** Why a round could not be written, or null. */
    private volatile String failure;
    /** Whether the round that could not be written is back under the logic thread's reads. */
    private boolean failedRoundKept;
    private volatile boolean stopped;

    /**
     * @param families every column family a round may write (a failed round's later writes are laid over it per
     *                 family)
     * @param tx       makes the apply view, given what it must run before it reads RocksDB
     */
    Rounds(RocksDB db, WriteOptions writeOptions, List<ColumnFamilyHandle> families, Function<Runnable, Tx> tx) {
        this.db = db;
        this.writeOptions = writeOptions;
        this.families = families;
        this.tx = tx.apply(this::awaitReadable);
    }

    /** @return the apply view whose batches this writes */
    Tx tx() {
        return tx;
    }

    /** The database holds everything up to {@code sequence}: at open, and after a write that bypassed the rounds. */
    void writtenUpTo(long sequence) {
        handed = sequence;
        committed = sequence;
    }

    long handed() {
        return handed;
    }

    long committed() {
        return committed;
    }

    /**
     * Hands the logic thread's batch, which ends with the {@code meta} record of {@code sequence}, to the writer;
     * the logic thread goes on with an empty one. Call {@link #awaitWritten} first, before the meta record goes in.
     */
    void hand(long sequence) {
        long from = handed + 1;
        WriteBatchWithIndex round = tx.hand(spare);
        spare = round;
        handed = sequence;
        writing = writer.submit(() -> {
            try {
                db.write(writeOptions, round);
                committed = sequence;
            } catch (RocksDBException | RuntimeException e) {
                failure = "RocksDB write of sequences " + from + ".." + sequence + " failed: " + e.getMessage();
                return; // the round stays whole: reads go on over it (keepFailedRound)
            }
            round.clear();
        });
    }

    /**
     * Waits until the round handed to the writer is in the database. Logic thread.
     *
     * @throws IllegalStateException when a round could not be written
     */
    void awaitWritten() {
        awaitReadable();
        String failed = failure;
        if (failed != null) {
            throw new IllegalStateException(failed);
        }
    }

    /**
     * Waits until the round handed to the writer is in the database, or could not be written: then that round,
     * with what was applied after it laid over it, is what the logic thread reads RocksDB through (its entries were
     * answered; they stay readable until the store is reopened and the journal replays them). Logic thread.
     */
    void awaitReadable() {
        Future<?> w = writing;
        if (w != null) {
            boolean interrupted = false;
            while (true) {
                try {
                    w.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the write must end before anything reads or closes the database
                } catch (ExecutionException e) {
                    break; // the task records its own failure
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            writing = null;
        }
        if (failure != null && !failedRoundKept) {
            keepFailedRound();
        }
    }

    /**
     * Waits (briefly: one round's write) until the writer has written what was handed to it before the call, so
     * that what was committed, and acknowledged, is in what another thread reads. Any thread.
     */
    void awaitCommitted() {
        long sequence = handed;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (committed < sequence && failure == null && !stopped && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000L);
        }
    }

    /**
     * Lays the writes applied since the failed round was handed over it and makes it the logic thread's batch
     * again. Only puts and deletes reach a round's batch; its index holds the latest write of each key.
     */
    private void keepFailedRound() {
        failedRoundKept = true;
        WriteBatchWithIndex failed = spare; // hand() left the round being written there
        WriteBatchWithIndex later = tx.hand(failed);
        try {
            for (ColumnFamilyHandle cf : families) {
                try (WBWIRocksIterator it = later.newIterator(cf)) {
                    for (it.seekToFirst(); it.isValid(); it.next()) {
                        WBWIRocksIterator.WriteEntry e = it.entry();
                        byte[] key = bytes(e.getKey().data());
                        switch (e.getType()) {
                            case PUT -> failed.put(cf, key, bytes(e.getValue().data()));
                            case DELETE, SINGLE_DELETE -> failed.delete(cf, key);
                            default -> throw new IllegalStateException("a round holds a " + e.getType());
                        }
                    }
                }
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("keeping the round that could not be written failed: " + e.getMessage(),
                    e);
        }
        tx.wrote = true; // reads must merge the batch with the database from now on
        later.clear();
        spare = later;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Waits for the round being written (a failed one was said when it happened) and stops the writer. */
    void stop() {
        try {
            awaitWritten();
        } catch (IllegalStateException e) {
            // said when it happened; the journal replays what was not written
        }
        stopped = true;
        writer.shutdown();
    }

    /** Releases the spare batch; after {@link #stop}. */
    void release() {
        spare.close();
    }
}
