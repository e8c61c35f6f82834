package tandem.api.store;

import java.util.List;

/**
 * A snapshot of the store's state.
 *
 * @param directory        the RocksDB directory
 * @param appliedSequence  the last journal sequence applied
 * @param flushedSequence  the last applied sequence that RocksDB has flushed to its files (survives a crash
 *                         without the journal)
 * @param keys             the number of user keys, in every database
 * @param keysWithExpiry   the number of keys with a deadline, in every database
 * @param diskBytes        the size of the store's files
 * @param averageTtlMillis the average time to live of the keys with a deadline, from now, in milliseconds (0 when
 *                         none; Redis' {@code avg_ttl}), over every database
 * @param databases        the databases that hold a key, by index ({@code INFO keyspace}'s lines)
 */
public record StoreStatus(String directory, long appliedSequence, long flushedSequence, long keys,
        long keysWithExpiry, long diskBytes, long averageTtlMillis, List<Database> databases) {

    /**
     * One database's line of {@code INFO keyspace}: {@code db<index>:keys=…,expires=…,avg_ttl=…}.
     *
     * @since 4.1
     */
    public record Database(int index, long keys, long keysWithExpiry, long averageTtlMillis) {
    }

    public StoreStatus {
        databases = List.copyOf(databases);
    }

    /** A status of one database, database 0. */
    public StoreStatus(String directory, long appliedSequence, long flushedSequence, long keys, long keysWithExpiry,
            long diskBytes, long averageTtlMillis) {
        this(directory, appliedSequence, flushedSequence, keys, keysWithExpiry, diskBytes, averageTtlMillis,
                keys > 0 ? List.of(new Database(0, keys, keysWithExpiry, averageTtlMillis)) : List.of());
    }

    /** A status of one database, database 0, without an average time to live. */
    public StoreStatus(String directory, long appliedSequence, long flushedSequence, long keys, long keysWithExpiry,
            long diskBytes) {
        this(directory, appliedSequence, flushedSequence, keys, keysWithExpiry, diskBytes, 0);
    }
}
