package tandem.journal.tool;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import tandem.journal.Inspection;
import tandem.protocol.frpl.FrplPayload;

/**
 * Offline journal inspector: {@code java -cp tandem.journal.jar:tandem.protocol.jar:bcprov.jar
 * tandem.journal.tool.JournalTool DIR}. Validates every segment of {@code DIR} read-only (headers, CRCs, sequences,
 * the chain across rotations, replication offsets), prints one line per segment, then {@code OK} or where the
 * journal breaks. With {@code --around T} or {@code --matching C}, lists the entries around a moment or holding a
 * command instead, with their sequences and timestamps ({@link tandem.protocol.journal.EntryFinder}), to choose a
 * restore's target. Exit status 0 when sound, 1 when broken, 2 on a usage error.
 */
public final class JournalTool {

    private JournalTool() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /**
     * {@code --around T} lists the entries around the moment {@code T}, {@code --matching C} those holding the command
     * {@code C}; {@code --count N} (default 10) how many on each side, or at most.
     */
    static int find(Path dir, String[] args, PrintStream out) {
        java.time.Instant around = null;
        String matching = null;
        int count = 10;
        for (int i = 1; i < args.length; i += 2) {
            String value = args[i + 1];
            try {
                switch (args[i]) {
                    case "--around" -> around = java.time.Instant.parse(value);
                    case "--matching" -> matching = value;
                    case "--count" -> count = Integer.parseInt(value);
                    default -> {
                        out.println("unknown option " + args[i] + "; " + USAGE);
                        return 2;
                    }
                }
            } catch (java.time.format.DateTimeParseException | NumberFormatException e) {
                out.println("bad value for " + args[i] + ": " + value + " (" + e.getMessage() + ")");
                return 2;
            }
        }
        if ((around == null) == (matching == null) || count < 1) {
            out.println(USAGE);
            return 2;
        }
        tandem.protocol.journal.EntryFinder finder = around != null
                ? tandem.protocol.journal.EntryFinder.around(around, count)
                : tandem.protocol.journal.EntryFinder.matching(matching, count);
        try {
            String broken = Inspection.read(dir, FrplPayload::length, finder);
            finder.lines().forEach(out::println);
            if (broken != null) {
                out.println("BROKEN: " + broken + " (the entries after it were not read)");
                return 1;
            }
            return 0;
        } catch (IOException e) {
            out.println("BROKEN: cannot read " + dir + ": " + e);
            return 1;
        }
    }

    /** One line, rewritten in place: how much of the journal is checked. */
    static void progress(long bytes, long totalBytes) {
        System.err.print("\r\033[K" + tandem.api.journal.JournalReader.Progress.describe(bytes, totalBytes));
        System.err.flush();
    }

    static final String USAGE = "usage: JournalTool <journal directory> [--around <ISO-8601 instant> | --matching "
            + "<command>] [--count <n>]";

    static int run(String[] args, PrintStream out) {
        if (args.length == 0 || args.length % 2 == 0) {
            out.println(USAGE);
            return 2;
        }
        Path dir = Paths.get(args[0]);
        if (!Files.isDirectory(dir)) {
            out.println(dir + ": not a directory");
            return 2;
        }
        if (args.length > 1) {
            return find(dir, args, out);
        }
        try {
            // progress on a terminal only: a script reading the output gets the listing alone
            Inspection inspection = Inspection.of(dir, FrplPayload::length,
                    System.console() == null ? null : JournalTool::progress);
            if (System.console() != null) {
                System.err.print("\r\033[K");
                System.err.flush();
            }
            for (Inspection.SegmentLine line : inspection.segments()) {
                out.println(line);
            }
            if (inspection.note() != null) {
                out.println("note: " + inspection.note());
            }
            if (inspection.problem() != null) {
                out.println("BROKEN: " + inspection.problem());
                return 1;
            }
            out.println("OK");
            return 0;
        } catch (IOException e) {
            out.println("BROKEN: cannot read " + dir + ": " + e);
            return 1;
        }
    }
}
