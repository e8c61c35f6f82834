package tandem.api.journal;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A replica's role: appending its primary's entries with their own sequences, adopting or resetting a history, installing a snapshot's segment seed. Part of {@link Journal}, which the journal bundle provides; a caller holds the role it needs.
 */
@ProviderType
public interface ReplicaJournal extends JournalReader {

    /**
     * Replica: appends an entry its primary sequenced, with the primary's sequence and timestamp, so that the
     * replica's segment bytes (and chain values) equal the primary's. Fragments ({@link EntryTag#APP_CONTINUATION})
     * are appended as they come. Must be called by one thread at a time.
     *
     * @param payload      the entry's payload, its remaining bytes (not consumed; copied before the call returns)
     * @param offsetLength how far the entry moves the psync replication offset, as on the primary: 0 for a
     *                     fragment, the whole command's FRPL bytes at the {@link EntryTag#APP} that completes a
     *                     group ({@code tandem.protocol.frpl.FrplPayload.Fragments} measures them as they come)
     * @throws IllegalArgumentException when {@code sequence} is not {@code lastSequence() + 1}, or the timestamp
     *                                  goes backwards, or the tag, length or {@code offsetLength} is invalid
     * @throws JournalStoppedException  when the journal has stopped
     * @since 2.0
     */
    void appendReplicated(long sequence, long timestampNs, long keyHash, long requestSeq, byte tag,
            ByteBuffer payload, long offsetLength);

    /**
     * Fresh replica: gives a journal that holds no entry at all the identity of its primary's segment, so that its
     * first segment's header is byte-identical to the primary's.
     *
     * @throws IllegalStateException when the journal holds entries
     */
    void adopt(long startSequence, byte[] anchor, long replicationOffset);

    /**
     * Replica: rotates exactly after {@code boundarySequence}, as the primary did, once the chain there equals
     * {@code tailHash} (an all-zero {@code tailHash} skips the comparison). A no-op when the live segment already
     * starts at {@code boundarySequence + 1}.
     *
     * @throws IllegalStateException when the last appended sequence is not {@code boundarySequence}, or the chain
     *                               differs (the replica's history diverged from the primary's)
     */
    void rotateAt(long boundarySequence, byte[] tailHash);

    /**
     * While true, the live segment rotates only through {@link #rotateAt} and {@link JournalAppender#rotate}, never by size: a
     * replica's segments must end where its primary's do.
     */
    void rotateBySize(boolean enabled);

    /**
     * Compares the chain value at {@code sequence} (appended, not necessarily durable yet) with {@code expected},
     * when the chain reaches it.
     *
     * @return completes with true when equal, false when not; exceptionally when the journal stops or the sequence
     *         can no longer be checked (already absorbed and not at a segment boundary or the chain's tip)
     */
    CompletionStage<Boolean> checkChain(long sequence, byte[] expected);

    /**
     * Psync replica after a full sync: archives the whole journal as a lineage ({@code lineage.<n>/}) and starts a
     * new history whose first segment begins at {@code startSequence} with {@code anchor} and
     * {@code replicationOffset} (the checkpoint's position in the primary's stream).
     */
    void reset(long startSequence, byte[] anchor, long replicationOffset);

    /**
     * Replica: replaces the whole journal by a segment seed after a snapshot — the current segments are archived
     * as a lineage ({@code lineage.<n>/}, never deleted beyond the configured count) and the seed becomes the live
     * segment; the journal then continues after its last entry.
     *
     * @param seed a file holding the seed (moved into the journal: same file system)
     * @throws IllegalStateException when the seed is not a sound segment prefix (nothing is changed then)
     */
    void installSeed(java.nio.file.Path seed);
}
