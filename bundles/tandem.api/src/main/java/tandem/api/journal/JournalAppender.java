package tandem.api.journal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The sequencer's role: appending entries (one writer), and the retention it drives. Part of {@link Journal}, which the journal bundle provides; a caller holds the role it needs.
 */
@ProviderType
public interface JournalAppender extends JournalPosition {

    /**
     * Appends a command or event and assigns it the next sequences. A payload longer than one entry holds is split
     * into {@link EntryTag#APP_CONTINUATION} fragments and a final {@link EntryTag#APP}, each with its own sequence.
     * Must be called by one thread at a time, in the order the entries are to be applied.
     *
     * @return the sequence of the last entry written (the one at which the command applies)
     * @throws JournalStoppedException when the journal has stopped
     */
    long append(long timestampNs, long keyHash, byte tag, byte[] payload);

    /** Closes the live segment and starts a new one (a no-op when the live segment is empty). */
    void rotate();

    /**
     * Deletes archived segments whose every entry is at or below {@code appliedAndFlushed}, keeping what the
     * retention configuration requires.
     *
     * @return the number of segment files deleted
     */
    int purge(long appliedAndFlushed);
}
