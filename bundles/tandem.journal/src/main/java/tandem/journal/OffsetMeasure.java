package tandem.journal;

/**
 * How far an entry moves the psync replication offset: the FRPL bytes it becomes (spec 001). The caller of an append
 * knows it and passes it in, so that appending never reads a payload for it; the journal measures only what it reads
 * back from its files (a segment's entries when it opens: the offset index it rebuilds and the header offsets it
 * checks; the entries between two index points at a lookup) and the Tick it writes itself to close a command cut
 * short by a crash. The node's journal is given {@code tandem.protocol.frpl.FrplPayload#length}.
 */
@FunctionalInterface
public interface OffsetMeasure {

    /**
     * @param payload the entry's payload; for an App entry the whole command, fragments joined; for a Publish its
     *                own; null for a Tick or an EpochBump
     * @throws IllegalArgumentException when an App payload is not a command, or the tag is unknown
     */
    long length(byte tag, long timestampNs, byte[] payload);
}
