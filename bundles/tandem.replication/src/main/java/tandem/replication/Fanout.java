package tandem.replication;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CopyOnWriteArrayList;

import tandem.api.journal.JournalTap;
import tandem.protocol.journal.JournalEntry;
import tandem.protocol.replication.ChainCheck;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.Rotate;

/**
 * The journal stage's side of replication: on the journal thread, before a batch is written, its entries become
 * wire-ready InputBatch frames (one framing, copied into each replica's outbox); rotations and periodic chain values
 * become Rotate and ChainCheck frames right behind the batches they follow.
 */
final class Fanout implements JournalTap {

    /** Where one replica's live frames go: its session, which sends them at once or queues them. */
    interface Sink {
        void offer(Outbox.Kind kind, ByteBuffer frames, long first, long last);
    }

    private final CopyOnWriteArrayList<Sink> outboxes = new CopyOnWriteArrayList<>();
    private final SlotFramer framer;
    private final JournalEntry entry = new JournalEntry();
    private final ByteBuffer control = ByteBuffer.allocate(Frames.LENGTH_PREFIX + Rotate.LENGTH)
            .order(ByteOrder.LITTLE_ENDIAN);

    Fanout(int maxFrame) {
        this.framer = new SlotFramer(maxFrame);
    }

    void add(Sink o) {
        outboxes.add(o);
    }

    void remove(Sink o) {
        outboxes.remove(o);
    }

    boolean isEmpty() {
        return outboxes.isEmpty();
    }

    @Override
    public void batch(ByteBuffer entries, int count, long firstSequence, long lastSequence) {
        if (outboxes.isEmpty()) {
            return;
        }
        framer.reset();
        ByteBuffer b = entries.order() == ByteOrder.LITTLE_ENDIAN ? entries : entries.duplicate()
                .order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer slot = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int p = b.position(); p < b.limit(); p += entry.size()) {
            entry.wrap(b, p);
            slot.limit(p + entry.size() - 4).position(p + JournalEntry.SLOT_OFFSET);
            framer.add(entry.sequence(), slot);
        }
        ByteBuffer frames = framer.finish();
        for (Sink o : outboxes) {
            o.offer(Outbox.Kind.BATCH, frames, firstSequence, lastSequence);
        }
    }

    @Override
    public void rotated(long boundarySequence, byte[] tailHash) {
        control.clear();
        Rotate.write(control, boundarySequence, tailHash);
        offerControl(Outbox.Kind.ROTATE, boundarySequence);
    }

    @Override
    public void chainCheck(long sequence, byte[] chainHash) {
        control.clear();
        ChainCheck.write(control, sequence, chainHash);
        offerControl(Outbox.Kind.CHAIN_CHECK, sequence);
    }

    /** Offers the control frame just written, about {@code sequence}, to every replica. */
    private void offerControl(Outbox.Kind kind, long sequence) {
        control.flip();
        for (Sink o : outboxes) {
            o.offer(kind, control, sequence, sequence);
        }
    }
}
