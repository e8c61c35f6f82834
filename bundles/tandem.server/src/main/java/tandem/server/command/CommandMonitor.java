package tandem.server.command;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

/**
 * What the logic thread spends its time on, as Redis reports it: per-command statistics ({@code INFO
 * commandstats}, {@code latencystats}), error replies by code ({@code INFO errorstats}), the slow log
 * ({@code SLOWLOG}), latency events ({@code LATENCY}), and a stall watchdog that logs any single piece of work that
 * holds the logic thread longer than {@code stall.warn.ms}, while it still runs.
 *
 * <p>Statistics are written by the logic thread only and read by whoever renders them (values may be a moment
 * stale); the watchdog reads two volatile fields. Nothing here allocates per command in the steady state but a
 * slow-log entry, which only a slow command makes.
 */
public final class CommandMonitor implements AutoCloseable {

    private static final Logger LOG = System.getLogger("tandem.server");

    /** Redis' {@code SLOWLOG_ENTRY_MAX_ARGC} and {@code SLOWLOG_ENTRY_MAX_STRING}. */
    static final int SLOWLOG_MAX_ARGC = 32;
    static final int SLOWLOG_MAX_STRING = 128;
    /** Redis' {@code LATENCY_TS_LEN}: samples kept per latency event, one per second at most. */
    static final int LATENCY_SAMPLES = 160;
    /** Distinct error codes kept; Tandem's codes are a fixed, small set, this only bounds the map. */
    private static final int ERROR_CODES = 128;

    /** One command's counters, Redis' {@code cmdstat_*} fields, and its latency histogram in nanoseconds. */
    static final class Stat {
        long calls;
        long micros;
        long rejected;
        long failed;
        /** Redis' {@code LATENCY_HISTOGRAM_MIN_VALUE} .. {@code MAX_VALUE} (1 ns .. 1 s), 2 significant digits. */
        final Histogram latency = new Histogram(1, 1_000_000_000L, 2);
    }

    /** A slow-log entry, as {@code SLOWLOG GET} shows it. */
    record SlowEntry(long id, long timeSeconds, long micros, List<byte[]> args, String peer, String name) {
    }

    /** A latency event's samples: {time seconds, latency ms}, the latest last; and its maximum. */
    static final class LatencySeries {
        final ArrayDeque<long[]> samples = new ArrayDeque<>();
        long max;
    }

    private final Map<String, Stat> stats = new ConcurrentHashMap<>();
    private final Map<String, long[]> errors = new TreeMap<>(); // by code, in byte order as Redis' rax
    private volatile long totalErrorReplies;
    private final ArrayDeque<SlowEntry> slowlog = new ArrayDeque<>();
    private long slowlogNextId;
    private final Map<String, LatencySeries> latencyEvents = new TreeMap<>();

    private volatile long slowlogSlowerThanMicros = 10_000;
    private volatile int slowlogMaxLen = 128;
    private volatile long latencyThresholdMillis;
    private volatile boolean latencyTracking = true;
    private volatile double[] percentiles = {50, 99, 99.9};
    private volatile long stallWarnNanos = TimeUnit.SECONDS.toNanos(1);
    private volatile long logicThreadId = -1;

    // the stall watchdog: what the logic thread works on since when (0: idle)
    private volatile long busySince;
    private volatile Object busyWith;
    private volatile boolean stallReported;
    private final Thread watchdog;
    private volatile boolean running = true;

    public CommandMonitor() {
        watchdog = new Thread(this::watch, "tandem-stall-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    // ---- settings ---------------------------------------------------------------------------------------------

    /** Redis' {@code slowlog-log-slower-than} (µs; negative: off, 0: every command) and {@code slowlog-max-len}. */
    public void slowlog(long slowerThanMicros, int maxLen) {
        slowlogSlowerThanMicros = slowerThanMicros;
        slowlogMaxLen = maxLen;
        synchronized (slowlog) {
            while (slowlog.size() > maxLen) {
                slowlog.removeLast();
            }
        }
    }

    /** Redis' {@code latency-monitor-threshold} (ms; 0: off). */
    public void latencyThreshold(long millis) {
        latencyThresholdMillis = millis;
    }

    /** Redis' {@code latency-tracking} and {@code latency-tracking-info-percentiles}. */
    public void latencyTracking(boolean enabled, double[] infoPercentiles) {
        latencyTracking = enabled;
        percentiles = infoPercentiles.clone();
    }

    /** How long one piece of work may hold the logic thread before the watchdog logs it (0: never). */
    public void stallWarn(long millis) {
        stallWarnNanos = TimeUnit.MILLISECONDS.toNanos(millis);
        LockSupport.unpark(watchdog);
    }

    // ---- what the logic thread reports ------------------------------------------------------------------------

    /**
     * The logic thread starts on {@code what}: a request ({@code Command}, or its arguments), a journal entry's payload
     * ({@code byte[]}) or a description ({@code String}); the watchdog names it only if it stalls.
     */
    public void busy(Object what) {
        busyWith = what;
        busySince = System.nanoTime();
    }

    /** The logic thread finished what {@link #busy} named; a stall the watchdog reported gets its full length. */
    public void idle() {
        long since = busySince;
        busySince = 0;
        if (stallReported) {
            stallReported = false;
            LOG.log(Level.WARNING, "stall watchdog: {0} held the logic thread for {1} ms in all", describe(busyWith),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
        }
    }

    /**
     * A command ran.
     *
     * @param name        the command's full name ({@code get}, {@code client|list}), lower case
     * @param fast        whether it carries Redis' {@code fast} flag (its latency event is {@code fast-command})
     * @param args        the request as received (for the slow log); null for none
     * @param durationNs  how long it held the logic thread
     * @param failed      whether it answered an error
     */
    public void executed(String name, boolean fast, byte[][] args, ClientSession client, long durationNs,
            boolean failed) {
        Stat s = stats.computeIfAbsent(name, n -> new Stat());
        long micros = durationNs / 1000;
        s.calls++;
        s.micros += micros;
        if (failed) {
            s.failed++;
        }
        if (latencyTracking) {
            s.latency.recordValue(Math.max(1, Math.min(durationNs, 1_000_000_000L)));
        }
        long threshold = latencyThresholdMillis;
        long millis = durationNs / 1_000_000;
        if (threshold > 0 && millis >= threshold) {
            latencySample(fast ? "fast-command" : "command", millis);
        }
        long slower = slowlogSlowerThanMicros;
        if (slower >= 0 && micros >= slower && args != null) {
            slowlogPush(args, client, micros);
        }
    }

    /** A command ran inside a transaction: counted as a call, its time is EXEC's. */
    public void counted(String name) {
        stats.computeIfAbsent(name, n -> new Stat()).calls++;
    }

    /** A command was refused before it ran (arity, authentication, role, fence): Redis' {@code rejected_calls}. */
    public void rejected(String name) {
        stats.computeIfAbsent(name, n -> new Stat()).rejected++;
    }

    /** An error reply was written; counted by its code (the text up to the first space, within 32 bytes). */
    public void error(String text) {
        totalErrorReplies++;
        int space = text.indexOf(' ');
        String code = space > 0 && space < 32 ? text.substring(0, space) : "ERR";
        synchronized (errors) {
            long[] n = errors.get(code);
            if (n == null) {
                if (errors.size() >= ERROR_CODES) {
                    return;
                }
                n = new long[1];
                errors.put(code, n);
            }
            n[0]++;
        }
    }

    // ---- CONFIG RESETSTAT, SLOWLOG, LATENCY -------------------------------------------------------------------

    /** {@code CONFIG RESETSTAT}: command, error and latency statistics start over (not the slow log). */
    public void resetStats() {
        stats.clear();
        synchronized (errors) {
            errors.clear();
        }
        totalErrorReplies = 0;
    }

    public long totalErrorReplies() {
        return totalErrorReplies;
    }

    /** @return every command call counted since the start or the last {@code CONFIG RESETSTAT} */
    public long totalCalls() {
        long n = 0;
        for (Stat s : stats.values()) {
            n += s.calls;
        }
        return n;
    }

    /** The thread that runs every command, whose CPU time {@code INFO cpu} reports as the main thread's. */
    public void logicThread(Thread thread) {
        logicThreadId = thread.getId();
    }

    /** @return {CPU, user} nanoseconds of the logic thread so far; zeros when the JVM cannot tell */
    long[] logicThreadCpuNanos() {
        long id = logicThreadId;
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        if (id < 0 || !threads.isThreadCpuTimeSupported()) {
            return new long[2];
        }
        return new long[] {Math.max(0, threads.getThreadCpuTime(id)), Math.max(0, threads.getThreadUserTime(id))};
    }

    /** @return up to {@code count} slow-log entries, newest first */
    List<SlowEntry> slowlog(long count) {
        synchronized (slowlog) {
            List<SlowEntry> out = new ArrayList<>();
            Iterator<SlowEntry> it = slowlog.iterator();
            while (out.size() < count && it.hasNext()) {
                out.add(it.next());
            }
            return out;
        }
    }

    int slowlogLength() {
        synchronized (slowlog) {
            return slowlog.size();
        }
    }

    void slowlogReset() {
        synchronized (slowlog) {
            slowlog.clear();
        }
    }

    /** @return every latency event: name → its series (a copy) */
    Map<String, LatencySeries> latencyEvents() {
        synchronized (latencyEvents) {
            Map<String, LatencySeries> copy = new TreeMap<>();
            latencyEvents.forEach((k, v) -> {
                LatencySeries c = new LatencySeries();
                v.samples.forEach(sample -> c.samples.add(sample.clone()));
                c.max = v.max;
                copy.put(k, c);
            });
            return copy;
        }
    }

    /** @return how many of the named events (every event with none) were reset */
    int latencyReset(List<String> events) {
        synchronized (latencyEvents) {
            if (events.isEmpty()) {
                int n = latencyEvents.size();
                latencyEvents.clear();
                return n;
            }
            int n = 0;
            for (String e : events) {
                if (latencyEvents.remove(e) != null) {
                    n++;
                }
            }
            return n;
        }
    }

    // ---- INFO -------------------------------------------------------------------------------------------------

    /** The {@code cmdstat_*} lines of {@code INFO commandstats}. */
    public void commandstats(StringBuilder sb) {
        for (Map.Entry<String, Stat> e : new TreeMap<>(stats).entrySet()) {
            Stat s = e.getValue();
            sb.append("cmdstat_").append(safe(e.getKey())).append(":calls=").append(s.calls).append(",usec=")
                    .append(s.micros).append(",usec_per_call=")
                    .append(String.format(Locale.ROOT, "%.2f", s.calls == 0 ? 0f : (float) s.micros / s.calls))
                    .append(",rejected_calls=").append(s.rejected).append(",failed_calls=").append(s.failed)
                    .append("\r\n");
        }
    }

    /**
     * The command statistics as metrics: calls, failed and rejected calls and time per command, error replies per
     * code. {@code CONFIG RESETSTAT} resets them, which Prometheus reads as a counter reset.
     */
    public void collect(tandem.api.metrics.MetricsSink sink) {
        for (Map.Entry<String, Stat> e : new TreeMap<>(stats).entrySet()) {
            Stat s = e.getValue();
            String name = e.getKey();
            sink.counter("tandem_commands_total", "Commands run, per command", s.calls, "command", name);
            sink.counter("tandem_command_failed_total", "Commands that answered an error, per command", s.failed,
                    "command", name);
            sink.counter("tandem_command_rejected_total", "Commands refused before they ran (arity, "
                    + "authentication, role, fence), per command", s.rejected, "command", name);
            sink.counter("tandem_command_seconds_total", "Time commands held the logic thread, per command",
                    s.micros / 1e6, "command", name);
        }
        synchronized (errors) {
            errors.forEach((code, n) -> sink.counter("tandem_error_replies_total", "Error replies, per error code",
                    n[0], "code", code));
        }
    }

    /** The {@code errorstat_*} lines of {@code INFO errorstats}. */
    public void errorstats(StringBuilder sb) {
        synchronized (errors) {
            errors.forEach((code, n) -> sb.append("errorstat_").append(safe(code)).append(":count=").append(n[0])
                    .append("\r\n"));
        }
    }

    /** The {@code latency_percentiles_usec_*} lines of {@code INFO latencystats}. */
    public void latencystats(StringBuilder sb) {
        if (!latencyTracking) {
            return;
        }
        double[] ps = percentiles;
        for (Map.Entry<String, Stat> e : new TreeMap<>(stats).entrySet()) {
            Histogram h = e.getValue().latency;
            if (h.getTotalCount() == 0) {
                continue;
            }
            sb.append("latency_percentiles_usec_").append(safe(e.getKey())).append(':');
            for (int i = 0; i < ps.length; i++) {
                sb.append(i == 0 ? "p" : ",p").append(trimDouble(ps[i])).append('=').append(String.format(Locale.ROOT,
                        "%.3f", h.getValueAtPercentile(ps[i]) / 1000.0));
            }
            sb.append("\r\n");
        }
    }

    /** Redis' {@code %f} then {@code trimDoubleString}: 50 → "50", 99.9 → "99.9". */
    static String trimDouble(double d) {
        String s = String.format(Locale.ROOT, "%f", d);
        if (s.indexOf('.') >= 0) {
            s = s.replaceAll("0+$", "");
            if (s.endsWith(".")) {
                s = s.substring(0, s.length() - 1);
            }
        }
        return s;
    }

    /** Redis' {@code getSafeInfoString}: characters that would break the INFO format become underscores. */
    private static String safe(String s) {
        return s.replace(':', '_').replace('\r', '_').replace('\n', '_');
    }

    // ---- internals --------------------------------------------------------------------------------------------

    private void slowlogPush(byte[][] args, ClientSession client, long micros) {
        int argc = Math.min(args.length, SLOWLOG_MAX_ARGC);
        List<byte[]> kept = new ArrayList<>(argc);
        byte[][] shown = Redaction.redact(args);
        for (int j = 0; j < argc; j++) {
            byte[] a = shown[j];
            if (argc != args.length && j == argc - 1) {
                kept.add(ascii("... (" + (args.length - argc + 1) + " more arguments)"));
            } else if (a.length > SLOWLOG_MAX_STRING) {
                byte[] t = java.util.Arrays.copyOf(a, SLOWLOG_MAX_STRING);
                byte[] more = ascii("... (" + (a.length - SLOWLOG_MAX_STRING) + " more bytes)");
                byte[] both = java.util.Arrays.copyOf(t, t.length + more.length);
                System.arraycopy(more, 0, both, t.length, more.length);
                kept.add(both);
            } else {
                kept.add(a);
            }
        }
        synchronized (slowlog) {
            slowlog.addFirst(new SlowEntry(slowlogNextId++, System.currentTimeMillis() / 1000, micros, kept,
                    client == null ? "" : client.remoteAddress(), client == null ? "" : client.nameAsString()));
            while (slowlog.size() > slowlogMaxLen) {
                slowlog.removeLast();
            }
        }
    }

    private void latencySample(String event, long millis) {
        long now = System.currentTimeMillis() / 1000;
        synchronized (latencyEvents) {
            LatencySeries series = latencyEvents.computeIfAbsent(event, e -> new LatencySeries());
            series.max = Math.max(series.max, millis);
            long[] last = series.samples.peekLast();
            if (last != null && last[0] == now) {
                last[1] = Math.max(last[1], millis); // one sample per second: the worst
                return;
            }
            series.samples.addLast(new long[] {now, millis});
            if (series.samples.size() > LATENCY_SAMPLES) {
                series.samples.removeFirst();
            }
        }
    }

    private void watch() {
        while (running) {
            long threshold = stallWarnNanos;
            long period = threshold <= 0 ? TimeUnit.SECONDS.toNanos(1) : Math.max(threshold / 4, 1_000_000);
            LockSupport.parkNanos(period);
            long since = busySince;
            if (threshold <= 0 || since == 0 || stallReported) {
                continue;
            }
            long held = System.nanoTime() - since;
            if (held >= threshold && busySince == since) {
                stallReported = true;
                LOG.log(Level.WARNING, "stall watchdog: {0} has held the logic thread for {1} ms (stall.warn.ms={2}); "
                        + "every other client waits meanwhile", describe(busyWith), TimeUnit.NANOSECONDS.toMillis(held),
                        TimeUnit.NANOSECONDS.toMillis(threshold));
            }
        }
    }

    /** Names what the logic thread works on, for the log: the command, without its arguments. */
    static String describe(Object what) {
        if (what instanceof tandem.api.store.Command command) {
            what = command.args();
        }
        if (what instanceof byte[][] args && args.length > 0) {
            return "'" + new String(args[0], StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT) + "' ("
                    + args.length + " arguments)";
        }
        if (what instanceof byte[] payload) {
            return "a journal entry (" + payload.length + " bytes)";
        }
        return String.valueOf(what);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(watchdog);
    }
}
