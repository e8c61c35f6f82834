package tandem.journal.tool;

import java.io.PrintStream;

/** Lets tests in {@code tandem.journal} run the tool without exiting the JVM. */
public final class JournalToolAccess {

    private JournalToolAccess() {
    }

    public static int run(String[] args, PrintStream out) {
        return JournalTool.run(args, out);
    }
}
