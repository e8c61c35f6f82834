package tandem.system.fuzz;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The figures of a fuzz run and its findings, grouped by signature. */
final class Report {

    /** Every occurrence of one signature: the first in full (with its reproduction), the rest counted. */
    static final class Group {
        Finding first;
        long count;
        final List<String> where = new ArrayList<>();
    }

    private static final int MAX_SHAPES = 5_000_000;

    long commands;
    long harnessCommands;
    long skipped;
    /** EXPIRETIME/PEXPIRETIME replies compared to the millisecond (a deadline given as an instant). */
    long exactDeadlines;
    /** BLOCKING steps: a blocking command that blocked, served by the other connection's push. */
    long blockingServed;

    long episodes;
    final Set<String> shapes = new HashSet<>();
    final Map<Rule, Long> normalised = new EnumMap<>(Rule.class);
    final List<Long> seeds = new ArrayList<>();
    /** The protocols the seeds ran in (2: RESP2, 3: RESP3 after HELLO 3). */
    final java.util.Set<Integer> protocols = new java.util.TreeSet<>();
    final Map<String, Group> findings = new LinkedHashMap<>();
    String catalogue = "";
    int catalogueSize;
    String convergence = "not checked";
    Duration duration = Duration.ZERO;
    boolean stoppedEarly;
    String stopReason = "";

    void shape(String s) {
        if (shapes.size() < MAX_SHAPES) {
            shapes.add(s);
        }
    }

    void normalised(Rule rule) {
        if (rule != Rule.EXACT) {
            normalised.merge(rule, 1L, Long::sum);
        }
    }

    /** @return whether this is the first finding with its signature */
    synchronized boolean add(Finding f) {
        Group g = findings.computeIfAbsent(f.signature(), k -> new Group());
        g.count++;
        if (g.where.size() < 5) {
            g.where.add("seed " + f.seed() + " #" + f.index());
        }
        if (g.first == null) {
            g.first = f;
            return true;
        }
        return false;
    }

    /** Replaces the first finding of a signature (with its reproduction once shrunk). */
    synchronized void update(Finding f) {
        Group g = findings.get(f.signature());
        if (g != null) {
            g.first = f;
        }
    }

    long count(Finding.Kind kind) {
        return findings.values().stream().filter(g -> g.first.kind() == kind).mapToLong(g -> g.count).sum();
    }

    /**
     * @param tolerated ids of known findings that do not fail the run ("all" for every known one)
     * @return the groups that fail the run
     */
    List<Group> failing(Set<String> tolerated) {
        List<Group> out = new ArrayList<>();
        for (Group g : findings.values()) {
            KnownFindings.Entry k = g.first.known();
            if (k != null && (tolerated.contains("all") || tolerated.contains(k.id()))) {
                continue;
            }
            out.add(g);
        }
        return out;
    }

    /** Known entries that did not show up: candidates for removal once the bug is fixed. */
    List<String> unseenKnown() {
        List<String> out = new ArrayList<>();
        for (KnownFindings.Entry e : KnownFindings.ENTRIES) {
            boolean seen = findings.values().stream().anyMatch(g -> g.first.known() == e);
            if (!seen) {
                out.add(e.id());
            }
        }
        return out;
    }

    String figures() {
        StringBuilder sb = new StringBuilder();
        sb.append("| figure | value |\n|---|---|\n");
        row(sb, "commands compared", Long.toString(commands));
        row(sb, "distinct command shapes", Integer.toString(shapes.size()));
        row(sb, "commands in the catalogue (Tandem's COMMAND)", catalogueSize + " (fingerprint " + catalogue + ")");
        row(sb, "episodes (fresh keyspace each)", Long.toString(episodes));
        row(sb, "harness commands (FLUSHALL, state comparison, scan iterations)", Long.toString(harnessCommands));
        row(sb, "LCS skipped as too costly", Long.toString(skipped));
        row(sb, "blocking commands served by a push from the other connection", Long.toString(blockingServed));
        row(sb, "EXPIRETIME/PEXPIRETIME compared exactly (a deadline given as an instant)", Long.toString(exactDeadlines));
        row(sb, "mismatches (occurrences / distinct)", count(Finding.Kind.MISMATCH) + count(Finding.Kind.STATE)
                + " / " + findings.values().stream().filter(g -> g.first.kind() == Finding.Kind.MISMATCH
                        || g.first.kind() == Finding.Kind.STATE).count());
        row(sb, "crashes", Long.toString(count(Finding.Kind.CRASH)));
        row(sb, "hangs", Long.toString(count(Finding.Kind.HANG)));
        row(sb, "dropped connections", Long.toString(count(Finding.Kind.DROP)));
        row(sb, "log errors, stopped apply", count(Finding.Kind.LOG) + ", " + count(Finding.Kind.STOPPED));
        row(sb, "replicas' store:digest", convergence);
        row(sb, "duration", String.format("%.1f s", duration.toMillis() / 1000.0));
        row(sb, "seeds", seeds.toString());
        row(sb, "protocols", protocols.toString());
        if (stoppedEarly) {
            row(sb, "stopped early", stopReason);
        }
        StringBuilder rules = new StringBuilder();
        normalised.forEach((rule, n) -> rules.append(rules.isEmpty() ? "" : ", ").append(rule).append(' ').append(n));
        row(sb, "replies compared under a normalisation", rules.isEmpty() ? "none" : rules.toString());
        return sb.toString();
    }

    private static void row(StringBuilder sb, String k, String v) {
        sb.append("| ").append(k).append(" | ").append(v.replace("|", "\\|")).append(" |\n");
    }

    String findingsText() {
        StringBuilder sb = new StringBuilder();
        for (Group g : findings.values()) {
            sb.append(g.first.describe()).append("\n  occurrences: ").append(g.count).append(" (")
                    .append(String.join(", ", g.where)).append(g.count > g.where.size() ? ", …" : "")
                    .append(")\n\n");
        }
        return sb.toString();
    }

    String summary() {
        return figures() + "\n" + (findings.isEmpty() ? "no findings\n" : findingsText())
                + (unseenKnown().isEmpty() ? "" : "known findings not seen in this run (remove their entries once "
                        + "fixed): " + unseenKnown() + "\n");
    }
}
