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
 * journal breaks. Exit status 0 when sound, 1 when broken, 2 on a usage error.
 */
public final class JournalTool {

    private JournalTool() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** One line, rewritten in place: how much of the journal is checked. */
    static void progress(long bytes, long totalBytes) {
        System.err.print("\r\033[K" + tandem.api.journal.JournalReader.Progress.describe(bytes, totalBytes));
        System.err.flush();
    }

    static int run(String[] args, PrintStream out) {
        if (args.length != 1) {
            out.println("usage: JournalTool <journal directory>");
            return 2;
        }
        Path dir = Paths.get(args[0]);
        if (!Files.isDirectory(dir)) {
            out.println(dir + ": not a directory");
            return 2;
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
