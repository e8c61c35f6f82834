package tandem.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.osgi.util.converter.Converters;

import tandem.api.server.WriteAdmission;

/** The fence against a replica view the test sets: arming, fencing, lifting, and its configuration. */
@Timeout(10)
class QuorumFenceTest {

    /** Streaming replicas and the age of the freshest acknowledgement, as the test says. */
    private static final class View implements WriteAdmission.Replicas {
        int streaming;
        long freshestAckAgeNanos = Long.MAX_VALUE;

        @Override
        public int good(long maxLagNanos) {
            throw new UnsupportedOperationException("the fence reads liveness, not lag");
        }

        @Override
        public int streaming() {
            return streaming;
        }

        @Override
        public long sinceLastAckNanos() {
            return freshestAckAgeNanos;
        }

        @Override
        public Map<String, Long> ackAgesMillis() {
            return streaming == 0 ? Map.of() : Map.of("journal r1@127.0.0.1:1",
                    TimeUnit.NANOSECONDS.toMillis(freshestAckAgeNanos));
        }
    }

    private static FencingConfig config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(FencingConfig.class);
    }

    private final View view = new View();
    private final QuorumFence fence = new QuorumFence(config(Map.of("freshness.window.ms", 1000L)));

    @Test
    void anUnarmedFenceAdmitsEveryWriteEvenWithoutReplicas() {
        assertThat(fence.admit(view)).isNull();
        assertThat(fence.status().armedAtMillis()).isZero();
    }

    @Test
    void armedByAStreamingReplicaItRefusesOnceNoReplicaAcknowledgedWithinTheWindowAndLiftsWhenOneDoes() {
        view.streaming = 1;
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(200);
        assertThat(fence.admit(view)).isNull();
        assertThat(fence.status().armedAtMillis()).isPositive();

        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(1500); // the replica went silent
        assertThat(fence.admit(view)).isEqualTo("CLUSTERDOWN quorum lost, writes rejected");
        assertThat(fence.status().fenced()).isTrue();
        assertThat(fence.status().ackAgesMillis()).containsEntry("journal r1@127.0.0.1:1", 1500L);

        view.streaming = 0; // and left, its last ack older still: armed stays armed
        assertThat(fence.admit(view)).isEqualTo("CLUSTERDOWN quorum lost, writes rejected");
        assertThat(fence.status().refusedWrites()).isEqualTo(2);

        view.streaming = 1;
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(10); // back
        assertThat(fence.status().fenced()).as("status sees it before the next write").isFalse();
        assertThat(fence.admit(view)).isNull();
    }

    @Test
    void aReplicaThatReconnectsWithinTheWindowKeepsWritesGoing() {
        view.streaming = 1;
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(5);
        assertThat(fence.admit(view)).isNull();
        view.streaming = 0; // gone a moment ago (a bundle update): its last ack is still within the window
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(400);
        assertThat(fence.admit(view)).isNull();
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(1001); // and not back in time
        assertThat(fence.admit(view)).isEqualTo("CLUSTERDOWN quorum lost, writes rejected");
    }

    @Test
    void aNodeCoreThatRestartsHandsAViewWithoutTheReplicasLastAcksWhichStillCountWithinTheWindow() {
        view.streaming = 1;
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(5);
        assertThat(fence.admit(view)).isNull();
        View restarted = new View(); // the node core's bundle updated: its gate has seen no replica yet
        assertThat(fence.admit(restarted)).as("acknowledged a moment ago: writes go on").isNull();
        assertThat(fence.status().fenced()).isFalse();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (fence.admit(restarted) == null) { // and the replicas do not come back within the window
            assertThat(System.nanoTime() - deadline).as("fenced once the window passed").isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        assertThat(fence.status().fenced()).isTrue();
        restarted.streaming = 1;
        restarted.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(3); // back
        assertThat(fence.admit(restarted)).isNull();
    }

    @Test
    void withSelfFenceOffLosingEveryReplicaRefusesNothing() {
        fence.modified(config(Map.of("self.fence.on.replica.loss", false, "freshness.window.ms", 1000L)));
        view.streaming = 1;
        view.freshestAckAgeNanos = TimeUnit.SECONDS.toNanos(60);
        assertThat(fence.admit(view)).isNull();
        assertThat(fence.status().selfFence()).isFalse();
    }

    @Test
    void aWindowOutOfRangeIsRefusedNamingThePropertyAndTheRunningOneStays() {
        assertThatThrownBy(() -> new QuorumFence(config(Map.of("freshness.window.ms", 50L))))
                .hasMessage("tandem.fencing: freshness.window.ms=50 is invalid: must be between 100 and 600000");
        fence.modified(config(Map.of("freshness.window.ms", 700_000L)));
        assertThat(fence.status().windowMillis()).isEqualTo(1000);
    }

    @Test
    void configSetOverridesTheRunningFenceWithinTheSameBoundsAndChangesNothingWhenRefused() {
        view.streaming = 1;
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(1500);
        assertThat(fence.admit(view)).isEqualTo("CLUSTERDOWN quorum lost, writes rejected");
        fence.override(null, 2000L); // a wider window: the same silence is within it
        assertThat(fence.admit(view)).isNull();
        assertThatThrownBy(() -> fence.override(false, 99L)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("freshness.window.ms=99");
        assertThat(fence.status().selfFence()).as("nothing changed").isTrue();
        assertThat(fence.status().windowMillis()).isEqualTo(2000);
        fence.override(false, null);
        view.freshestAckAgeNanos = TimeUnit.MILLISECONDS.toNanos(60_000);
        assertThat(fence.admit(view)).isNull();
    }
}
