package tandem.api.journal;

/**
 * A snapshot of the journal's state, for {@code INFO}, the shell and health.
 *
 * @param directory          where the segments live
 * @param firstSequence      the first sequence still retained (0 when empty)
 * @param lastSequence       the last sequence appended (may not be durable yet)
 * @param durableSequence    the last sequence made durable by {@code fdatasync}
 * @param lastTimestampNs    the timestamp of the last entry appended (0 when empty)
 * @param replicationOffset  the replication offset after the last durable complete command
 * @param segments           the number of segment files (archives and the live one)
 * @param bytes              their total size
 * @param chainHex           the chain value at the durable sequence, hex
 * @param stoppedReason      why the journal stopped (fail-stop), or null while it runs
 */
public record JournalStatus(String directory, long firstSequence, long lastSequence, long durableSequence,
        long lastTimestampNs, long replicationOffset, int segments, long bytes, String chainHex,
        String stoppedReason) {
}
