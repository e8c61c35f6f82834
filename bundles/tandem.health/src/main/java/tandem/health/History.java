package tandem.health;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import tandem.api.metrics.Histogram;
import tandem.api.metrics.MetricsSink;

/**
 * The last ten minutes, one sample a second, for the status page's charts: write-to-ack latency per ack policy
 * (p50 and p99 of the writes acknowledged in that second), commands and journal entries per second, and each
 * replica's lag. Kept in memory only; a restart of the bundle starts an empty history.
 */
@Component(service = History.class)
public final class History {

    private static final Logger LOG = System.getLogger("tandem.health");
    static final int SAMPLES = 600;
    static final long INTERVAL_MILLIS = 1000;

    /**
     * One second.
     *
     * @param atMillis       when it was taken
     * @param ackSeconds     per ack policy with writes acknowledged in that second: {p50, p99} in seconds
     * @param commandsPerSec commands run per second
     * @param entriesPerSec  journal entries appended per second
     * @param lagEntries     per replica, its lag in entries
     */
    record Sample(long atMillis, Map<String, double[]> ackSeconds, double commandsPerSec, double entriesPerSec,
            Map<String, Long> lagEntries) {
    }

    private final NodeProbe probe;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private final ScheduledExecutorService timer;
    private Capture previous;

    @Activate
    public History(@Reference NodeProbe probe) {
        this.probe = probe;
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tandem-health-history");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(this::sample, INTERVAL_MILLIS, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Deactivate
    void deactivate() {
        timer.shutdownNow();
    }

    /** @return the samples kept, oldest first */
    public synchronized List<Sample> samples() {
        return new ArrayList<>(samples);
    }

    private void sample() {
        try {
            Capture now = new Capture(System.currentTimeMillis());
            probe.collect(now);
            Sample s = previous == null ? null : now.since(previous, probe.lagByReplica());
            previous = now;
            if (s != null) {
                synchronized (this) {
                    samples.addLast(s);
                    while (samples.size() > SAMPLES) {
                        samples.removeFirst();
                    }
                }
            }
        } catch (RuntimeException e) {
            // a part being swapped may throw mid-read: this second goes unsampled, the next is taken as usual
            LOG.log(Level.DEBUG, "health history: a sample failed", e);
        }
    }

    /** The cumulative values a sample is the difference of. */
    static final class Capture implements MetricsSink {
        final long atMillis;
        final Map<String, Histogram.Snapshot> ack = new TreeMap<>();
        double commands;
        double lastSequence = -1;

        Capture(long atMillis) {
            this.atMillis = atMillis;
        }

        @Override
        public void counter(String name, String help, double value, String... labels) {
            if (name.equals("tandem_commands_total")) {
                commands += value;
            }
        }

        @Override
        public void gauge(String name, String help, double value, String... labels) {
            if (name.equals("tandem_journal_last_sequence")) {
                lastSequence = value;
            }
        }

        @Override
        public void histogram(String name, String help, Histogram.Snapshot snapshot, String... labels) {
            if (name.equals("tandem_write_ack_seconds") && labels.length == 2) {
                ack.put(labels[1], snapshot);
            }
        }

        Sample since(Capture before, Map<String, Long> lag) {
            double seconds = Math.max(1e-3, (atMillis - before.atMillis) / 1e3);
            Map<String, double[]> quantiles = new TreeMap<>();
            ack.forEach((policy, snap) -> {
                Histogram.Snapshot earlier = before.ack.get(policy);
                Histogram.Snapshot d = earlier == null ? snap : snap.minus(earlier);
                if (d.count() > 0) {
                    quantiles.put(policy, new double[] {d.quantile(0.5), d.quantile(0.99)});
                }
            });
            // counters restart with their source (a swapped bundle, CONFIG RESETSTAT): a negative rate means that
            double commandsRate = Math.max(0, commands - before.commands) / seconds;
            double entriesRate = lastSequence < 0 || before.lastSequence < 0 ? 0
                    : Math.max(0, lastSequence - before.lastSequence) / seconds;
            return new Sample(atMillis, quantiles, commandsRate, entriesRate, lag);
        }
    }
}
