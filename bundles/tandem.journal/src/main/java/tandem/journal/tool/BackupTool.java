package tandem.journal.tool;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

import tandem.journal.ArchiveCleanup;
import tandem.journal.BackupVerifier;
import tandem.journal.Restore;

/**
 * Offline backup tools, run by {@code bin/tandem} on the classpath {@link JournalTool} uses:
 *
 * <pre>
 *  BackupTool verify DIR
 *  BackupTool restore --backup DIR [--archive DIR] [--journal DIR]
 *                     (--to-time ISO-8601 | --to-sequence N | --before COMMAND) --home NEW
 *  BackupTool clean-archive --archive DIR --keep-from BACKUP [--dry-run]
 * </pre>
 *
 * Exit status 0 when done, 1 when the backup or the entries fail (the message names what), 2 on a usage error.
 */
public final class BackupTool {

    static final String USAGE = "usage: tandem verify-backup DIR\n"
            + "       tandem restore --backup DIR [--archive DIR] [--journal DIR] "
            + "(--to-time ISO-8601 | --to-sequence N | --before COMMAND) --home NEW\n"
            + "       tandem clean-archive --archive DIR --keep-from BACKUP [--dry-run]";

    private BackupTool() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    private static long sequence(String v) {
        long s = Long.parseLong(v);
        if (s < 0) {
            throw new NumberFormatException("a sequence is 0 or more");
        }
        return s;
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 2 && args[0].equals("verify")) {
            try {
                BackupVerifier.Verified v = BackupVerifier.verify(Paths.get(args[1]));
                out.println("OK: store at sequence " + v.manifest().appliedSequence() + ", chain "
                        + v.manifest().chainHex() + ", taken " + v.manifest().createdAt() + ", " + v.bytes()
                        + " bytes");
                return 0;
            } catch (IOException e) {
                out.println("BROKEN: " + e.getMessage());
                return 1;
            }
        }
        if (args.length > 0 && args[0].equals("clean-archive")) {
            return cleanArchive(args, out, err);
        }
        if (args.length == 0 || !args[0].equals("restore")) {
            err.println(USAGE);
            return 2;
        }
        Path backup = null;
        Path home = null;
        List<Path> sources = new ArrayList<>();
        List<Restore.Target> targets = new ArrayList<>();
        for (int i = 1; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                err.println(args[i] + " needs a value\n" + USAGE);
                return 2;
            }
            String v = args[i + 1];
            try {
                switch (args[i]) {
                    case "--backup" -> backup = Paths.get(v);
                    case "--home" -> home = Paths.get(v);
                    case "--archive", "--journal" -> sources.add(Paths.get(v));
                    case "--to-time" -> targets.add(Restore.Target.time(Instant.parse(v)));
                    case "--to-sequence" -> targets.add(Restore.Target.sequence(sequence(v)));
                    case "--before" -> targets.add(Restore.Target.before(v));
                    default -> {
                        err.println("unknown option " + args[i] + "\n" + USAGE);
                        return 2;
                    }
                }
            } catch (DateTimeParseException | NumberFormatException e) {
                err.println("bad value for " + args[i] + ": " + v + " (" + e.getMessage() + ")");
                return 2;
            }
        }
        if (backup == null || home == null || targets.size() != 1) {
            err.println("restore needs --backup, --home and exactly one target\n" + USAGE);
            return 2;
        }
        long started = System.nanoTime();
        try {
            Restore.Result r = new Restore(backup, sources, targets.get(0), home, out).run();
            double seconds = (System.nanoTime() - started) / 1e9;
            out.printf("restored: the store at sequence %d, then %d journal entries up to sequence %d (%s)%n",
                    r.backupSequence(), r.entries(), r.sequence(),
                    r.timestampNs() == 0 ? "no entry" : Instant.ofEpochSecond(0, r.timestampNs()));
            out.println("from " + (r.segments().isEmpty() ? "the backup alone" : r.segments()));
            if (r.next() != null) {
                out.println("first entry not restored: " + r.next());
            }
            out.printf("in %.1f s; the node replays the entries at its first start, as a new primary with a history "
                    + "of its own:%n  bin/tandem --home %s%n", seconds, home);
            return 0;
        } catch (IOException | RuntimeException e) {
            out.println("FAILED: " + e.getMessage());
            return 1;
        }
    }

    private static int cleanArchive(String[] args, PrintStream out, PrintStream err) {
        Path archive = null;
        Path keepFrom = null;
        boolean dryRun = false;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--dry-run")) {
                dryRun = true;
                continue;
            }
            if (i + 1 >= args.length || !args[i].equals("--archive") && !args[i].equals("--keep-from")) {
                err.println((i + 1 >= args.length ? args[i] + " needs a value" : "unknown option " + args[i]) + "\n"
                        + USAGE);
                return 2;
            }
            if (args[i].equals("--archive")) {
                archive = Paths.get(args[++i]);
            } else {
                keepFrom = Paths.get(args[++i]);
            }
        }
        if (archive == null || keepFrom == null) {
            err.println("clean-archive needs --archive and --keep-from\n" + USAGE);
            return 2;
        }
        try {
            ArchiveCleanup.Result r = ArchiveCleanup.run(archive, keepFrom, dryRun, out);
            out.printf("%s %d archived segments (%d bytes) before sequence %d, which %s needs; %d kept%n",
                    dryRun ? "would remove" : "removed", r.removed().size(), r.bytes(), r.keptFrom(), keepFrom,
                    r.kept());
            return 0;
        } catch (IOException | RuntimeException e) {
            out.println("FAILED: " + e.getMessage());
            return 1;
        }
    }
}
