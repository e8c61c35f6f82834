package tandem.api.journal;

/** The {@code event_tag} byte of a journal entry. */
public final class EntryTag {

    /** Active expiry: payload {@code now_ns u64}; apply deletes keys whose deadline is at or before it. */
    public static final byte TICK = 0x03;

    /** The first entry of a primary's tenure: payload {@code epoch u64}. */
    public static final byte EPOCH_BUMP = 0x04;

    /**
     * A message for the subscribers of the replicas: payload = the canonical RESP2 array {@code PUBLISH channel
     * message} or {@code SPUBLISH shardchannel message}, as the client sent it. Changes no key; a replica delivers it
     * to its own subscribers once it applies it live (never when replaying its journal), as a Redis replica does the
     * {@code PUBLISH} in its primary's stream. Never split into fragments.
     *
     * @since 2.1
     */
    public static final byte PUBLISH = 0x05;

    /** A complete command (or the last fragment of one): payload = one canonical RESP2 array, or a transaction. */
    public static final byte APP = (byte) 0x80;

    /** Every fragment but the last of a command whose payload does not fit one entry. */
    public static final byte APP_CONTINUATION = (byte) 0x81;

    private EntryTag() {
    }
}
