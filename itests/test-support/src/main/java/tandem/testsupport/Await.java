package tandem.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Waits for a condition with a deadline, never with a fixed sleep: the condition is polled (first at once, then every
 * poll interval) on the calling thread until it holds; past the deadline the wait fails with an {@link AssertionError}
 * that names what was awaited. An exception the condition throws ends the wait at once. Built on Awaitility, with
 * its defaults that do not suit these tests turned off: it polls on the caller's thread (a condition may use the
 * caller's connection or context) and does not fail on other threads' uncaught exceptions (the tests watch their
 * own threads).
 */
public final class Await {

    /** How often a condition is polled unless a caller says otherwise. */
    public static final Duration POLL = Duration.ofMillis(50);

    private Await() {
    }

    /**
     * Polls {@code condition} every {@link #POLL} until it holds.
     *
     * @param what     what is awaited, for the failure: "timed out after {@code deadline} waiting until {@code what}"
     * @param deadline how long to wait at most
     * @throws AssertionError when {@code deadline} passed first
     */
    public static void until(String what, Duration deadline, BooleanSupplier condition) {
        until(what, deadline, POLL, condition);
    }

    /** {@link #until(String, Duration, BooleanSupplier)}, polling every {@code poll}. */
    public static void until(String what, Duration deadline, Duration poll, BooleanSupplier condition) {
        try {
            Awaitility.await(what)
                    .atMost(deadline)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(poll)
                    .pollInSameThread()
                    .dontCatchUncaughtExceptions()
                    .until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("timed out after " + deadline + " waiting until " + what, e);
        }
    }
}
