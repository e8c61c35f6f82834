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
 */
public record StoreStatus(String directory, long appliedSequence, long flushedSequence, long keys,
        long keysWithExpiry, long diskBytes) {
}
