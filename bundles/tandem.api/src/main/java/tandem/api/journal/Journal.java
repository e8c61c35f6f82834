package tandem.api.journal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The node's journal. One writer appends (the sequencer); a journal thread writes each batch with one write and one
 * {@code fdatasync} (group commit) and then advances the durable sequence.
 */
@ProviderType
public interface Journal {

    /**
     * Appends a command or event and assigns it the next sequences. A payload longer than one entry holds is split
     * into {@link EntryTag#APP_CONTINUATION} fragments and a final {@link EntryTag#APP}, each with its own sequence.
     * Must be called by one thread at a time, in the order the entries are to be applied.
     *
     * @return the sequence of the last entry written (the one at which the command applies)
     * @throws JournalStoppedException when the journal has stopped
     */
    long append(long timestampNs, long keyHash, byte tag, byte[] payload);

    /** @return the last sequence appended, durable or not (0 when empty) */
    long lastSequence();

    /** @return the last sequence that is durable (0 when none) */
    long durableSequence();

    /** @return the timestamp of the last entry appended, so that time never goes backwards (0 when empty) */
    long lastTimestampNs();

    /**
     * Waits until {@code sequence} is durable, with the configured wait strategy.
     *
     * @throws JournalStoppedException when the journal stopped before {@code sequence} became durable
     * @throws InterruptedException    when the waiting thread is interrupted
     */
    void awaitDurable(long sequence) throws InterruptedException;

    /**
     * Registers a listener told of each durability advance on the journal thread, so that a waiter needs no thread
     * of its own to wait for an {@code fdatasync}.
     */
    void addDurabilityListener(DurabilityListener listener);

    /** Removes a listener; once this returns, it is no longer called. */
    void removeDurabilityListener(DurabilityListener listener);

    /**
     * Reads the durable entries after {@code afterSequence}, in order, joining fragments; stops at the durable end
     * or when the visitor returns false.
     *
     * @throws IllegalArgumentException when {@code afterSequence + 1} is no longer retained
     */
    void read(long afterSequence, EntryVisitor visitor);

    /** Closes the live segment and starts a new one (a no-op when the live segment is empty). */
    void rotate();

    /**
     * Deletes archived segments whose every entry is at or below {@code appliedAndFlushed}, keeping what the
     * retention configuration requires.
     *
     * @return the number of segment files deleted
     */
    int purge(long appliedAndFlushed);

    /**
     * Re-reads every segment: headers, entry CRCs, sequence continuity and the chain across rotations.
     *
     * @return null when the journal is sound, otherwise where and why it breaks
     *         ({@code "sequence 1234 in journal.000003: CRC mismatch"})
     */
    String verify();

    /** @return the current state */
    JournalStatus status();

    // ---- replication ----------------------------------------------------------------------------------------------

    /**
     * Replica: appends an entry its primary sequenced, with the primary's sequence and timestamp, so that the
     * replica's segment bytes (and chain values) equal the primary's. Fragments ({@link EntryTag#APP_CONTINUATION})
     * are appended as they come. Must be called by one thread at a time.
     *
     * @param payload the entry's payload, its remaining bytes (not consumed)
     * @throws IllegalArgumentException when {@code sequence} is not {@code lastSequence() + 1}, or the timestamp
     *                                  goes backwards, or the tag or length is invalid
     * @throws JournalStoppedException  when the journal has stopped
     */
    void appendReplicated(long sequence, long timestampNs, long keyHash, long requestSeq, byte tag,
            ByteBuffer payload);

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
     * While true, the live segment rotates only through {@link #rotateAt} and {@link #rotate}, never by size: a
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
     * @return the chain value at a durable, retained {@code sequence} (a segment's anchor for the sequence just
     *         before it starts), or null when {@code sequence} is beyond the durable end or before the retained
     *         history
     */
    byte[] chainAt(long sequence);

    /**
     * @return a number that changes whenever the journal's whole history is replaced in this process (a segment seed
     *         installed, a lineage archived, a primary's identity adopted), so that a reader can tell when what it
     *         learned of the history (a chain value) no longer holds; it starts anew when the journal opens
     */
    long generation();

    /**
     * The psync replication offset: the FRPL bytes of every complete command up to an entry (spec 001's offset,
     * the stream a psync replica receives).
     *
     * @return the offset after the durable, retained entry {@code sequence} — after the last complete command at
     *         or before it — or -1 when {@code sequence} is not durable or no longer retained
     */
    long offsetAfter(long sequence);

    /**
     * @return the sequence after which the psync replication offset is exactly {@code offset}: the end of a
     *         complete command in the durable, retained journal (the sequence just before a segment's first entry
     *         when {@code offset} is that segment's start); -1 when no retained command ends there (inside a
     *         command, before the retained journal, beyond its durable end)
     */
    long sequenceAtOffset(long offset);

    /**
     * Psync replica after a full sync: archives the whole journal as a lineage ({@code lineage.<n>/}) and starts a
     * new history whose first segment begins at {@code startSequence} with {@code anchor} and
     * {@code replicationOffset} (the checkpoint's position in the primary's stream).
     */
    void reset(long startSequence, byte[] anchor, long replicationOffset);

    /** @return the retained segments, oldest first (the live one last) */
    List<SegmentInfo> segments();

    /**
     * Reads the durable entries after {@code afterSequence} as they are on disk, for a replica's catch-up: each
     * entry without its magic and CRC (an InputBatch slot), fragments not joined; and the start of every segment
     * the read enters, so that the reader can announce the rotation.
     *
     * @throws IllegalArgumentException when {@code afterSequence + 1} is no longer retained
     */
    void readSlots(long afterSequence, SlotVisitor visitor);

    /**
     * Registers a tap that sees every batch on the journal thread before it is written, every rotation, and every
     * {@code chainCheckInterval}-th batch's chain value. A tap must not block.
     */
    void tap(JournalTap tap);

    /** Removes a tap; once this returns, the tap is no longer called. */
    void untap(JournalTap tap);

    /**
     * Primary: the segment seed for a snapshot at {@code snapSequence} — the raw prefix of the retained segment that
     * holds {@code snapSequence + 1}: its header and its entries up to and including {@code snapSequence} (only the
     * header when the snapshot sits exactly at the segment's start). A replica that installs it and its snapshot
     * continues with byte-identical files.
     *
     * @return the seed's length in bytes, written to {@code out}
     * @throws IllegalArgumentException when no retained segment holds {@code snapSequence + 1} or it is not durable
     */
    long writeSeed(long snapSequence, java.nio.channels.WritableByteChannel out) throws java.io.IOException;

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
