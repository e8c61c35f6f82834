package tandem.server.command;

import static tandem.server.command.CommandTable.ascii;
import static tandem.server.command.CommandTable.sub;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tandem.protocol.command.String2ll;
import tandem.server.resp.RespWriter;

/** {@code SLOWLOG} and {@code LATENCY}, over the node's {@link CommandMonitor}, with Redis 7.0's replies. */
final class MonitorCommands {

    private static final List<String> ADMIN = List.of("admin", "noscript", "loading", "stale");

    private MonitorCommands() {
    }

    static CommandTable.Builder register(CommandTable.Builder b) {
        Map<String, CommandSpec> slowlog = new LinkedHashMap<>();
        slowlog.put("get", sub("slowlog", "get", -2, ADMIN, "server", "2.2.12",
                "Returns the slow log's entries.", MonitorCommands::slowlogGet));
        slowlog.put("len", sub("slowlog", "len", 2, ADMIN, "server", "2.2.12",
                "Returns the number of entries in the slow log.",
                (c, a) -> c.reply().integer(c.server().monitor().slowlogLength())));
        slowlog.put("reset", sub("slowlog", "reset", 2, ADMIN, "server", "2.2.12",
                "Clears all entries from the slow log.", (c, a) -> {
                    c.server().monitor().slowlogReset();
                    c.reply().ok();
                }));
        slowlog.put("help", sub("slowlog", "help", 2, List.of("loading", "stale"), "server", "6.2.0",
                "Show helpful text about the different subcommands", (c, a) -> help(c, a, List.of(
                        "GET [<count>]",
                        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
                        "    Entries are made of:",
                        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
                        "    client name",
                        "LEN",
                        "    Return the length of the slowlog.",
                        "RESET",
                        "    Reset the slowlog."))));

        Map<String, CommandSpec> latency = new LinkedHashMap<>();
        latency.put("latest", sub("latency", "latest", 2, ADMIN, "server", "2.8.13",
                "Returns the latest latency samples for all events.", MonitorCommands::latencyLatest));
        latency.put("history", sub("latency", "history", 3, ADMIN, "server", "2.8.13",
                "Returns timestamp-latency samples for an event.", MonitorCommands::latencyHistory));
        latency.put("reset", sub("latency", "reset", -2, ADMIN, "server", "2.8.13",
                "Resets the latency data for one or more events.", (c, a) -> {
                    List<String> events = new ArrayList<>();
                    for (int i = 2; i < a.length; i++) {
                        events.add(ascii(a[i]));
                    }
                    c.reply().integer(c.server().monitor().latencyReset(events));
                }));
        latency.put("doctor", sub("latency", "doctor", 2, ADMIN, "server", "2.8.13",
                "Returns a human-readable latency analysis report.", MonitorCommands::latencyDoctor));
        latency.put("help", sub("latency", "help", 2, List.of("loading", "stale"), "server", "2.8.13",
                "Returns helpful text about the different subcommands.", (c, a) -> help(c, a, List.of(
                        "DOCTOR",
                        "    Return a human readable latency analysis report.",
                        "HISTORY <event>",
                        "    Return time-latency samples for the <event> class.",
                        "LATEST",
                        "    Return the latest latency samples for all events.",
                        "RESET [<event> ...]",
                        "    Reset latency data of one or more <event> classes.",
                        "    (default: reset all data for all event classes)"))));

        return b.container("slowlog", -2, "server", "2.2.12", "A container for slow log commands.", null, slowlog)
                .container("latency", -2, "server", "2.8.13", "A container for latency diagnostics commands.", null,
                        latency);
    }

    /** Redis' {@code addReplyHelp}: a header naming the command as it was typed, the lines, then HELP. */
    private static void help(CommandContext c, byte[][] a, List<String> lines) {
        RespWriter r = c.reply();
        r.array(lines.size() + 3);
        r.simple(ascii(a[0]).toUpperCase(Locale.ROOT) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        lines.forEach(r::simple);
        r.simple("HELP");
        r.simple("    Print this help.");
    }

    private static void slowlogGet(CommandContext c, byte[][] a) {
        if (a.length > 3) {
            c.reply().error(Commands.subcommandSyntax(a, "SLOWLOG"));
            return;
        }
        CommandMonitor m = c.server().monitor();
        long count = 10;
        if (a.length == 3) {
            try {
                count = String2ll.parse(a[2]);
            } catch (NumberFormatException e) {
                count = -2;
            }
            if (count < -1) {
                c.reply().error("ERR count should be greater than or equal to -1");
                return;
            }
            if (count == -1) {
                count = Long.MAX_VALUE;
            }
        }
        List<CommandMonitor.SlowEntry> entries = m.slowlog(count);
        RespWriter r = c.reply();
        r.array(entries.size());
        for (CommandMonitor.SlowEntry e : entries) {
            r.array(6).integer(e.id()).integer(e.timeSeconds()).integer(e.micros());
            r.array(e.args().size());
            e.args().forEach(r::bulk);
            r.bulk(e.peer()).bulk(e.name());
        }
    }

    private static void latencyLatest(CommandContext c, byte[][] a) {
        Map<String, CommandMonitor.LatencySeries> events = c.server().monitor().latencyEvents();
        RespWriter r = c.reply();
        r.array(events.size());
        events.forEach((event, series) -> {
            long[] last = series.samples.peekLast();
            r.array(4).bulk(event).integer(last[0]).integer(last[1]).integer(series.max);
        });
    }

    private static void latencyHistory(CommandContext c, byte[][] a) {
        CommandMonitor.LatencySeries series = c.server().monitor().latencyEvents().get(ascii(a[2]));
        RespWriter r = c.reply();
        if (series == null) {
            r.array(0);
            return;
        }
        r.array(series.samples.size());
        series.samples.forEach(s -> r.array(2).integer(s[0]).integer(s[1]));
    }

    /** A short report: the events seen, their latest and worst samples, and what to look at. */
    private static void latencyDoctor(CommandContext c, byte[][] a) {
        Map<String, CommandMonitor.LatencySeries> events = c.server().monitor().latencyEvents();
        StringBuilder sb = new StringBuilder();
        if (events.isEmpty()) {
            sb.append("Dave, no latency spike was observed during the lifetime of this Tandem node. ")
                    .append("(latency-monitor-threshold is 0 unless CONFIG SET or etc/tandem.server.cfg set it.)\n");
        } else {
            int i = 1;
            for (Map.Entry<String, CommandMonitor.LatencySeries> e : events.entrySet()) {
                CommandMonitor.LatencySeries s = e.getValue();
                long[] last = s.samples.peekLast();
                sb.append(String.format(Locale.ROOT, "%d. %s: %d latency spikes (latest %d ms, worst %d ms).%n", i++,
                        e.getKey(), s.samples.size(), last[1], s.max));
            }
            sb.append("SLOWLOG GET names the commands; the node's log names every command the stall watchdog saw "
                    + "hold the logic thread past stall.warn.ms.\n");
        }
        c.reply().verbatim(sb.toString());
    }
}
