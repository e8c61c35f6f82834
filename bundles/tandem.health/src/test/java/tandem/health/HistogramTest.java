package tandem.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.metrics.Histogram;

/** The API's fixed-bucket histogram, as health reads it (its quantiles feed the status page). */
@Timeout(10)
class HistogramTest {

    @Test
    void theSeriesAreOneTwoFiveFromTheirLowestToTheirHighestBound() {
        assertThat(Histogram.LATENCY_SECONDS).startsWith(1e-5, 2e-5, 5e-5, 1e-4).endsWith(5, 10);
        assertThat(Histogram.SIZES).startsWith(1, 2, 5, 10).endsWith(1e6);
    }

    @Test
    void boundsAreInclusiveAndBeyondTheLastGoesToTheOverflowBucket() {
        Histogram h = new Histogram(new double[] {1, 2});
        h.record(1);
        h.record(1.5);
        h.record(2);
        h.record(3);
        Histogram.Snapshot s = h.snapshot();
        assertThat(s.counts()).containsExactly(1, 2, 1);
        assertThat(s.count()).isEqualTo(4);
        assertThat(s.sum()).isEqualTo(7.5);
        assertThatThrownBy(() -> new Histogram(new double[] {2, 1})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void quantilesInterpolateWithinTheirBucketAndDifferencesSpanAnInterval() {
        Histogram h = new Histogram(new double[] {10, 20, 30});
        Histogram.Snapshot empty = h.snapshot();
        assertThat(empty.quantile(0.5)).isNaN();
        for (int i = 0; i < 50; i++) {
            h.record(5);
        }
        for (int i = 0; i < 50; i++) {
            h.record(15);
        }
        Histogram.Snapshot s = h.snapshot();
        assertThat(s.quantile(0.5)).isCloseTo(10, offset(1e-9));
        assertThat(s.quantile(0.99)).isCloseTo(19.8, offset(1e-9));
        h.record(100);
        Histogram.Snapshot later = h.snapshot();
        assertThat(later.minus(s).count()).isEqualTo(1);
        assertThat(later.minus(s).quantile(0.5)).as("beyond the last bound: that bound").isEqualTo(30);
    }

    @Test
    void recordingFromManyThreadsLosesNothing() throws InterruptedException {
        Histogram h = new Histogram(Histogram.LATENCY_SECONDS);
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    h.recordNanos(i * 1000L);
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(h.snapshot().count()).isEqualTo(40_000);
    }
}
