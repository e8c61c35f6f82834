package tandem.journal;

import java.nio.ByteBuffer;

import tandem.protocol.journal.JournalEntry;

/**
 * Entries encoded back to back, on their way to the file in one write: the sequencer fills one batch while the
 * journal thread writes the one before, then they swap (group commit). Its buffer travels on to the chain thread,
 * which hands back a spare one.
 */
final class Batch {

    /** The pending batch's byte bound: beyond it, an append waits for the journal thread. */
    static final int MAX_PENDING_BYTES = 4 * 1024 * 1024;
    static final int INITIAL_BYTES = 64 * 1024;

    private ByteBuffer view;
    /** Bytes encoded. */
    int bytes;
    /** Entries encoded. */
    int count;
    long lastSequence;
    /** The replication offset after the last complete command encoded (or before, while none is). */
    long offsetAfter;

    Batch(ByteBuffer buffer) {
        this.view = buffer;
    }

    /** @return the buffer, whole: entries are at absolute indexes {@code 0 .. bytes} */
    ByteBuffer view() {
        return view;
    }

    byte[] array() {
        return view.array();
    }

    /** Takes another buffer (a spare from the chain thread), empty. */
    void use(ByteBuffer buffer) {
        view = buffer;
    }

    /** Grows the buffer, keeping what it holds, so that {@code more} bytes fit after it. */
    void ensure(int more) {
        if (bytes + more <= view.capacity()) {
            return;
        }
        byte[] bigger = new byte[Math.max(bytes + more, Math.min(view.capacity() * 2,
                MAX_PENDING_BYTES + JournalEntry.MAX_SIZE))];
        System.arraycopy(view.array(), 0, bigger, 0, bytes);
        view = ByteBuffer.wrap(bigger);
    }

    void clear() {
        bytes = 0;
        count = 0;
    }
}
