package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * Heartbeat, primary to replica, while the stream is idle: the primary's sent high-water for this replica and the
 * ack policy in force, so that a replica learns a policy change without a reconnect.
 *
 * <pre>
 *  0     1               9   10
 *  +-----+---------------+---+
 *  | tag |   sequence    |ack|
 *  |0x30 |      u64      |pol|
 *  |     |               |u8 |
 *  +-----+---------------+---+
 * </pre>
 */
public final class Heartbeat {

    public static final int LENGTH = 10;
    public static final int SEQUENCE_OFFSET = 1;
    public static final int ACK_POLICY_OFFSET = 9;

    private Heartbeat() {
    }

    /** @param ackPolicy the policy's wire byte ({@code AckPolicy.wire()}) */
    public static void write(ByteBuffer dst, long sequence, byte ackPolicy) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_HEARTBEAT);
        Wire.putLong(dst, p + SEQUENCE_OFFSET, sequence);
        dst.put(p + ACK_POLICY_OFFSET, ackPolicy);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(long sequence, byte ackPolicy) {
        return Wire.frame(LENGTH, b -> write(b, sequence, ackPolicy));
    }

    /** @throws FrameException when {@code payload} is not a Heartbeat of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_HEARTBEAT, LENGTH);
    }

    public static long sequence(ByteBuffer payload) {
        return Wire.getLong(payload, SEQUENCE_OFFSET);
    }

    /** @return the policy's wire byte, as {@code AckPolicy.fromWire} takes it */
    public static byte ackPolicy(ByteBuffer payload) {
        return Wire.getByte(payload, ACK_POLICY_OFFSET);
    }
}
