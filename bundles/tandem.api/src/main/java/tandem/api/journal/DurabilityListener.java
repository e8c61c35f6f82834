package tandem.api.journal;

/**
 * Told on the journal thread each time the durable sequence advances, and once when the journal stops; see
 * {@link Journal#addDurabilityListener}. Must not block: it hands the news to another thread.
 */
public interface DurabilityListener {

    /** The durable sequence is now {@code sequence} (or later). */
    void durable(long sequence);

    /** The journal stopped (fail-stop): nothing after its durable sequence will become durable. */
    void stopped(String reason);
}
