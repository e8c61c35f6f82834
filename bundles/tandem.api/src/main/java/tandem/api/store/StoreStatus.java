package tandem.api.store;

/**
 * A snapshot of the store's state.
 *
 * @param directory        the RocksDB directory
 * @param appliedSequence  the last journal sequence applied
 * @param flushedSequence  the last applied sequence that RocksDB has flushed to its files (survives a crash
 *                         without the journal)
 * @param keys             the number of user keys (an estimate where RocksDB only estimates)
 * @param keysWithExpiry   the number of keys with a deadline
 * @param diskBytes        the size of the store's files
 * @param averageTtlMillis the average time to live of the keys with a deadline, from now, in milliseconds (0 when
 *                         none; Redis' {@code avg_ttl})
 */
public record StoreStatus(String directory, long appliedSequence, long flushedSequence, long keys,
        long keysWithExpiry, long diskBytes, long averageTtlMillis) {

    /** A status without an average time to live. */
    public StoreStatus(String directory, long appliedSequence, long flushedSequence, long keys, long keysWithExpiry,
            long diskBytes) {
        this(directory, appliedSequence, flushedSequence, keys, keysWithExpiry, diskBytes, 0);
    }
}
