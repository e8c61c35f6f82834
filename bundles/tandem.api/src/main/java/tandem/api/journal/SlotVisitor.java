package tandem.api.journal;

import java.nio.ByteBuffer;

/** Receives raw journal entries; see {@link Journal#readSlots}. */
@FunctionalInterface
public interface SlotVisitor {

    /**
     * Called before the first entry of each segment the read enters, when that segment starts after sequence 1 and
     * the read's position is just before its start: the primary announces the rotation there. Default: read on, for
     * a reader of entries to whom segments do not matter.
     *
     * @param startSequence the segment's first sequence
     * @param anchor        its header's anchor: the chain value at {@code startSequence - 1}
     * @return false to stop reading
     * @since 2.0
     */
    default boolean segment(long startSequence, byte[] anchor) {
        return true;
    }

    /**
     * @param sequence the entry's sequence
     * @param slot     the entry without its magic and CRC, positioned at its u16 length; valid only during the
     *                 call
     * @return false to stop reading
     */
    boolean slot(long sequence, ByteBuffer slot);
}
