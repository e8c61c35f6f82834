package tandem.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The slow log, statistics and stall watchdog behind SLOWLOG, LATENCY and INFO, as Redis 7.0 keeps them. */
@Timeout(20)
class CommandMonitorTest {

    private final CommandMonitor monitor = new CommandMonitor();
    private final ClientSession client = new ClientSession(7, "127.0.0.1:5000");

    @AfterEach
    void close() {
        monitor.close();
    }

    private static byte[][] args(String... a) {
        byte[][] b = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return b;
    }

    private static List<String> shown(CommandMonitor.SlowEntry e) {
        return e.args().stream().map(a -> new String(a, StandardCharsets.ISO_8859_1)).toList();
    }

    @Test
    void theSlowLogKeepsWhatIsSlowerThanItsThresholdNewestFirstAndBounded() {
        monitor.slowlog(1000, 2);
        monitor.executed("get", true, args("GET", "fast"), client, 999_000, false);
        monitor.executed("keys", false, args("KEYS", "*"), client, 5_000_000, false);
        monitor.executed("set", false, args("SET", "k", "v"), client, 1_000_000, false);
        monitor.executed("del", false, args("DEL", "k"), client, 2_000_000, false);
        assertThat(monitor.slowlogLength()).isEqualTo(2);
        List<CommandMonitor.SlowEntry> entries = monitor.slowlog(10);
        assertThat(entries).extracting(CommandMonitor.SlowEntry::id).containsExactly(2L, 1L);
        assertThat(shown(entries.get(0))).containsExactly("DEL", "k");
        assertThat(entries.get(0).micros()).isEqualTo(2000);
        assertThat(entries.get(0).peer()).isEqualTo("127.0.0.1:5000");
        assertThat(monitor.slowlog(1)).hasSize(1);
        monitor.slowlog(-1, 2);
        monitor.executed("del", false, args("DEL", "k"), client, 9_000_000_000L, false);
        assertThat(monitor.slowlogLength()).as("a negative threshold logs nothing").isEqualTo(2);
        monitor.slowlogReset();
        assertThat(monitor.slowlogLength()).isZero();
    }

    @Test
    void slowLogEntriesAreTrimmedAsRedisTrimsThemAndSecretsAreRedacted() {
        monitor.slowlog(0, 128);
        String[] many = new String[40];
        many[0] = "DEL";
        for (int i = 1; i < many.length; i++) {
            many[i] = "k" + i;
        }
        monitor.executed("del", false, args(many), client, 1, false);
        List<String> first = shown(monitor.slowlog(1).get(0));
        assertThat(first).hasSize(32);
        assertThat(first.get(31)).isEqualTo("... (9 more arguments)");
        monitor.executed("set", false, args("SET", "k", "x".repeat(130)), client, 1, false);
        assertThat(shown(monitor.slowlog(1).get(0)).get(2)).isEqualTo("x".repeat(128) + "... (2 more bytes)");
        monitor.executed("auth", false, args("AUTH", "default", "secret"), client, 1, false);
        assertThat(shown(monitor.slowlog(1).get(0))).containsExactly("AUTH", "(redacted)", "(redacted)");
        monitor.executed("hello", false, args("HELLO", "2", "AUTH", "default", "secret", "SETNAME", "n"), client, 1,
                false);
        assertThat(shown(monitor.slowlog(1).get(0)))
                .containsExactly("HELLO", "2", "AUTH", "(redacted)", "(redacted)", "SETNAME", "n");
        monitor.executed("config|set", false, args("CONFIG", "SET", "maxclients", "5", "requirepass", "pw"), client,
                1, false);
        assertThat(shown(monitor.slowlog(1).get(0)))
                .containsExactly("CONFIG", "SET", "maxclients", "5", "requirepass", "(redacted)");
        monitor.executed("migrate", false, args("MIGRATE", "h", "1", "", "0", "5", "COPY", "AUTH2", "u", "pw", "AUTH",
                "pw2", "KEYS", "auth", "k"), client, 1, false);
        assertThat(shown(monitor.slowlog(1).get(0))).containsExactly("MIGRATE", "h", "1", "", "0", "5", "COPY",
                "AUTH2", "(redacted)", "(redacted)", "AUTH", "(redacted)", "KEYS", "auth", "k");
    }

    @Test
    void commandAndErrorStatisticsRenderAsRedisInfoLines() {
        monitor.executed("get", true, args("GET", "k"), client, 3_000, false);
        monitor.executed("get", true, args("GET", "k"), client, 5_000, true);
        monitor.rejected("get");
        monitor.rejected("set");
        monitor.error("ERR wrong number of arguments for 'get' command");
        monitor.error("WRONGTYPE Operation against a key holding the wrong kind of value");
        monitor.error("ERR syntax error");
        monitor.error("NOSPACE");
        StringBuilder sb = new StringBuilder();
        monitor.commandstats(sb);
        assertThat(sb).hasToString("cmdstat_get:calls=2,usec=8,usec_per_call=4.00,rejected_calls=1,failed_calls=1\r\n"
                + "cmdstat_set:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n");
        sb.setLength(0);
        monitor.errorstats(sb);
        assertThat(sb).hasToString("errorstat_ERR:count=3\r\nerrorstat_WRONGTYPE:count=1\r\n");
        assertThat(monitor.totalErrorReplies()).isEqualTo(4);
        assertThat(monitor.totalCalls()).isEqualTo(2);
        sb.setLength(0);
        monitor.latencystats(sb);
        assertThat(sb.toString()).matches("latency_percentiles_usec_get:p50=\\d+\\.\\d{3},p99=\\d+\\.\\d{3},"
                + "p99\\.9=\\d+\\.\\d{3}\r\n");
        monitor.resetStats();
        sb.setLength(0);
        monitor.commandstats(sb);
        monitor.errorstats(sb);
        assertThat(sb).isEmpty();
    }

    @Test
    void latencyEventsKeepTheWorstSamplePerSecondOnlyAboveTheThreshold() {
        monitor.executed("keys", false, args("KEYS", "*"), client, 500_000_000, false);
        assertThat(monitor.latencyEvents()).as("threshold 0: off").isEmpty();
        monitor.latencyThreshold(100);
        monitor.executed("keys", false, args("KEYS", "*"), client, 50_000_000, false);
        monitor.executed("keys", false, args("KEYS", "*"), client, 150_000_000, false);
        monitor.executed("get", true, args("GET", "k"), client, 120_000_000, false);
        CommandMonitor.LatencySeries command = monitor.latencyEvents().get("command");
        assertThat(command.max).isEqualTo(150);
        assertThat(command.samples.peekLast()[1]).isEqualTo(150);
        assertThat(monitor.latencyEvents()).containsOnlyKeys("command", "fast-command");
        assertThat(monitor.latencyReset(List.of("command", "nosuch"))).isEqualTo(1);
        assertThat(monitor.latencyReset(List.of())).isEqualTo(1);
        assertThat(monitor.latencyEvents()).isEmpty();
    }

    @Test
    void percentilesAreNamedAsRedisPrintsThem() {
        assertThat(CommandMonitor.trimDouble(50)).isEqualTo("50");
        assertThat(CommandMonitor.trimDouble(99.9)).isEqualTo("99.9");
        assertThat(CommandMonitor.trimDouble(99.99)).isEqualTo("99.99");
    }

    @Test
    void theWatchdogLogsWorkThatHoldsTheLogicThreadWhileItStillRunsAndItsLengthWhenItEnds() {
        List<String> logged = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger("tandem.server");
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                String text = r.getMessage();
                Object[] p = r.getParameters();
                logged.add(p == null ? text : java.text.MessageFormat.format(text, p));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            monitor.stallWarn(20);
            monitor.busy(args("KEYS", "*a*a*b"));
            await(() -> logged.stream().anyMatch(l -> l.startsWith("stall watchdog: 'KEYS' (2 arguments) has held "
                    + "the logic thread for")));
            monitor.idle();
            assertThat(logged).anyMatch(l -> l.startsWith("stall watchdog: 'KEYS' (2 arguments) held the logic "
                    + "thread for") && l.endsWith(" ms in all"));
            int before = logged.size();
            monitor.busy(args("GET", "k"));
            monitor.idle();
            assertThat(logged).as("a short command logs nothing").hasSize(before);
        } finally {
            logger.removeHandler(handler);
        }
    }

    private static void await(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 10 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
