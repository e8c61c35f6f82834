package tandem.api.fencing;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Spec 001's split-brain audit: the writes a demoted primary gives up when it resyncs to a new primary are recorded
 * to {@code data/split_brain_discarded_<timestamp>.log} before they are gone from its store.
 *
 * <p>The ring of spec 001 (the writes this node took as a primary that no replica acknowledged, bounded in entries
 * and bytes, oldest evicted first) is the tail of this node's own journal beyond the highest sequence a replica held:
 * nothing is copied on the write path. When a snapshot of the new primary replaces that history (psync
 * {@code +FULLRESYNC}, or the journal protocol's HashMismatch repair), the node core reads the tail, newest
 * {@link #maxEntries()} / {@link #maxBytes()} kept, and hands it here; the whole old journal is kept besides as a
 * lineage archive ({@code data/journal/lineage.<n>/}).
 */
@ProviderType
public interface SplitBrainAudit {

    /** @return how many writes the ring keeps at most (the oldest beyond are evicted) */
    int maxEntries();

    /** @return how many payload bytes the ring keeps at most (the oldest beyond are evicted) */
    long maxBytes();

    /**
     * Records a discarded history. Called on the node's logic thread once the new primary's snapshot is installed
     * (the writes are gone from the store by then, and from the live journal next); failures are the recorder's to
     * log, never the caller's.
     */
    void discarded(Discard discard);

    /** @return what was recorded since the component started */
    Counters counters();

    /**
     * One discarded write: a command, or a transaction's commands (MULTI … EXEC) as one write.
     *
     * @param sequence    its journal sequence on the old primary
     * @param timestampNs the time it was taken (epoch nanoseconds)
     * @param transaction whether it is a transaction (MULTI … EXEC), even of one command
     * @param commands    its commands, each as its arguments, the name first
     */
    record Write(long sequence, long timestampNs, boolean transaction, List<byte[][]> commands) {
    }

    /**
     * A history this node gave up.
     *
     * @param protocol       the protocol of the new primary ({@code journal} or {@code psync})
     * @param oldPrimary     this node, as its clients reached it
     * @param newPrimary     the primary it follows now, as configured
     * @param epochOld       the epoch of the history given up (its last EpochBump; 0 before any promotion)
     * @param epochNew       the epoch of the new primary's history, as its snapshot holds it
     * @param heldSequence   the highest sequence a replica had acknowledged holding when this node stopped being a
     *                       primary; the writes after it are the divergent ones
     * @param lastSequence   the last sequence of the history given up
     * @param writes         the writes after {@code heldSequence} in sequence order, newest kept within the ring
     * @param evictedWrites  writes after {@code heldSequence} that the ring's bounds left out (the oldest)
     * @param evictedBytes   their payload bytes
     */
    record Discard(String protocol, String oldPrimary, String newPrimary, long epochOld, long epochNew,
            long heldSequence, long lastSequence, List<Write> writes, long evictedWrites, long evictedBytes) {
    }

    /**
     * @param events    discarded histories recorded
     * @param ops       writes recorded
     * @param bytes     RESP bytes recorded
     * @param evicted   writes the ring's bounds left out
     * @param lastFile  the last audit file written, or null
     */
    record Counters(long events, long ops, long bytes, long evicted, String lastFile) {
    }
}
