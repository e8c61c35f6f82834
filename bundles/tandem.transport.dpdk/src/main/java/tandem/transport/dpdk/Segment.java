package tandem.transport.dpdk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Flyweight over one raw frame of the DPDK transport's reliability layer: an Ethernet header, then a segment of the
 * link's byte stream or a bare acknowledgement.
 *
 * <pre>
 *  offset  size  field
 *   0       6    destination MAC      (02:00:00:00:00:00; memif carries frames point to point, nothing routes them)
 *   6       6    source MAC           (02:00:00:00:00:00)
 *  12       2    EtherType 0x88B5     (big-endian; IEEE "local experimental")
 *  14       1    version              (1)
 *  15       1    kind                 (1 DATA: carries stream bytes; 2 ACK: acknowledgement or heartbeat only)
 *  16       2    payload length       (u16 LE; 0 for ACK, 1..MAX_PAYLOAD for DATA)
 *  18       4    epoch                (u32 LE; the link's, chosen at rendezvous: frames of another link are stale)
 *  22       4    seq                  (u32 LE; DATA: this segment's number; ACK: 0)
 *  26       4    ack                  (u32 LE; the next segment number the sender expects: everything before it
 *                                      arrived)
 *  30       4    window               (u32 LE; how many segments from ack on the sender of this frame will take)
 *  34       4    crc32c               (u32 LE; CRC32C of bytes 0..33 and the payload)
 *  38       n    payload              (DATA: stream bytes)
 * </pre>
 *
 * Sequence numbers wrap at 2^32 and are compared with serial arithmetic ({@link #before}). Every field is checked
 * by {@link #check} before anything of the frame is used, so a frame that is short, of another protocol or
 * version, with a length that does not match its size, or with a wrong checksum is dropped without touching the
 * stream.
 */
final class Segment {

    static final int ETHERTYPE = 0x88B5;
    static final int VERSION = 1;
    static final byte DATA = 1;
    static final byte ACK = 2;

    static final int ETHERTYPE_OFFSET = 12;
    static final int VERSION_OFFSET = 14;
    static final int KIND_OFFSET = 15;
    static final int LENGTH_OFFSET = 16;
    static final int EPOCH_OFFSET = 18;
    static final int SEQ_OFFSET = 22;
    static final int ACK_OFFSET = 26;
    static final int WINDOW_OFFSET = 30;
    static final int CRC_OFFSET = 34;
    static final int HEADER = 38;

    /** The largest raw frame: memif's buffers hold 2048 bytes, but a frame must stay an Ethernet MTU. */
    static final int MAX_FRAME = 1500;
    static final int MAX_PAYLOAD = MAX_FRAME - HEADER;

    /** Why {@link #check} refused a frame; {@code OK} when it did not. */
    enum Verdict { OK, MALFORMED, CORRUPT }

    private final CRC32C crc = new CRC32C();
    private ByteBuffer frame;
    /** A second view of {@link #frame} for the checksum, kept while the same buffer is wrapped again. */
    private ByteBuffer view;
    private int base;

    /** Wraps the frame at {@code buf}'s position. */
    Segment wrap(ByteBuffer buf) {
        if (buf != frame) {
            frame = buf.order(ByteOrder.LITTLE_ENDIAN);
            view = buf.duplicate();
        }
        base = buf.position();
        return this;
    }

    /**
     * Writes the header of a frame at the wrapped position, around a payload of {@code length} bytes already in
     * place at {@link #payloadOffset} (the sender copies it there straight from its ring), and seals both with the
     * checksum.
     *
     * @return the frame's size in bytes
     */
    int writeHeader(byte kind, int epoch, int seq, int ack, int window, int length) {
        ByteBuffer f = frame;
        int b = base;
        for (int i = 0; i < ETHERTYPE_OFFSET; i++) {
            f.put(b + i, (byte) (i % 6 == 0 ? 0x02 : 0)); // locally administered, unicast
        }
        f.put(b + ETHERTYPE_OFFSET, (byte) (ETHERTYPE >>> 8));
        f.put(b + ETHERTYPE_OFFSET + 1, (byte) ETHERTYPE);
        f.put(b + VERSION_OFFSET, (byte) VERSION);
        f.put(b + KIND_OFFSET, kind);
        f.putShort(b + LENGTH_OFFSET, (short) length);
        f.putInt(b + EPOCH_OFFSET, epoch);
        f.putInt(b + SEQ_OFFSET, seq);
        f.putInt(b + ACK_OFFSET, ack);
        f.putInt(b + WINDOW_OFFSET, window);
        f.putInt(b + CRC_OFFSET, checksum(f, b, length));
        return HEADER + length;
    }

    private int checksum(ByteBuffer f, int b, int length) {
        ByteBuffer v = view;
        crc.reset();
        v.limit(b + CRC_OFFSET).position(b);
        crc.update(v);
        if (length > 0) {
            v.limit(b + HEADER + length).position(b + HEADER);
            crc.update(v);
        }
        v.clear();
        return (int) crc.getValue();
    }

    /** Checks the wrapped frame, whose size is {@code size} bytes, before any of its fields is trusted. */
    Verdict check(int size) {
        ByteBuffer f = frame;
        int b = base;
        if (size < HEADER || size > MAX_FRAME) {
            return Verdict.MALFORMED;
        }
        int etherType = ((f.get(b + ETHERTYPE_OFFSET) & 0xFF) << 8) | (f.get(b + ETHERTYPE_OFFSET + 1) & 0xFF);
        if (etherType != ETHERTYPE || f.get(b + VERSION_OFFSET) != VERSION) {
            return Verdict.MALFORMED;
        }
        byte kind = kind();
        int length = length();
        if (HEADER + length != size || (kind == DATA && length == 0) || (kind == ACK && length != 0)
                || (kind != DATA && kind != ACK)) {
            return Verdict.MALFORMED;
        }
        return checksum(f, b, length) == f.getInt(b + CRC_OFFSET) ? Verdict.OK : Verdict.CORRUPT;
    }

    byte kind() {
        return frame.get(base + KIND_OFFSET);
    }

    int length() {
        return frame.getShort(base + LENGTH_OFFSET) & 0xFFFF;
    }

    int epoch() {
        return frame.getInt(base + EPOCH_OFFSET);
    }

    int seq() {
        return frame.getInt(base + SEQ_OFFSET);
    }

    int ack() {
        return frame.getInt(base + ACK_OFFSET);
    }

    int window() {
        return frame.getInt(base + WINDOW_OFFSET);
    }

    ByteBuffer buffer() {
        return frame;
    }

    /** @return the payload's offset in the wrapped buffer */
    int payloadOffset() {
        return base + HEADER;
    }

    /** @return true when sequence number {@code a} comes before {@code b}, across the wrap at 2^32 */
    static boolean before(int a, int b) {
        return a - b < 0;
    }
}
