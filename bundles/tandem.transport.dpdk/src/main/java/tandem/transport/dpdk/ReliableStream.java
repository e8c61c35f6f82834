package tandem.transport.dpdk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A reliable, ordered byte stream over a link that moves raw frames of at most {@link Segment#MAX_FRAME} bytes and
 * may drop, duplicate, reorder or corrupt them: what TCP gives the TCP transport, built here because DPDK hands
 * over bare Ethernet frames.
 *
 * <ul>
 *   <li><b>Segments.</b> Queued bytes are cut into DATA segments of at most {@link Segment#MAX_PAYLOAD} bytes,
 *       numbered from 0. Journal-protocol frames are larger or smaller than segments at will: the receiver's
 *       {@link FrameAssembler} cuts the stream back into frames.</li>
 *   <li><b>Acknowledgement.</b> Every frame carries the next segment number its sender expects (cumulative). A
 *       receiver that got anything answers in the same round, with a bare ACK if it has nothing to send.</li>
 *   <li><b>Flow control.</b> Every frame carries a window: the sender keeps at most that many segments beyond the
 *       peer's acknowledgement in flight, and never more than {@link #WINDOW}. A segment that arrives ahead of a
 *       gap is kept (up to the window) and delivered once the gap fills.</li>
 *   <li><b>Retransmission.</b> The timeout follows the measured round trip as TCP's does (RFC 6298: smoothed
 *       round trip plus four deviations, at least {@link #MIN_RTO_NANOS}; only segments sent once are measured).
 *       When the oldest unacknowledged segment is older than the timeout, every segment in flight is sent again
 *       and the timeout doubles (up to {@link #MAX_RTO_NANOS}) until an acknowledgement moves. Three duplicate
 *       acknowledgements resend the oldest at once.</li>
 *   <li><b>Liveness.</b> An idle stream sends a bare ACK every heartbeat; the owner closes a link whose peer was
 *       silent too long ({@link #lastHeardNanos}).</li>
 * </ul>
 *
 * A frame that fails {@link Segment#check}, belongs to another epoch (an earlier link), acknowledges a segment
 * never sent, is a duplicate or lies beyond the window is dropped and counted; nothing in it is used.
 *
 * <p>Not thread-safe: one I/O thread calls {@link #receive} and {@link #emit}; any thread may {@link #append}.
 */
final class ReliableStream {

    /** Segments in flight at most, and the receive buffer's size in segments: about 370 KB. */
    static final int WINDOW = 256;
    /** Before the first round trip is measured: far above memif's microseconds, well below a human's notice. */
    static final long INITIAL_RTO_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long MIN_RTO_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long MAX_RTO_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final int RECORD_PREFIX = 2;

    private final int epoch;
    private final long heartbeatNanos;
    private final Counters counters;
    private final Segment out = new Segment();
    private final Segment in = new Segment();

    // sending
    private final SendRing ring;
    private final long[] segStart = new long[WINDOW];
    private final int[] segLength = new int[WINDOW];
    private final long[] segSentNanos = new long[WINDOW];
    private final boolean[] segResent = new boolean[WINDOW];
    private int sndUna;
    private int sndNxt;
    /** The next segment to resend after a timeout; equals {@link #sndNxt} when nothing is to be resent. */
    private int resend;
    private long segmented;
    private int peerLimit = WINDOW;
    private int dupAcks;
    private long srtt;
    private long rttvar;
    private long rto = INITIAL_RTO_NANOS;
    private boolean backedOff;
    private long rtoDeadline;
    private long lastSentNanos;

    // receiving
    private final FrameAssembler assembler;
    private final ByteBuffer[] held = new ByteBuffer[WINDOW];
    private final int[] heldLength = new int[WINDOW];
    private final boolean[] present = new boolean[WINDOW];
    private int rcvNxt;
    private boolean ackDue;
    private long lastHeardNanos;

    /**
     * @param epoch the link's, from its rendezvous
     * @param sink  receives each whole journal-protocol frame, on the I/O thread
     */
    ReliableStream(int epoch, int maxFrame, long heartbeatNanos, Counters counters, FrameAssembler.Sink sink,
            long nowNanos) {
        this.epoch = epoch;
        this.heartbeatNanos = heartbeatNanos;
        this.counters = counters;
        this.ring = new SendRing(64 * 1024);
        this.assembler = new FrameAssembler(maxFrame, sink);
        this.lastHeardNanos = nowNanos;
        this.lastSentNanos = nowNanos;
    }

    /** Queues {@code bytes} (whole frames with their length prefixes); any thread. */
    void append(ByteBuffer bytes) {
        ring.append(bytes);
    }

    /** @return bytes queued or in flight, not yet acknowledged; any thread */
    long queued() {
        return ring.queued();
    }

    /** @return true when nothing is queued or unacknowledged */
    boolean drained() {
        return ring.queued() == 0;
    }

    /** @return true when bytes are queued that no segment carries yet; I/O thread */
    boolean hasUnsent() {
        return ring.written() > segmented;
    }

    long lastHeardNanos() {
        return lastHeardNanos;
    }

    /**
     * Takes one received raw frame, {@code size} bytes at {@code offset} of {@code buf}, delivering the whole
     * journal-protocol frames it completes to the sink until {@code stopped} says so.
     *
     * @throws FrameAssembler.BadLength when the stream declares a frame length the link refuses
     */
    void receive(ByteBuffer buf, int offset, int size, long nowNanos, BooleanSupplier stopped) {
        Segment s = in.wrap(buf.position(offset));
        switch (s.check(size)) {
            case MALFORMED -> {
                counters.droppedMalformed.increment();
                return;
            }
            case CORRUPT -> {
                counters.droppedCorrupt.increment();
                return;
            }
            case OK -> {
            }
        }
        if (s.epoch() != epoch) {
            counters.droppedStale.increment();
            return;
        }
        int ack = s.ack();
        if (Segment.before(sndNxt, ack)) {
            counters.droppedBadAck.increment(); // acknowledges what was never sent: not this link's peer
            return;
        }
        counters.framesReceived.increment();
        lastHeardNanos = nowNanos;
        acknowledged(ack, s.window(), s.kind() == Segment.ACK, nowNanos);
        if (s.kind() == Segment.DATA) {
            data(s, nowNanos, stopped);
        }
    }

    private void acknowledged(int ack, int window, boolean bare, long nowNanos) {
        int limit = ack + Math.min(Math.max(window, 0), WINDOW);
        if (Segment.before(peerLimit, limit)) {
            peerLimit = limit;
        }
        if (Segment.before(sndUna, ack)) {
            int last = (ack - 1) & (WINDOW - 1);
            ring.release(segStart[last] + segLength[last]);
            if (!segResent[last]) {
                measured(nowNanos - segSentNanos[last]);
            } else if (backedOff) {
                rto = Math.max(MIN_RTO_NANOS, srtt == 0 ? INITIAL_RTO_NANOS : srtt + 4 * rttvar);
            }
            backedOff = false;
            sndUna = ack;
            if (Segment.before(resend, sndUna)) {
                resend = sndUna;
            }
            dupAcks = 0;
            rtoDeadline = sndUna == sndNxt ? 0 : nowNanos + rto;
        } else if (bare && ack == sndUna && sndUna != sndNxt && ++dupAcks == 3) {
            // the peer keeps asking for the same segment: one is missing, and waiting for the timer costs a round
            resend = sndUna;
            rtoDeadline = nowNanos + rto;
        }
    }

    /** RFC 6298's estimator, in nanoseconds. */
    private void measured(long rtt) {
        if (srtt == 0) {
            srtt = rtt;
            rttvar = rtt / 2;
        } else {
            rttvar = (3 * rttvar + Math.abs(srtt - rtt)) / 4;
            srtt = (7 * srtt + rtt) / 8;
        }
        rto = Math.min(MAX_RTO_NANOS, Math.max(MIN_RTO_NANOS, srtt + 4 * rttvar));
    }

    private void data(Segment s, long nowNanos, BooleanSupplier stopped) {
        int seq = s.seq();
        ackDue = true;
        if (Segment.before(seq, rcvNxt)) {
            counters.droppedDuplicate.increment();
            return;
        }
        if (seq - rcvNxt >= WINDOW) {
            counters.droppedOutOfWindow.increment();
            return;
        }
        if (seq != rcvNxt) {
            int slot = seq & (WINDOW - 1);
            if (present[slot]) {
                counters.droppedDuplicate.increment();
                return;
            }
            if (held[slot] == null) {
                held[slot] = ByteBuffer.allocate(Segment.MAX_PAYLOAD).order(ByteOrder.LITTLE_ENDIAN);
            }
            held[slot].put(0, in.buffer(), s.payloadOffset(), s.length());
            heldLength[slot] = s.length();
            present[slot] = true;
            return;
        }
        assembler.accept(in.buffer(), s.payloadOffset(), s.length(), stopped);
        rcvNxt++;
        for (int slot = rcvNxt & (WINDOW - 1); present[slot] && !stopped.getAsBoolean();
                slot = rcvNxt & (WINDOW - 1)) {
            present[slot] = false;
            rcvNxt++;
            assembler.accept(held[slot], 0, heldLength[slot], stopped);
        }
    }

    /**
     * Writes the frames due now into {@code dst} as records {@code [u16 LE size][frame]}, as many as fit: resent
     * segments first, then new ones within the window, then a bare ACK when one is owed or the heartbeat is due.
     *
     * @return the number of frames written
     */
    int emit(ByteBuffer dst, long nowNanos) {
        dst.order(ByteOrder.LITTLE_ENDIAN);
        int frames = 0;
        if (rtoDeadline != 0 && nowNanos - rtoDeadline >= 0 && sndUna != sndNxt) {
            counters.timeouts.increment();
            resend = sndUna;
            rto = Math.min(rto * 2, MAX_RTO_NANOS);
            backedOff = true;
            rtoDeadline = nowNanos + rto;
        }
        while (resend != sndNxt && fits(dst, segLength[resend & (WINDOW - 1)])) {
            int slot = resend & (WINDOW - 1);
            writeData(dst, resend, segStart[slot], segLength[slot]);
            segResent[slot] = true;
            counters.retransmitted.increment();
            resend++;
            frames++;
        }
        if (resend == sndNxt) {
            long written = ring.written();
            while (segmented < written && sndNxt - sndUna < WINDOW && Segment.before(sndNxt, peerLimit)) {
                int length = (int) Math.min(Segment.MAX_PAYLOAD, written - segmented);
                if (!fits(dst, length)) {
                    break;
                }
                int slot = sndNxt & (WINDOW - 1);
                segStart[slot] = segmented;
                segLength[slot] = length;
                segSentNanos[slot] = nowNanos;
                segResent[slot] = false;
                writeData(dst, sndNxt, segmented, length);
                if (rtoDeadline == 0) {
                    rtoDeadline = nowNanos + rto;
                }
                segmented += length;
                sndNxt++;
                resend = sndNxt;
                frames++;
            }
        }
        if (frames == 0 && (ackDue || nowNanos - lastSentNanos >= heartbeatNanos) && fits(dst, 0)) {
            writeFrame(dst, Segment.ACK, 0, -1, 0);
            frames++;
        }
        if (frames > 0) {
            ackDue = false;
            lastSentNanos = nowNanos;
            counters.framesSent.add(frames);
        }
        return frames;
    }

    private static boolean fits(ByteBuffer dst, int payload) {
        return dst.remaining() >= RECORD_PREFIX + Segment.HEADER + payload;
    }

    private void writeData(ByteBuffer dst, int seq, long offset, int length) {
        writeFrame(dst, Segment.DATA, seq, offset, length);
    }

    private void writeFrame(ByteBuffer dst, byte kind, int seq, long offset, int length) {
        int at = dst.position();
        Segment s = out.wrap(dst.position(at + RECORD_PREFIX));
        if (length > 0) {
            // the payload goes straight from the ring into the frame; the header is written around it
            ring.copy(offset, dst, at + RECORD_PREFIX + Segment.HEADER, length);
        }
        int size = s.writeHeader(kind, epoch, seq, rcvNxt, WINDOW, length);
        dst.putShort(at, (short) size);
        dst.position(at + RECORD_PREFIX + size);
    }
}
