package tandem.api.journal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where the journal stands: what is appended, what is durable, and waiting for durability; every role has it. Part of {@link Journal}, which the journal bundle provides; a caller holds the role it needs.
 */
@ProviderType
public interface JournalPosition {

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
     * @return a number that changes whenever the journal's whole history is replaced in this process (a segment seed
     *         installed, a lineage archived, a primary's identity adopted), so that a reader can tell when what it
     *         learned of the history (a chain value) no longer holds; it starts anew when the journal opens
     */
    long generation();

    /** @return the current state */
    JournalStatus status();

    /**
     * @return the journal archive's state, or null while archiving is not configured (or the journal does not
     *         archive)
     * @since 2.2
     */
    default ArchiveStatus archiveStatus() {
        return null;
    }
}
