package tandem.api.journal;

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
}
