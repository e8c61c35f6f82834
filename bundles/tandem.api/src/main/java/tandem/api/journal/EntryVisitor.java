package tandem.api.journal;

/** Receives journal entries in sequence order; see {@link Journal#read}. */
@FunctionalInterface
public interface EntryVisitor {

    /**
     * @param sequence    the entry's sequence; for a command split into fragments, the sequence of its last
     *                    fragment, with the fragments' payloads joined
     * @param timestampNs the entry's timestamp, "now" for its apply
     * @param keyHash     FNV-1a 64 of the command's first key, 0 when it has none
     * @param tag         one of {@link EntryTag}; never {@link EntryTag#APP_CONTINUATION}
     * @param payload     the entry's payload (owned by the visitor)
     * @return false to stop reading
     */
    boolean entry(long sequence, long timestampNs, long keyHash, byte tag, byte[] payload);

    /**
     * A sequence that carries no command: a fragment group that was never completed (a crash or promotion in
     * mid-group) is discarded, but its sequences still advance. Default: ignore.
     */
    default void skipped(long sequence) {
    }
}
