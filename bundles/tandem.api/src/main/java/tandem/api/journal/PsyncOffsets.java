package tandem.api.journal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The psync protocol's role: journal sequences to replication offsets and back. Part of {@link Journal}, which the journal bundle provides; a caller holds the role it needs.
 */
@ProviderType
public interface PsyncOffsets {

    /**
     * The psync replication offset: the FRPL bytes of every complete command up to an entry (spec 001's offset,
     * the stream a psync replica receives).
     *
     * @return the offset after the durable, retained entry {@code sequence} — after the last complete command at
     *         or before it — or -1 when {@code sequence} is not durable or no longer retained
     */
    long offsetAfter(long sequence);

    /**
     * @return the sequence after which the psync replication offset is exactly {@code offset}: the end of a
     *         complete command in the durable, retained journal (the sequence just before a segment's first entry
     *         when {@code offset} is that segment's start); -1 when no retained command ends there (inside a
     *         command, before the retained journal, beyond its durable end)
     */
    long sequenceAtOffset(long offset);
}
