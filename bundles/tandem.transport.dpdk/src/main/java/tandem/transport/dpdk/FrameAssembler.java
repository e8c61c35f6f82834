package tandem.transport.dpdk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import tandem.protocol.replication.Frames;

/**
 * Cuts the in-order byte stream of a link back into journal-protocol frames, {@code [length u32 LE][payload]}, and
 * hands each payload on without its prefix, as the TCP transport does.
 *
 * <p>The declared length is judged as soon as its four bytes are in and before anything is kept for the payload:
 * 0 and anything over the link's limit are refused with a reason naming the length. A frame that lies whole inside
 * one segment is handed on as a view of the received bytes; only a frame split across segments is gathered, into
 * a buffer that grows to the largest frame seen (never beyond the limit, which was checked first).
 */
final class FrameAssembler {

    /** Receives whole frames; {@code payload} is little-endian, positioned at the tag, valid during the call. */
    interface Sink {
        void frame(ByteBuffer payload);
    }

    /** A length the contract refuses; the stream has no boundary left to trust after it. */
    static final class BadLength extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadLength(String message) {
            super(message, null, false, false);
        }
    }

    private static final int PREFIX = Frames.LENGTH_PREFIX;

    private final int maxFrame;
    private final Sink sink;
    private int prefixBytes;
    private int prefix;
    /** The frame being gathered while {@link #gathering}. */
    private ByteBuffer gather = ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
    private boolean gathering;
    private ByteBuffer view;
    private ByteBuffer viewOf;

    FrameAssembler(int maxFrame, Sink sink) {
        this.maxFrame = maxFrame;
        this.sink = sink;
    }

    /**
     * Takes {@code length} stream bytes at {@code offset} of {@code src}; once {@code stopped} says so (the session
     * closed its link from inside {@code frame}), the rest is not looked at.
     *
     * @throws BadLength for a declared length of 0 or over the limit
     */
    void accept(ByteBuffer src, int offset, int length, java.util.function.BooleanSupplier stopped) {
        int at = offset;
        int end = offset + length;
        while (at < end && !stopped.getAsBoolean()) {
            if (!gathering) {
                if (prefixBytes == 0 && end - at >= PREFIX) {
                    int declared = check(Integer.toUnsignedLong(src.order(ByteOrder.LITTLE_ENDIAN).getInt(at)));
                    at += PREFIX;
                    if (end - at >= declared) {
                        sink.frame(view(src, at, declared));
                        at += declared;
                        continue;
                    }
                    begin(declared);
                    continue;
                }
                // a prefix split across segments: gathered byte by byte, little-endian
                prefix |= (src.get(at++) & 0xFF) << (8 * prefixBytes++);
                if (prefixBytes == PREFIX) {
                    int declared = check(Integer.toUnsignedLong(prefix));
                    prefixBytes = 0;
                    prefix = 0;
                    begin(declared);
                }
                continue;
            }
            int n = Math.min(end - at, gather.remaining());
            gather.put(gather.position(), src, at, n);
            gather.position(gather.position() + n);
            at += n;
            if (!gather.hasRemaining()) {
                gathering = false;
                gather.flip();
                sink.frame(gather);
            }
        }
    }

    private int check(long declared) {
        String refusal = Frames.lengthRefusal(declared, maxFrame);
        if (refusal != null) {
            throw new BadLength(refusal);
        }
        return (int) declared;
    }

    private void begin(int declared) {
        if (gather.capacity() < declared) {
            gather = ByteBuffer.allocate(declared).order(ByteOrder.LITTLE_ENDIAN);
        }
        gather.clear().limit(declared);
        gathering = true;
    }

    private ByteBuffer view(ByteBuffer src, int at, int length) {
        if (viewOf != src) {
            viewOf = src;
            view = src.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        }
        view.clear();
        view.limit(at + length).position(at);
        return view;
    }
}
