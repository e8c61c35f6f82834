package tandem.api.journal;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A sender's role: reading what is durable, as entries or as the slots the journal protocol carries, live (taps) or from the files, and the chain values that prove a history. Part of {@link Journal}, which the journal bundle provides; a caller holds the role it needs.
 */
@ProviderType
public interface JournalReader extends JournalPosition {

    /**
     * Reads the durable entries after {@code afterSequence}, in order, joining fragments; stops at the durable end
     * or when the visitor returns false.
     *
     * @throws IllegalArgumentException when {@code afterSequence + 1} is no longer retained
     */
    void read(long afterSequence, EntryVisitor visitor);

    /**
     * Reads the durable entries after {@code afterSequence} as they are on disk, for a replica's catch-up: each
     * entry without its magic and CRC (an InputBatch slot), fragments not joined; and the start of every segment
     * the read enters, so that the reader can announce the rotation.
     *
     * @throws IllegalArgumentException when {@code afterSequence + 1} is no longer retained
     */
    void readSlots(long afterSequence, SlotVisitor visitor);

    /**
     * @return the chain value at a durable, retained {@code sequence} (a segment's anchor for the sequence just
     *         before it starts), or null when {@code sequence} is beyond the durable end or before the retained
     *         history
     */
    byte[] chainAt(long sequence);

    /** @return the retained segments, oldest first (the live one last) */
    List<SegmentInfo> segments();

    /**
     * Re-reads every segment: headers, entry CRCs, sequence continuity and the chain across rotations.
     *
     * @return null when the journal is sound, otherwise where and why it breaks
     *         ({@code "sequence 1234 in journal.000003: CRC mismatch"})
     */
    String verify();

    /**
     * {@link #verify()}, telling {@code progress} how far it got as it goes (on the calling thread, every few
     * MiB): for a person waiting at a terminal on a large journal.
     *
     * @since 1.5
     */
    default String verify(Progress progress) {
        return verify();
    }

    /** How far a long pass over the journal got. */
    @FunctionalInterface
    interface Progress {
        /** @param bytes bytes checked so far, of {@code totalBytes} in all */
        void checked(long bytes, long totalBytes);

        /** @return how a person is shown it: {@code checking the journal: 512/2048 MiB (25%)} */
        static String describe(long bytes, long totalBytes) {
            return String.format(java.util.Locale.ROOT, "checking the journal: %d/%d MiB (%d%%)", bytes >> 20,
                    totalBytes >> 20, totalBytes == 0 ? 100 : bytes * 100 / totalBytes);
        }
    }

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
}
