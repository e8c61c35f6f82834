package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** "Now" for a new entry: the wall clock, never before the last entry's timestamp. */
@Timeout(10)
class EntryClockTest {

    @Test
    void timestampsNeverGoBackwards() {
        EntryClock clock = new EntryClock();
        long previous = clock.next();
        for (int i = 0; i < 10_000; i++) {
            long next = clock.next();
            assertThat(next).isGreaterThanOrEqualTo(previous);
            previous = next;
        }
    }

    @Test
    void aJournalAheadOfTheWallClockHoldsTheClockAtItsLastTimestamp() {
        EntryClock clock = new EntryClock();
        long future = clock.next() + 3_600_000_000_000L; // a lineage whose last entry is an hour ahead of this clock
        clock.notBefore(future);
        assertThat(clock.next()).isEqualTo(future);
        clock.notBefore(future - 1); // an earlier one changes nothing
        assertThat(clock.next()).isEqualTo(future);
    }
}
