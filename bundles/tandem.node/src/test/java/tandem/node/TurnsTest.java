package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The pending requests in the order they were sequenced, and the writes a journal change lost. */
@Timeout(10)
class TurnsTest {

    private final Turns turns = new Turns();

    @Test
    void theFirstPendingWriteIsWhereAReplayStops() {
        assertThat(turns.firstWriteSequence()).isEqualTo(Long.MAX_VALUE);
        turns.add(Pending.of(null, Pending.Kind.READ, null));
        turns.add(Pending.tick(7, 1));
        turns.add(Pending.tick(8, 1));
        assertThat(turns.firstWriteSequence()).isEqualTo(7);
        assertThat(turns.poll().kind()).isEqualTo(Pending.Kind.READ);
        assertThat(turns.poll().sequence()).isEqualTo(7);
        assertThat(turns.firstWriteSequence()).isEqualTo(8);
    }

    @Test
    void writesBeyondANewJournalsEndAreLostAndEachIsToldOnce() {
        Pending kept = Pending.tick(5, 1);
        Pending lost = Pending.tick(6, 1);
        Pending read = Pending.of(null, Pending.Kind.READ, null);
        turns.add(kept);
        turns.add(read);
        turns.add(lost);
        assertThat(turns.loseAfter(5)).isEqualTo(1);
        assertThat(turns.wasLost(kept)).isFalse();
        assertThat(turns.wasLost(read)).isFalse();
        assertThat(turns.wasLost(lost)).isTrue();
        assertThat(turns.wasLost(lost)).as("told once").isFalse();
    }
}
