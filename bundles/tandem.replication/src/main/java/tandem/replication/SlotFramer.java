package tandem.replication;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import tandem.protocol.replication.Frames;
import tandem.protocol.replication.InputBatch;

/**
 * Packs InputBatch slots into frames of at most {@code maxFrame} payload bytes, back to back in one reusable
 * buffer: the slots are copied as they are (a slot is a journal entry without its magic and CRC), never decoded.
 */
final class SlotFramer {

    private static final int HEADER = Frames.LENGTH_PREFIX + InputBatch.LENGTH;

    private final int maxFrame;
    private ByteBuffer buf = ByteBuffer.allocate(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
    private int frameStart = -1;
    private int count;
    private int slotBytes;
    private long first;
    private long last;

    SlotFramer(int maxFrame) {
        this.maxFrame = maxFrame;
    }

    void reset() {
        buf.clear();
        frameStart = -1;
        count = 0;
        slotBytes = 0;
        first = 0;
        last = 0;
    }

    boolean isEmpty() {
        return buf.position() == 0 && frameStart < 0;
    }

    /** @return the bytes framed so far */
    int size() {
        return buf.position();
    }

    long first() {
        return first;
    }

    long last() {
        return last;
    }

    /** Appends one slot (its remaining bytes; not consumed). */
    void add(long sequence, ByteBuffer slot) {
        int n = slot.remaining();
        if (frameStart >= 0 && (InputBatch.LENGTH + slotBytes + n > maxFrame || count == InputBatch.MAX_COUNT)) {
            closeFrame();
        }
        if (frameStart < 0) {
            ensure(HEADER + n);
            frameStart = buf.position();
            buf.position(frameStart + HEADER);
        } else {
            ensure(n);
        }
        buf.put(buf.position(), slot, slot.position(), n);
        buf.position(buf.position() + n);
        count++;
        slotBytes += n;
        if (first == 0) {
            first = sequence;
        }
        last = sequence;
    }

    /** Closes the open frame; @return every frame framed since the last reset, ready to send */
    ByteBuffer finish() {
        if (frameStart >= 0) {
            closeFrame();
        }
        return buf.duplicate().flip();
    }

    private void closeFrame() {
        InputBatch.writeHeader(buf, frameStart, slotBytes, count);
        frameStart = -1;
        count = 0;
        slotBytes = 0;
    }

    private void ensure(int more) {
        if (buf.remaining() < more) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + more))
                    .order(ByteOrder.LITTLE_ENDIAN);
            bigger.put(buf.flip());
            buf = bigger;
        }
    }
}
