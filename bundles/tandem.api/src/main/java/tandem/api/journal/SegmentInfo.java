package tandem.api.journal;

/**
 * One retained segment.
 *
 * @param name              its file name
 * @param startSequence     the header's starting sequence
 * @param lastSequence      the last durable sequence in it ({@code startSequence - 1} when empty)
 * @param anchor            the header's anchor (the chain value before its first entry); do not modify
 * @param replicationOffset the header's replication offset
 * @param sealed            true once rotated out
 */
public record SegmentInfo(String name, long startSequence, long lastSequence, byte[] anchor,
        long replicationOffset, boolean sealed) {

    /** @return the number of entries in it */
    public long entries() {
        return lastSequence - startSequence + 1;
    }
}
