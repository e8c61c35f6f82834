package tandem.transport.dpdk;

import java.util.concurrent.locks.LockSupport;

/**
 * How a link's I/O thread waits when a round found nothing to do. memif cannot wake a thread (it has no receive
 * interrupts), so the choice is between latency and a core: {@code busy-spin} keeps the round trip in
 * microseconds and one core at 100 %; {@code back-off} costs a few percent of a core idle but adds up to
 * {@code max.park} to the receive side's latency; {@code spin-then-yield} sits between.
 */
enum WaitStrategy {
    BUSY_SPIN("busy-spin"),
    SPIN_THEN_YIELD("spin-then-yield"),
    BACK_OFF("back-off");

    private static final int SPINS = 200;
    private static final int YIELDS = 20;
    private static final long MIN_PARK_NANOS = 1_000;

    final String label;

    WaitStrategy(String label) {
        this.label = label;
    }

    static WaitStrategy of(String label) {
        for (WaitStrategy w : values()) {
            if (w.label.equals(label)) {
                return w;
            }
        }
        throw new IllegalArgumentException("must be busy-spin, spin-then-yield or back-off");
    }

    /** The idle state of one thread; {@link #reset} after every round that did work. */
    static final class Idle {
        private final WaitStrategy strategy;
        private final long maxParkNanos;
        private int idleRounds;
        private long parkNanos = MIN_PARK_NANOS;

        Idle(WaitStrategy strategy, long maxParkNanos) {
            this.strategy = strategy;
            this.maxParkNanos = maxParkNanos;
        }

        void reset() {
            idleRounds = 0;
            parkNanos = MIN_PARK_NANOS;
        }

        /** @return true when the thread is about to park, so that a sender knows to unpark it */
        boolean willPark() {
            return strategy == BACK_OFF && idleRounds >= SPINS + YIELDS;
        }

        void idle() {
            int n = idleRounds++;
            switch (strategy) {
                case BUSY_SPIN -> Thread.onSpinWait();
                case SPIN_THEN_YIELD -> {
                    if (n < SPINS) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield();
                    }
                }
                case BACK_OFF -> {
                    if (n < SPINS) {
                        Thread.onSpinWait();
                    } else if (n < SPINS + YIELDS) {
                        Thread.yield();
                    } else {
                        LockSupport.parkNanos(parkNanos);
                        parkNanos = Math.min(parkNanos * 2, maxParkNanos);
                    }
                }
            }
        }
    }
}
