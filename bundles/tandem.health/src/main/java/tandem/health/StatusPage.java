package tandem.health;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tandem.api.fencing.QuorumFenceStatus;
import tandem.api.journal.ArchiveStatus;
import tandem.api.replication.ReplicationStatus;

/**
 * The status page: a person's view of the node, as one HTML document with its charts drawn server-side as inline
 * SVG. No script, no style sheet, font or image from anywhere else; it refreshes itself every five seconds with a
 * meta tag.
 */
final class StatusPage {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#17becf"};
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);
    static final int WIDTH = 560;
    static final int HEIGHT = 200;

    private StatusPage() {
    }

    /** One line of a chart: its name and a value per sample (NaN where it has none). */
    record Series(String name, double[] values) {
    }

    static String render(String role, String notReady, String ackPolicy, int respPort,
            List<ReplicationStatus> protocols, QuorumFenceStatus.Status quorum, ArchiveStatus archive,
            List<History.Sample> samples) {
        StringBuilder h = new StringBuilder(16 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta http-equiv=\"refresh\" content=\"5\">")
                .append("<title>Tandem ").append(esc(role)).append(" :").append(respPort).append("</title>")
                .append("<style>body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}"
                        + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}"
                        + ".ok{color:#1a7f37}.bad{color:#b42318;font-weight:bold}.charts{display:flex;"
                        + "flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{font-weight:bold;margin:.3em 0}"
                        + "</style></head><body>\n");
        h.append("<h1>Tandem node <span id=\"role\">").append(esc(role)).append("</span> on port ").append(respPort)
                .append("</h1>\n<table id=\"summary\">");
        row(h, "ready", notReady == null ? "<span class=\"ok\" id=\"ready\">ready</span>"
                : "<span class=\"bad\" id=\"ready\">not ready: " + esc(notReady) + "</span>");
        row(h, "ack policy", esc(ackPolicy));
        String promotion = null;
        for (ReplicationStatus r : protocols) {
            row(h, r.protocol() + " replication", esc(r.role()) + (r.listening() == null ? ""
                    : ", listening on " + esc(r.listening())) + (r.upstream() == null ? ""
                    : ", following " + esc(r.upstream().address()) + " (" + esc(r.upstream().state()) + ")"
                    + (r.upstream().transfer() == null ? "" : ", " + esc(r.upstream().transfer().toString()))));
            if (r.fence() != null) {
                promotion = r.fence();
            }
        }
        boolean quorumFenced = quorum != null && quorum.fenced();
        row(h, "fence", promotion == null && !quorumFenced ? "<span class=\"ok\" id=\"fence\">not fenced</span>"
                : "<span class=\"bad\" id=\"fence\">FENCED: " + esc(promotion != null ? promotion
                        : "the quorum fence refuses writes (" + quorum.refusedWrites() + " refused)") + "</span>");
        if (quorum != null) {
            row(h, "quorum fence", (quorum.armedAtMillis() == 0 ? "unarmed" : "armed") + ", window "
                    + quorum.windowMillis() + " ms, " + quorum.refusedWrites() + " writes refused");
        }
        row(h, "journal archive", archive(archive));
        h.append("</table>\n<h2>Replicas</h2>\n<table id=\"replicas\"><tr><th>protocol</th><th>replica</th>"
                + "<th>address</th><th>state</th><th>acked</th><th>lag (entries)</th><th>last ack</th>"
                + "<th>transfer</th></tr>");
        int replicas = 0;
        for (ReplicationStatus r : protocols) {
            for (ReplicationStatus.Replica rep : r.replicas()) {
                replicas++;
                h.append("<tr><td>").append(esc(r.protocol())).append("</td><td title=\"").append(esc(rep.id()))
                        .append("\">").append(esc(NodeProbe.shortId(rep.id()))).append("</td><td>")
                        .append(esc(rep.address())).append("</td><td>").append(esc(rep.state())).append("</td><td>")
                        .append(rep.acked()).append("</td><td>").append(rep.lagEntries()).append("</td><td>")
                        .append(rep.lastAckMillis() < 0 ? "never" : rep.lastAckMillis() + " ms ago")
                        .append("</td><td>").append(rep.transfer() == null ? "" : esc(rep.transfer().toString()))
                        .append("</td></tr>");
            }
        }
        if (replicas == 0) {
            h.append("<tr><td colspan=\"8\">no replicas</td></tr>");
        }
        int seconds = (int) (samples.size() * History.INTERVAL_MILLIS / 1000);
        h.append("</table>\n<h2>The last ").append(seconds < 120 ? seconds + " seconds" : seconds / 60 + " minutes")
                .append("</h2>\n<div class=\"charts\">\n");
        // write-to-ack latency: p50 and p99 per policy that acknowledged writes
        Map<String, double[]> p50 = new LinkedHashMap<>();
        Map<String, double[]> p99 = new LinkedHashMap<>();
        for (int i = 0; i < samples.size(); i++) {
            for (Map.Entry<String, double[]> e : samples.get(i).ackSeconds().entrySet()) {
                p50.computeIfAbsent(e.getKey(), k -> nans(samples.size()))[i] = e.getValue()[0] * 1e3;
                p99.computeIfAbsent(e.getKey(), k -> nans(samples.size()))[i] = e.getValue()[1] * 1e3;
            }
        }
        List<Series> latency = new ArrayList<>();
        p50.forEach((policy, v) -> latency.add(new Series(policy + " p50", v)));
        p99.forEach((policy, v) -> latency.add(new Series(policy + " p99", v)));
        chart(h, "chart-latency", "Write-to-ack latency (ms)", latency, samples);
        List<Series> rates = List.of(
                new Series("commands/s", samples.stream().mapToDouble(History.Sample::commandsPerSec).toArray()),
                new Series("journal entries/s", samples.stream().mapToDouble(History.Sample::entriesPerSec).toArray()));
        chart(h, "chart-throughput", "Throughput (per second)", rates, samples);
        Map<String, double[]> lag = new LinkedHashMap<>();
        for (int i = 0; i < samples.size(); i++) {
            for (Map.Entry<String, Long> e : samples.get(i).lagEntries().entrySet()) {
                lag.computeIfAbsent(e.getKey(), k -> nans(samples.size()))[i] = e.getValue();
            }
        }
        List<Series> lagSeries = new ArrayList<>();
        lag.forEach((replica, v) -> lagSeries.add(new Series(replica, v)));
        chart(h, "chart-lag", "Replication lag (entries)", lagSeries, samples);
        h.append("</div>\n<p>JSON: <a href=\"health\">/health</a> · readiness: <a href=\"ready\">/ready</a> · "
                + "Prometheus: <a href=\"metrics\">/metrics</a></p>\n</body></html>\n");
        return h.toString();
    }

    /** Draws one line chart: time along x (the samples kept), values along y from 0 to a round maximum. */
    static void chart(StringBuilder h, String id, String title, List<Series> series, List<History.Sample> samples) {
        int left = 56;
        int right = 10;
        int top = 10;
        int bottom = 40;
        int w = WIDTH - left - right;
        int ht = HEIGHT - top - bottom;
        double max = 0;
        for (Series s : series) {
            for (double v : s.values()) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        double top1 = niceCeiling(max);
        h.append("<figure><figcaption>").append(esc(title)).append("</figcaption><svg id=\"").append(id)
                .append("\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(HEIGHT + 18 * ((series.size() + 2) / 3)).append("\" role=\"img\" aria-label=\"")
                .append(esc(title)).append("\" font-size=\"11\" font-family=\"sans-serif\">");
        for (int g = 0; g <= 4; g++) {
            double v = top1 * g / 4;
            double y = top + ht - ht * g / 4.0;
            h.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", left, y, left + w, y, left - 4,
                    y + 4, label(v)));
        }
        h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#999\"/>", left, top, w, ht));
        int n = samples.size();
        if (n > 0) {
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text><text x=\"%d\" y=\"%d\" "
                    + "text-anchor=\"end\">%s UTC</text>", left, top + ht + 14,
                    CLOCK.format(Instant.ofEpochMilli(samples.get(0).atMillis())), left + w, top + ht + 14,
                    CLOCK.format(Instant.ofEpochMilli(samples.get(n - 1).atMillis()))));
        }
        if (series.isEmpty() || n < 2) {
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#777\">"
                    + "no data yet</text>", left + w / 2, top + ht / 2));
        }
        for (int s = 0; s < series.size(); s++) {
            String color = COLORS[s % COLORS.length];
            double[] v = series.get(s).values();
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < v.length; i++) {
                if (Double.isNaN(v[i])) {
                    flush(h, points, color);
                    continue;
                }
                double x = left + (n < 2 ? 0 : (double) w * i / (n - 1));
                double y = top + ht - (top1 == 0 ? 0 : ht * v[i] / top1);
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            flush(h, points, color);
            int lx = left + (s % 3) * 170;
            int ly = HEIGHT - 6 + 18 * (s / 3);
            h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>", lx, ly - 4, color, lx + 16, ly, esc(series.get(s).name())));
        }
        h.append("</svg></figure>\n");
    }

    private static void flush(StringBuilder h, StringBuilder points, String color) {
        if (points.length() > 0) {
            h.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"1.5\" points=\"")
                    .append(points.toString().trim()).append("\"/>");
            points.setLength(0);
        }
    }

    private static double niceCeiling(double max) {
        if (max <= 0) {
            return 1;
        }
        double magnitude = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[] {1, 2, 2.5, 5, 10}) {
            if (step * magnitude >= max) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String label(double v) {
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.3gM", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.3gk", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    private static double[] nans(int n) {
        double[] a = new double[n];
        java.util.Arrays.fill(a, Double.NaN);
        return a;
    }

    /** The archive's row: off, ok with its lag, or failing with the last error (the health check is WARN then). */
    private static String archive(ArchiveStatus a) {
        if (a == null) {
            return "off (no archive.directory)";
        }
        String where = esc(a.directory()) + ", archived up to sequence " + a.archivedSequence() + ", lag "
                + a.pendingEntries() + " entries, " + a.pendingSegments() + " sealed segments (" + a.pendingBytes()
                + " bytes) waiting";
        return a.failing() ? "<span class=\"bad\" id=\"archive\">FAILING: " + esc(String.valueOf(a.lastError()))
                + " (" + a.failures() + " failures)</span>; " + where : "<span class=\"ok\" id=\"archive\">ok</span>: "
                + where;
    }

    private static void row(StringBuilder h, String name, String valueHtml) {
        h.append("<tr><th>").append(esc(name)).append("</th><td>").append(valueHtml).append("</td></tr>");
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
