package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * Ack, replica to primary: the two tracks of the replica's progress.
 *
 * <pre>
 *  0     1                  9                  17
 *  +-----+------------------+------------------+
 *  | tag |  acked_sequence  |in_memory_sequence|
 *  |0x02 |       u64        |       u64        |
 *  +-----+------------------+------------------+
 * </pre>
 *
 * {@code acked_sequence}: the highest primary sequence the replica has fsynced; {@code in_memory_sequence}: the
 * highest it has accepted into its pipeline. A sender keeps acked &lt;= in_memory; the codec does not enforce it,
 * so that a receiver can report the violation itself.
 */
public final class Ack {

    public static final int LENGTH = 17;
    public static final int ACKED_SEQUENCE_OFFSET = 1;
    public static final int IN_MEMORY_SEQUENCE_OFFSET = 9;

    private Ack() {
    }

    public static void write(ByteBuffer dst, long ackedSequence, long inMemorySequence) {
        int p = Wire.begin(dst, LENGTH, Frames.TAG_ACK);
        Wire.putLong(dst, p + ACKED_SEQUENCE_OFFSET, ackedSequence);
        Wire.putLong(dst, p + IN_MEMORY_SEQUENCE_OFFSET, inMemorySequence);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(long ackedSequence, long inMemorySequence) {
        return Wire.frame(LENGTH, b -> write(b, ackedSequence, inMemorySequence));
    }

    /** @throws FrameException when {@code payload} is not an Ack of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_ACK, LENGTH);
    }

    public static long ackedSequence(ByteBuffer payload) {
        return Wire.getLong(payload, ACKED_SEQUENCE_OFFSET);
    }

    public static long inMemorySequence(ByteBuffer payload) {
        return Wire.getLong(payload, IN_MEMORY_SEQUENCE_OFFSET);
    }
}
