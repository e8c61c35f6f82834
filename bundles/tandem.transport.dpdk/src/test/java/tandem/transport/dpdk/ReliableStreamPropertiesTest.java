package tandem.transport.dpdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The reliability layer between two streams over a link that drops, duplicates, reorders and corrupts frames: every
 * journal-protocol frame queued on either side arrives exactly once, whole and in order, and the counters account
 * for the faults the link made. Runs on a simulated clock, so a case with seconds of retransmission back-off takes
 * milliseconds.
 */
class ReliableStreamPropertiesTest {

    private static final long TICK = TimeUnit.MICROSECONDS.toNanos(50);
    private static final long HEARTBEAT = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int MAX_FRAME = 256 * 1024;

    @Property(tries = 200)
    void everyFrameArrivesOnceInOrder(@ForAll long seed,
            @ForAll @DoubleRange(min = 0, max = 0.3) double drop,
            @ForAll @DoubleRange(min = 0, max = 0.2) double duplicate,
            @ForAll @DoubleRange(min = 0, max = 0.3) double reorder,
            @ForAll @DoubleRange(min = 0, max = 0.1) double corrupt,
            @ForAll @IntRange(min = 1, max = 120) int frames) {
        LossyLink.Faults faults = new LossyLink.Faults(drop, duplicate, reorder, corrupt);
        Pair pair = new Pair(seed, faults);
        Random random = new Random(seed);
        List<byte[]> sentAb = new ArrayList<>();
        List<byte[]> sentBa = new ArrayList<>();
        for (int i = 0; i < frames; i++) {
            // mostly small frames, some of many segments, as journal batches are
            int size = random.nextInt(10) == 0 ? 1 + random.nextInt(40_000) : 1 + random.nextInt(300);
            byte[] f = new byte[size];
            random.nextBytes(f);
            (random.nextBoolean() ? sentAb : sentBa).add(f);
        }
        pair.run(sentAb, sentBa, TimeUnit.SECONDS.toNanos(600));

        assertThat(pair.receivedAtB).containsExactlyElementsOf(sentAb);
        assertThat(pair.receivedAtA).containsExactlyElementsOf(sentBa);
        if (pair.ab.corrupted + pair.ba.corrupted > 0) {
            assertThat(pair.counters.droppedCorrupt.sum() + pair.counters.droppedMalformed.sum()).isPositive();
        }
        assertThat(pair.a.drained()).isTrue();
        assertThat(pair.b.drained()).isTrue();
    }

    @Property(tries = 10)
    void aCleanLinkNeedsNoRetransmission(@ForAll long seed, @ForAll @IntRange(min = 1, max = 400) int frames) {
        Pair pair = new Pair(seed, LossyLink.Faults.NONE);
        Random random = new Random(seed);
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < frames; i++) {
            byte[] f = new byte[1 + random.nextInt(5000)];
            random.nextBytes(f);
            sent.add(f);
        }
        pair.run(sent, List.of(), TimeUnit.SECONDS.toNanos(60));

        assertThat(pair.receivedAtB).containsExactlyElementsOf(sent);
        assertThat(pair.counters.retransmitted.sum()).isZero();
        assertThat(pair.counters.droppedDuplicate.sum()).isZero();
    }

    @Property(tries = 300)
    void garbageIsDroppedAndCountedNeverDelivered(@ForAll byte[] frame) {
        Counters counters = new Counters();
        List<byte[]> delivered = new ArrayList<>();
        ReliableStream s = new ReliableStream(7, MAX_FRAME, HEARTBEAT, counters, p -> delivered.add(bytes(p)), 0);
        ByteBuffer in = ByteBuffer.allocateDirect(Math.max(1, frame.length));
        in.put(frame).flip();
        s.receive(in, 0, frame.length, TICK, () -> false);
        assertThat(delivered).isEmpty();
        assertThat(counters.droppedMalformed.sum() + counters.droppedCorrupt.sum()).isEqualTo(1);
    }

    @Property(tries = 100)
    void framesOfAnotherLinkOrAcknowledgingTheUnsentAreDropped(@ForAll @IntRange(min = 1, max = 1000) int seq) {
        Counters counters = new Counters();
        List<byte[]> delivered = new ArrayList<>();
        ReliableStream s = new ReliableStream(7, MAX_FRAME, HEARTBEAT, counters, p -> delivered.add(bytes(p)), 0);
        ByteBuffer f = ByteBuffer.allocateDirect(Segment.MAX_FRAME);
        f.put(Segment.HEADER, framed(new byte[] {1}), 0, 5);
        new Segment().wrap(f.position(0)).writeHeader(Segment.DATA, 8, 0, 0, 256, 5);
        s.receive(f, 0, Segment.HEADER + 5, TICK, () -> false);
        assertThat(counters.droppedStale.sum()).as("epoch 8 on a link of epoch 7").isEqualTo(1);
        new Segment().wrap(f.position(0)).writeHeader(Segment.DATA, 7, 0, seq, 256, 5);
        s.receive(f, 0, Segment.HEADER + 5, TICK, () -> false);
        assertThat(counters.droppedBadAck.sum()).as("acknowledges segment %d, none sent", seq).isEqualTo(1);
        new Segment().wrap(f.position(0)).writeHeader(Segment.DATA, 7, ReliableStream.WINDOW + seq, 0, 256, 5);
        s.receive(f, 0, Segment.HEADER + 5, TICK, () -> false);
        assertThat(counters.droppedOutOfWindow.sum()).isEqualTo(1);
        assertThat(delivered).isEmpty();
        new Segment().wrap(f.position(0)).writeHeader(Segment.DATA, 7, 0, 0, 256, 5);
        s.receive(f, 0, Segment.HEADER + 5, TICK, () -> false);
        s.receive(f, 0, Segment.HEADER + 5, TICK, () -> false);
        assertThat(delivered).containsExactly(new byte[] {1});
        assertThat(counters.droppedDuplicate.sum()).isEqualTo(1);
    }

    /** Two streams of one link, A and B, joined by a lossy link in each direction. */
    static final class Pair {
        final Counters counters = new Counters();
        final LossyLink ab;
        final LossyLink ba;
        final ReliableStream a;
        final ReliableStream b;
        final List<byte[]> receivedAtA = new ArrayList<>();
        final List<byte[]> receivedAtB = new ArrayList<>();
        private final ByteBuffer out = ByteBuffer.allocateDirect(64 * 1024);
        private final ByteBuffer in = ByteBuffer.allocateDirect(Segment.MAX_FRAME);
        long now;

        Pair(long seed, LossyLink.Faults faults) {
            ab = new LossyLink(seed, faults, 20 * TICK);
            ba = new LossyLink(seed + 1, faults, 20 * TICK);
            a = new ReliableStream(7, MAX_FRAME, HEARTBEAT, counters, p -> receivedAtA.add(bytes(p)), 0);
            b = new ReliableStream(7, MAX_FRAME, HEARTBEAT, counters, p -> receivedAtB.add(bytes(p)), 0);
        }

        void run(List<byte[]> toB, List<byte[]> toA, long limitNanos) {
            for (byte[] f : toB) {
                a.append(framed(f));
            }
            for (byte[] f : toA) {
                b.append(framed(f));
            }
            while (receivedAtB.size() < toB.size() || receivedAtA.size() < toA.size() || !a.drained()
                    || !b.drained()) {
                assertThat(now).as("simulated time to deliver everything").isLessThan(limitNanos);
                now += TICK;
                step(a, ab);
                step(b, ba);
                deliver(ab, b);
                deliver(ba, a);
            }
            // what is still in flight (late duplicates, corrupted copies) arrives too, and changes nothing
            now = Long.MAX_VALUE / 2;
            deliver(ab, b);
            deliver(ba, a);
        }

        private void step(ReliableStream s, LossyLink link) {
            out.clear();
            s.emit(out, now);
            out.flip();
            link.send(out, now);
        }

        private void deliver(LossyLink link, ReliableStream s) {
            for (byte[] frame : link.due(now)) {
                in.clear();
                in.put(frame).flip();
                s.receive(in, 0, frame.length, now, () -> false);
            }
        }
    }

    static ByteBuffer framed(byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(4 + payload.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(payload.length).put(payload).flip();
        return b;
    }

    static byte[] bytes(ByteBuffer p) {
        byte[] b = new byte[p.remaining()];
        p.duplicate().get(b);
        return b;
    }
}
