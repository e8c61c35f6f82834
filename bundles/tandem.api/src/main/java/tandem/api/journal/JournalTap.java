package tandem.api.journal;

import java.nio.ByteBuffer;

/** Sees the journal's output as it is produced; see {@link Journal#tap}. Called on the journal thread. */
public interface JournalTap {

    /**
     * A batch about to be written.
     *
     * @param entries       the entries as on disk (magic and CRC included), positioned at the first; valid only
     *                      during the call
     * @param count         how many entries
     * @param firstSequence the first entry's sequence
     * @param lastSequence  the last entry's sequence
     */
    void batch(ByteBuffer entries, int count, long firstSequence, long lastSequence);

    /** The live segment was sealed after {@code boundarySequence}; its tail chain value is {@code tailHash}. */
    void rotated(long boundarySequence, byte[] tailHash);

    /** The chain value at {@code sequence}, the end of a batch, right after that batch. */
    void chainCheck(long sequence, byte[] chainHash);
}
