package tandem.api.journal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The node's journal. One writer appends (the sequencer); a journal thread writes each batch with one write and one
 * {@code fdatasync} (group commit) and then advances the durable sequence.
 *
 * <p>Its methods are grouped by the roles of their callers: {@link JournalAppender} (the sequencer),
 * {@link JournalReader} (senders), {@link ReplicaJournal} (a replica's receiver) and {@link PsyncOffsets} (the psync
 * protocol), all over {@link JournalPosition}.
 */
@ProviderType
public interface Journal extends JournalAppender, ReplicaJournal, PsyncOffsets {
}
