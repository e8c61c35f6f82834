package tandem.replication;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The replication ack round trip of one replica: from the moment a live batch is handed to the transport to the
 * moment the replica's acknowledgement of it (its in-memory sequence, the first ack a write can wait for) arrives.
 * It is the part of a replicated write's latency that the transport decides, measured where it happens rather than
 * inferred from client latencies.
 *
 * <p>Batches in flight are kept in a bounded ring (a batch beyond it is simply not measured); {@link #interval}
 * returns what was measured since it was last called, so that two reads bracket a run.
 */
final class AckRoundTrip {

    private static final int IN_FLIGHT = 1024;
    private static final long HIGHEST_NANOS = 60_000_000_000L;

    private final long[] lastSequence = new long[IN_FLIGHT];
    private final long[] sentNanos = new long[IN_FLIGHT];
    private final Recorder recorder = new Recorder(HIGHEST_NANOS, 2);
    private long head;
    private long tail;

    /** A batch ending at {@code last} went to the transport now. */
    synchronized void sent(long last) {
        if (tail - head < IN_FLIGHT) {
            int i = (int) (tail++ % IN_FLIGHT);
            lastSequence[i] = last;
            sentNanos[i] = System.nanoTime();
        }
    }

    /** The replica acknowledged everything up to {@code inMemory}. */
    synchronized void acknowledged(long inMemory) {
        long now = System.nanoTime();
        while (head < tail) {
            int i = (int) (head % IN_FLIGHT);
            if (lastSequence[i] > inMemory) {
                break;
            }
            recorder.recordValue(Math.min(HIGHEST_NANOS, Math.max(0, now - sentNanos[i])));
            head++;
        }
    }

    /** @return the round trips measured since the last call */
    Histogram interval() {
        return recorder.getIntervalHistogram();
    }
}
