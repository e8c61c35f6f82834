package tandem.transport.dpdk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * One direction of a simulated link that drops, duplicates, delays (and so reorders) and corrupts frames with the
 * given probabilities, on a simulated clock; seeded, so a failing case replays.
 */
final class LossyLink {

    record Faults(double drop, double duplicate, double reorder, double corrupt) {
        static final Faults NONE = new Faults(0, 0, 0, 0);
    }

    private record InFlight(long due, long order, byte[] frame) {
    }

    private final Random random;
    private final Faults faults;
    private final long latencyNanos;
    private final PriorityQueue<InFlight> queue = new PriorityQueue<>(
            Comparator.comparingLong(InFlight::due).thenComparingLong(InFlight::order));
    private long order;
    int dropped;
    int duplicated;
    int corrupted;

    LossyLink(long seed, Faults faults, long latencyNanos) {
        this.random = new Random(seed);
        this.faults = faults;
        this.latencyNanos = latencyNanos;
    }

    /** Takes the records {@code [u16 LE size][frame]} between {@code records}' position and limit. */
    void send(ByteBuffer records, long now) {
        records.order(ByteOrder.LITTLE_ENDIAN);
        while (records.remaining() >= 2) {
            int size = records.getShort() & 0xFFFF;
            byte[] frame = new byte[size];
            records.get(frame);
            if (random.nextDouble() < faults.drop()) {
                dropped++;
                continue;
            }
            int copies = random.nextDouble() < faults.duplicate() ? 2 : 1;
            duplicated += copies - 1;
            for (int i = 0; i < copies; i++) {
                byte[] f = i == 0 ? frame : frame.clone();
                if (random.nextDouble() < faults.corrupt()) {
                    f[random.nextInt(f.length)] ^= (byte) (1 << random.nextInt(8));
                    corrupted++;
                }
                long delay = latencyNanos;
                if (random.nextDouble() < faults.reorder()) {
                    delay += random.nextInt(20) * latencyNanos;
                }
                queue.add(new InFlight(now + delay, order++, f));
            }
        }
    }

    /** @return the frames due by {@code now}, in delivery order */
    List<byte[]> due(long now) {
        List<byte[]> out = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().due() <= now) {
            out.add(queue.poll().frame());
        }
        return out;
    }
}
