package tandem.api.metrics;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * A distribution over fixed buckets, safe to record from any number of threads and to read while they record.
 *
 * <p>Written here rather than taken from a metrics library so that providers share one tiny, dependency-free
 * structure and the contract names no library: its buckets are Prometheus' classic histogram buckets, so what is
 * recorded is what is scraped, with no conversion. Recording is a search over the bounds and two atomic additions;
 * nothing is allocated.
 */
public final class Histogram {

    /** Latency bounds in seconds, 10 µs to 10 s in a 1-2-5 series. */
    public static final double[] LATENCY_SECONDS = series(1e-5, 10);
    /** Size bounds (entries, bytes), 1 to 1,000,000 in a 1-2-5 series. */
    public static final double[] SIZES = series(1, 1e6);

    private final double[] bounds;
    /** One count per bound and a last one for what exceeds every bound. */
    private final AtomicLongArray counts;
    private final DoubleAdder sum = new DoubleAdder();

    /** @param upperBounds the buckets' inclusive upper bounds, ascending */
    public Histogram(double[] upperBounds) {
        for (int i = 1; i < upperBounds.length; i++) {
            if (!(upperBounds[i] > upperBounds[i - 1])) {
                throw new IllegalArgumentException("bounds must ascend: " + Arrays.toString(upperBounds));
            }
        }
        bounds = upperBounds.clone();
        counts = new AtomicLongArray(bounds.length + 1);
    }

    /** Records one observation. */
    public void record(double value) {
        int i = Arrays.binarySearch(bounds, value);
        counts.incrementAndGet(i >= 0 ? i : -i - 1);
        sum.add(value);
    }

    /** Records a duration given in nanoseconds, in seconds. */
    public void recordNanos(long nanos) {
        record(nanos / 1e9);
    }

    /** @return the counts now; taken bucket by bucket, so a concurrent record may show in the sum and not a count */
    public Snapshot snapshot() {
        long[] c = new long[counts.length()];
        for (int i = 0; i < c.length; i++) {
            c[i] = counts.get(i);
        }
        return new Snapshot(bounds.clone(), c, sum.sum());
    }

    /**
     * A histogram's counts at one moment.
     *
     * @param upperBounds the buckets' inclusive upper bounds, ascending
     * @param counts      per bucket (not cumulative), one more than the bounds: the last counts what exceeds them all
     * @param sum         the sum of every observation
     */
    public record Snapshot(double[] upperBounds, long[] counts, double sum) {
        /** @return the number of observations */
        public long count() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }

        /** @return what was recorded between {@code earlier} and this snapshot (same bounds) */
        public Snapshot minus(Snapshot earlier) {
            long[] c = counts.clone();
            for (int i = 0; i < c.length; i++) {
                c[i] -= earlier.counts[i];
            }
            return new Snapshot(upperBounds, c, sum - earlier.sum);
        }

        /**
         * @return the {@code q}-quantile (0..1), interpolated linearly within its bucket as Prometheus'
         *         {@code histogram_quantile} does; NaN without observations; the largest bound when it falls beyond
         */
        public double quantile(double q) {
            long total = count();
            if (total == 0) {
                return Double.NaN;
            }
            double rank = q * total;
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                if (seen + counts[i] >= rank && counts[i] > 0) {
                    if (i == upperBounds.length) {
                        return upperBounds[upperBounds.length - 1];
                    }
                    double lower = i == 0 ? 0 : upperBounds[i - 1];
                    return lower + (upperBounds[i] - lower) * (rank - seen) / counts[i];
                }
                seen += counts[i];
            }
            return upperBounds[upperBounds.length - 1];
        }
    }

    private static double[] series(double from, double to) {
        double[] steps = {1, 2, 5};
        java.util.List<Double> out = new java.util.ArrayList<>();
        for (double decade = from; decade <= to; decade *= 10) {
            for (double s : steps) {
                double v = Double.parseDouble(String.format(java.util.Locale.ROOT, "%.10g", decade * s));
                if (v <= to * 1.000001) {
                    out.add(v);
                }
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
