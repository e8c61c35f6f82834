package tandem.transport.dpdk;

import java.nio.ByteBuffer;

/**
 * The outbound bytes of one link, from the oldest byte the peer has not acknowledged to the newest one queued: the
 * send buffer and the retransmission buffer in one, so that a segment is resent from where its bytes already are.
 * Offsets are positions in the link's byte stream (they only grow); a byte lives at {@code offset & mask}.
 *
 * <p>Application threads append and the link's I/O thread copies segments out and releases, all under the ring's
 * lock; each holds it for one copy of at most a frame's batch or a segment. An append that does not fit doubles
 * the buffer: like a socket's user-space buffer, the ring is not a limit but a measure, and {@link #queued} tells
 * the link when to report itself not writable.
 */
final class SendRing {

    private ByteBuffer buf;
    private int mask;
    private long released;
    private long written;

    SendRing(int initialCapacity) {
        int cap = Integer.highestOneBit(Math.max(4096, initialCapacity - 1)) << 1;
        buf = ByteBuffer.allocateDirect(cap);
        mask = cap - 1;
    }

    /** Copies {@code src}'s remaining bytes in, leaving its position as it was. */
    synchronized void append(ByteBuffer src) {
        int n = src.remaining();
        long used = written - released;
        if (used + n > buf.capacity()) {
            grow(used + n);
        }
        int at = (int) (written & mask);
        int first = Math.min(n, buf.capacity() - at);
        buf.put(at, src, src.position(), first);
        if (first < n) {
            buf.put(0, src, src.position() + first, n - first);
        }
        written += n;
    }

    private void grow(long needed) {
        if (needed > 1 << 30) {
            throw new IllegalStateException("send buffer over 1 GiB: the sender ignores writable()");
        }
        int cap = Integer.highestOneBit((int) needed - 1) << 1;
        ByteBuffer next = ByteBuffer.allocateDirect(cap);
        for (long o = released; o < written; ) {
            int at = (int) (o & mask);
            int n = (int) Math.min(written - o, buf.capacity() - at);
            next.put((int) (o & (cap - 1)), buf, at, n);
            o += n;
        }
        buf = next;
        mask = cap - 1;
    }

    /** Frees everything before stream offset {@code upTo} (acknowledged by the peer). */
    synchronized void release(long upTo) {
        if (upTo > released) {
            released = Math.min(upTo, written);
        }
    }

    synchronized long written() {
        return written;
    }

    synchronized long queued() {
        return written - released;
    }

    /**
     * Copies {@code length} bytes from stream offset {@code offset} (which must be between {@link #released} and
     * {@link #written}) into {@code dst} at {@code dstOffset}.
     */
    synchronized void copy(long offset, ByteBuffer dst, int dstOffset, int length) {
        int at = (int) (offset & mask);
        int first = Math.min(length, buf.capacity() - at);
        dst.put(dstOffset, buf, at, first);
        if (first < length) {
            dst.put(dstOffset + first, buf, 0, length - first);
        }
    }
}
