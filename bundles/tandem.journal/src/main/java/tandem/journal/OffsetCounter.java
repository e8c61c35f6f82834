package tandem.journal;

import java.io.ByteArrayOutputStream;

import tandem.api.journal.EntryTag;
import tandem.protocol.journal.JournalEntry;

/**
 * Adds up the replication offset over entries read back from a segment file, as the appends that wrote them did: a
 * command's FRPL length at its last fragment, nothing for a fragment, nothing for a group that another entry cut
 * short. Not thread-safe.
 */
final class OffsetCounter {

    private final OffsetMeasure measure;
    private final ByteArrayOutputStream group = new ByteArrayOutputStream();
    private boolean inGroup;
    private long offset;

    /** @param offset the replication offset before the first entry counted */
    OffsetCounter(OffsetMeasure measure, long offset) {
        this.measure = measure;
        this.offset = offset;
    }

    /**
     * Counts one entry (its tag one of {@link EntryTag}'s).
     *
     * @return whether it ends a command, not a fragment: the offset after it is one a psync stream may resume at
     * @throws IllegalArgumentException when an App payload is not a command
     */
    boolean add(JournalEntry e) {
        byte tag = e.tag();
        if (tag == EntryTag.APP_CONTINUATION) {
            if (!inGroup) {
                group.reset();
                inGroup = true;
            }
            group.write(e.buffer().array(), e.payloadOffset(), e.payloadLength());
            return false;
        }
        if (tag == EntryTag.APP) {
            byte[] payload;
            if (inGroup) {
                group.write(e.buffer().array(), e.payloadOffset(), e.payloadLength());
                payload = group.toByteArray();
                group.reset();
                inGroup = false;
            } else {
                payload = e.payload();
            }
            offset += measure.length(tag, e.timestampNs(), payload);
        } else {
            // an entry after an open group discards the group: it never counted
            group.reset();
            inGroup = false;
            offset += measure.length(tag, e.timestampNs(), tag == EntryTag.PUBLISH ? e.payload() : null);
        }
        return true;
    }

    /** @return the replication offset after the entries counted */
    long offset() {
        return offset;
    }

    /** @return whether the last entry counted is a fragment of a command not yet complete */
    boolean inGroup() {
        return inGroup;
    }
}
