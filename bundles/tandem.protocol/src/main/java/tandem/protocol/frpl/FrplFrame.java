package tandem.protocol.frpl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The psync command stream's frame: a 20-byte header, big-endian (network order), then one RESP2 command.
 *
 * <pre>
 *  0        4     5     6          8                        16             20
 *  +--------+-----+-----+----------+------------------------+--------------+----------------+
 *  | magic  | ver |flags| shard_id |      sequence u64       |  length u32  | payload        |
 *  | "FRPL" | 02  | 00  |   u16    |  the stream offset     |  of payload  | (length bytes) |
 *  +--------+-----+-----+----------+------------------------+--------------+----------------+
 * </pre>
 *
 * <ul>
 * <li>{@code version} is {@value #VERSION}: a decoder refuses any other (older and newer alike).</li>
 * <li>{@code flags} are reserved: always 0 on the wire, never acted on.</li>
 * <li>{@code shard_id}: Tandem has one keyspace, so 0; {@value #CONTROL_SHARD} ({@code 0xFFFF}) marks a control
 * frame, {@code REPLCONF GETACK *}, which is no write.</li>
 * <li>{@code sequence}: the stream offset <em>after</em> this frame's payload (its end offset). The offset counts
 * payload bytes only; the header is transport. A control frame does not advance it (Tandem's departure from Redis:
 * {@code GETACK} is not part of the offset), so its sequence is the offset it was sent at.</li>
 * <li>{@code length}: the payload's length, at most {@link #MAX_PAYLOAD} (twice the largest request, as FrogDB's
 * ceiling).</li>
 * </ul>
 *
 * Static accessors over a buffer holding the header at its position; {@link Decoder} frames a byte stream.
 */
public final class FrplFrame {

    /** {@code "FRPL"} as a big-endian u32. */
    public static final int MAGIC = 0x4652504C;
    public static final int VERSION = 2;
    public static final int HEADER = 20;
    public static final int CONTROL_SHARD = 0xFFFF;
    /** 2 × 512 MiB, the largest request a server accepts (proto-max-bulk-len), doubled. */
    public static final long MAX_PAYLOAD = 1L << 30;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int FLAGS_OFFSET = 5;
    public static final int SHARD_OFFSET = 6;
    public static final int SEQUENCE_OFFSET = 8;
    public static final int LENGTH_OFFSET = 16;

    /** {@code REPLCONF GETACK *}: the payload of the control frame that asks a replica for an ACK. */
    public static final byte[] GETACK = ascii("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n");

    private FrplFrame() {
    }

    /** Writes a header at {@code dst}'s position (advancing it); the payload follows. */
    public static void writeHeader(ByteBuffer dst, int shard, long endOffset, int payloadLength) {
        if (shard < 0 || shard > 0xFFFF) {
            throw new IllegalArgumentException("shard id " + shard + " is not a u16");
        }
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + payloadLength + " bytes exceeds the frame ceiling "
                    + MAX_PAYLOAD);
        }
        ByteBuffer b = dst.duplicate().order(ByteOrder.BIG_ENDIAN);
        int p = dst.position();
        b.putInt(p + MAGIC_OFFSET, MAGIC);
        b.put(p + VERSION_OFFSET, (byte) VERSION);
        b.put(p + FLAGS_OFFSET, (byte) 0);
        b.putShort(p + SHARD_OFFSET, (short) shard);
        b.putLong(p + SEQUENCE_OFFSET, endOffset);
        b.putInt(p + LENGTH_OFFSET, payloadLength);
        dst.position(p + HEADER);
    }

    /** @return a whole frame: the header and {@code payload} */
    public static byte[] frame(int shard, long endOffset, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + payload.length);
        writeHeader(b, shard, endOffset, payload.length);
        b.put(payload);
        return b.array();
    }

    /** @return the control frame that asks a replica for an ACK, sent at stream offset {@code offset} */
    public static byte[] getAck(long offset) {
        return frame(CONTROL_SHARD, offset, GETACK);
    }

    /**
     * Checks the header at {@code header}'s position.
     *
     * @return null when it is sound, else why not (named after the field)
     */
    public static String check(ByteBuffer header) {
        ByteBuffer b = header.duplicate().order(ByteOrder.BIG_ENDIAN);
        int p = header.position();
        if (b.getInt(p + MAGIC_OFFSET) != MAGIC) {
            return String.format("invalid frame magic %08x", b.getInt(p + MAGIC_OFFSET));
        }
        int version = b.get(p + VERSION_OFFSET) & 0xFF;
        if (version != VERSION) {
            return "unsupported frame version: " + version;
        }
        long length = b.getInt(p + LENGTH_OFFSET) & 0xFFFFFFFFL;
        if (length > MAX_PAYLOAD) {
            return "frame payload of " + length + " bytes exceeds the ceiling " + MAX_PAYLOAD;
        }
        return null;
    }

    public static int shard(ByteBuffer header) {
        return header.duplicate().order(ByteOrder.BIG_ENDIAN).getShort(header.position() + SHARD_OFFSET) & 0xFFFF;
    }

    public static long sequence(ByteBuffer header) {
        return header.duplicate().order(ByteOrder.BIG_ENDIAN).getLong(header.position() + SEQUENCE_OFFSET);
    }

    public static int length(ByteBuffer header) {
        return header.duplicate().order(ByteOrder.BIG_ENDIAN).getInt(header.position() + LENGTH_OFFSET);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Receives whole frames from a {@link Decoder}. */
    @FunctionalInterface
    public interface Handler {
        /**
         * @param payload the frame's payload, positioned at its first byte; valid only during the call, and the
         *                handler's to overwrite (the decoder's own buffer, reused for the next frame)
         */
        void frame(int shard, long sequence, ByteBuffer payload);
    }

    /**
     * A push decoder of a frame stream: fed bytes split anywhere, it hands each frame to its handler only once the
     * whole payload is there (whole-or-nothing), checks magic, version and the length ceiling before it allocates,
     * and allocates a payload buffer only as large as the largest frame seen.
     */
    public static final class Decoder {

        private final Handler handler;
        private final long maxPayload;
        private final ByteBuffer header = ByteBuffer.allocate(HEADER);
        private ByteBuffer payload = ByteBuffer.allocate(4096);
        private boolean inPayload;
        private int shard;
        private long sequence;
        private int length;

        /** @param maxPayload the largest payload accepted, at most {@link FrplFrame#MAX_PAYLOAD} */
        public Decoder(long maxPayload, Handler handler) {
            if (maxPayload < 0 || maxPayload > MAX_PAYLOAD) {
                throw new IllegalArgumentException("maxPayload " + maxPayload + " is outside 0.." + MAX_PAYLOAD);
            }
            this.maxPayload = maxPayload;
            this.handler = handler;
        }

        /**
         * Consumes every byte of {@code in}, calling the handler for each frame it completes.
         *
         * @throws IllegalArgumentException naming the field when a header is not sound (the stream is then broken)
         */
        public void feed(ByteBuffer in) {
            while (in.hasRemaining()) {
                if (!inPayload) {
                    int n = Math.min(header.remaining(), in.remaining());
                    header.put(header.position(), in, in.position(), n);
                    header.position(header.position() + n);
                    in.position(in.position() + n);
                    if (header.hasRemaining()) {
                        return;
                    }
                    header.flip();
                    String bad = check(header);
                    long len = header.getInt(LENGTH_OFFSET) & 0xFFFFFFFFL;
                    if (bad == null && len > maxPayload) {
                        bad = "frame payload of " + len + " bytes exceeds the limit " + maxPayload;
                    }
                    if (bad != null) {
                        header.clear();
                        throw new IllegalArgumentException(bad);
                    }
                    shard = shard(header);
                    sequence = sequence(header);
                    length = (int) len;
                    header.clear();
                    if (payload.capacity() < length) {
                        payload = ByteBuffer.allocate(Math.max(length, payload.capacity() * 2));
                    }
                    payload.clear().limit(length);
                    inPayload = true;
                }
                int n = Math.min(payload.remaining(), in.remaining());
                payload.put(payload.position(), in, in.position(), n);
                payload.position(payload.position() + n);
                in.position(in.position() + n);
                if (!payload.hasRemaining()) {
                    payload.flip();
                    inPayload = false;
                    handler.frame(shard, sequence, payload);
                }
            }
        }

        /** @return true between a header and the end of its payload */
        public boolean inFrame() {
            return inPayload || header.position() > 0;
        }
    }
}
