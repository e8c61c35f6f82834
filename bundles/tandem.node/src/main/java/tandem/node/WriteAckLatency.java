package tandem.node;

import tandem.api.metrics.Histogram;
import tandem.api.metrics.MetricsSink;
import tandem.api.replication.AckPolicy;

/**
 * Write-to-ack latency per ack policy: from a client write's append to the journal to the round in which its policy
 * holds and its reply may go. The logic thread notes each write's sequence and time in a ring and, each round, takes
 * off every write the gate now releases; nothing is allocated. When more writes wait than the ring holds, the
 * surplus goes unmeasured (counted), rather than the ring growing without bound.
 */
final class WriteAckLatency {

    private static final int CAPACITY = 1 << 16;
    private static final int MASK = CAPACITY - 1;

    private final long[] sequences = new long[CAPACITY];
    private final long[] startedNanos = new long[CAPACITY];
    private long head;
    private long tail;
    private volatile long unmeasured;
    private final Histogram[] byPolicy = new Histogram[AckPolicy.values().length];

    WriteAckLatency() {
        for (int i = 0; i < byPolicy.length; i++) {
            byPolicy[i] = new Histogram(Histogram.LATENCY_SECONDS);
        }
    }

    /** Logic thread: a client write was appended at {@code sequence}. */
    void appended(long sequence, long nowNanos) {
        if (tail - head == CAPACITY) {
            unmeasured++;
            return;
        }
        int i = (int) (tail++ & MASK);
        sequences[i] = sequence;
        startedNanos[i] = nowNanos;
    }

    /** @return whether a write waits to be measured */
    boolean waiting() {
        return tail != head;
    }

    /** Logic thread: every write up to {@code sequence} is released under {@code policy}. */
    void released(long sequence, AckPolicy policy, long nowNanos) {
        Histogram h = byPolicy[policy.ordinal()];
        while (head != tail) {
            int i = (int) (head & MASK);
            if (sequences[i] > sequence) {
                return;
            }
            h.recordNanos(nowNanos - startedNanos[i]);
            head++;
        }
    }

    /** Forgets the writes waiting: they are answered otherwise (refused, or the journal went away). */
    void clear() {
        head = tail;
    }

    void collect(MetricsSink sink) {
        for (AckPolicy p : AckPolicy.values()) {
            sink.histogram("tandem_write_ack_seconds", "Write-to-ack latency: from a write's append to the journal to "
                    + "the moment its ack policy holds", byPolicy[p.ordinal()].snapshot(), "policy", p.label());
        }
        sink.counter("tandem_write_ack_unmeasured_total", "Writes not measured because more waited than the "
                + "latency ring holds", unmeasured);
    }
}
