package tandem.node;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waiting in the node core's tests and in those that use its test-jar: a condition polled up to a deadline. */
public final class Waiting {

    /** The longest a test waits for the node core. */
    public static final Duration DEADLINE = Duration.ofSeconds(10);

    private Waiting() {
    }

    /** Polls {@code condition} every millisecond until it holds; fails after {@link #DEADLINE}. */
    public static void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000L); // poll, bounded by the deadline
        }
    }
}
