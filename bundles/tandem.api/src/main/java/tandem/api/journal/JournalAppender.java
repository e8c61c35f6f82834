package tandem.api.journal;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The sequencer's role: appending entries (one writer), and the retention it drives. Part of {@link Journal}, which
 * the journal bundle provides; a caller holds the role it needs.
 */
@ProviderType
public interface JournalAppender extends JournalPosition {

    /**
     * Appends a command or event and assigns it the next sequences. A payload longer than one entry holds is split
     * into {@link EntryTag#APP_CONTINUATION} fragments and a final {@link EntryTag#APP}, each with its own sequence.
     * Must be called by one thread at a time, in the order the entries are to be applied.
     *
     * @param payload      the entry's payload, its remaining bytes (not consumed; copied before the call returns)
     * @param offsetLength how far the entry moves the psync replication offset ({@link PsyncOffsets}): the FRPL
     *                     bytes it becomes, {@code tandem.protocol.frpl.FrplPayload#length} (0 for an EpochBump).
     *                     The caller knows it; the journal records it and does not read the payload for it
     * @return the sequence of the last entry written (the one at which the command applies)
     * @throws IllegalArgumentException when the timestamp or {@code offsetLength} is negative, or the tag cannot be
     *                                  appended, or a payload too long for one entry is not an App command
     * @throws JournalStoppedException  when the journal has stopped
     * @since 2.0
     */
    long append(long timestampNs, long keyHash, byte tag, ByteBuffer payload, long offsetLength);

    /**
     * {@link #append(long, long, byte, ByteBuffer, long)} of a whole array.
     *
     * @since 2.0
     */
    default long append(long timestampNs, long keyHash, byte tag, byte[] payload, long offsetLength) {
        return append(timestampNs, keyHash, tag, ByteBuffer.wrap(payload), offsetLength);
    }

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
