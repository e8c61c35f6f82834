package tandem.shell;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;

/**
 * {@code log:*}: the node's log as {@code etc/logging.properties} writes it ({@code java.util.logging.FileHandler},
 * newest file {@code data/log/tandem.0.log}), and the levels of its loggers. The files are read from their end in
 * blocks, so a display costs the lines shown and not the 50 MB the rotation may keep.
 */
@Component(service = LogCommands.class, immediate = true, property = {
    "osgi.command.scope=log",
    "osgi.command.function=display",
    "osgi.command.function=tail",
    "osgi.command.function=set",
    "osgi.command.function=get"
})
public final class LogCommands {

    static final String PATTERN_PROPERTY = "java.util.logging.FileHandler.pattern";
    private static final int BLOCK = 8192;
    /** How often {@link #tail} looks for new lines. */
    private static final long FOLLOW_MILLIS = 200;
    /** Karaf's and SLF4J's names for the levels, beside java.util.logging's own. */
    private static final Map<String, Level> ALIASES = Map.of("ERROR", Level.SEVERE, "WARN", Level.WARNING,
            "DEBUG", Level.FINE, "TRACE", Level.FINEST);

    /** The file handler's pattern ({@code %g} the generation), relative to the node's home. */
    private final String pattern;
    /**
     * The loggers whose level the shell set: java.util.logging holds a logger weakly, and a logger collected loses
     * the level it was given.
     */
    private final Map<String, Logger> set = new ConcurrentHashMap<>();

    public LogCommands() {
        this(LogManager.getLogManager().getProperty(PATTERN_PROPERTY));
    }

    LogCommands(String pattern) {
        this.pattern = pattern;
    }

    @Descriptor("prints the last lines of the node's log (data/log/tandem.0.log and the rotated files before it)")
    public String display() throws IOException {
        return display(50);
    }

    @Descriptor("prints the last lines of the node's log (data/log/tandem.0.log and the rotated files before it)")
    public String display(@Descriptor("how many lines, at least 1") int lines) throws IOException {
        if (lines < 1) {
            return "log:display: lines must be at least 1, got " + lines;
        }
        if (pattern == null) {
            return noFile();
        }
        return String.join(System.lineSeparator(), last(lines));
    }

    @Descriptor("prints the last 10 lines of the node's log, then each new line as it is written, until Ctrl-C")
    public void tail() throws IOException {
        tail(10);
    }

    @Descriptor("prints the last lines of the node's log, then each new line as it is written, until Ctrl-C")
    public void tail(@Descriptor("how many lines to print first, at least 0") int lines) throws IOException {
        PrintStream out = System.out; // Gogo's: the session's output, while this command runs
        if (lines < 0) {
            out.println("log:tail: lines must be at least 0, got " + lines);
            return;
        }
        if (pattern == null) {
            out.println(noFile());
            return;
        }
        if (lines > 0) {
            last(lines).forEach(out::println);
        }
        follow(out, () -> !Thread.currentThread().isInterrupted());
    }

    /**
     * Prints what is appended to the newest file from its present end while {@code go} holds; a file that shrinks
     * was rotated away, and its successor is read from its start.
     */
    void follow(PrintStream out, java.util.function.BooleanSupplier go) throws IOException {
        Path file = file(0);
        long at = Files.exists(file) ? Files.size(file) : 0;
        byte[] partial = new byte[0];
        while (go.getAsBoolean()) {
            long size = Files.exists(file) ? Files.size(file) : 0;
            if (size < at) {
                at = 0;
                partial = new byte[0];
            }
            if (size > at) {
                byte[] read;
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                    f.seek(at);
                    read = new byte[(int) Math.min(size - at, 1 << 20)];
                    f.readFully(read);
                }
                at += read.length;
                byte[] text = concat(partial, read);
                int end = lastNewline(text);
                if (end >= 0) {
                    out.print(new String(text, 0, end + 1, StandardCharsets.UTF_8));
                    out.flush();
                }
                partial = java.util.Arrays.copyOfRange(text, end + 1, text.length);
                continue;
            }
            try {
                Thread.sleep(FOLLOW_MILLIS); // a person watches: a cheap poll of the file's size is enough
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // Ctrl-C: Gogo's session ends the command
                return;
            }
        }
    }

    @Descriptor("sets the level of the root logger: ERROR, WARN, INFO, DEBUG, TRACE (or SEVERE, WARNING, CONFIG, "
            + "FINE, FINER, FINEST, ALL, OFF), or DEFAULT for the configuration's")
    public String set(@Descriptor("the level") String level) {
        return set(level, "");
    }

    @Descriptor("sets the level of a logger and those below it (a bundle's package: tandem.node, org.apache.ratis) "
            + "until the node restarts")
    public String set(@Descriptor("the level: ERROR, WARN, INFO, DEBUG, TRACE (or java.util.logging's names), or "
            + "DEFAULT for the configuration's") String level,
            @Descriptor("the logger, as a package name; ROOT or \"\" for the root") String logger) {
        String name = logger.equalsIgnoreCase("root") ? "" : logger;
        Level l;
        if (level.equalsIgnoreCase("default")) {
            l = null;
        } else {
            l = level(level);
            if (l == null) {
                return "log:set: level must be one of ERROR, WARN, INFO, DEBUG, TRACE, SEVERE, WARNING, CONFIG, FINE, "
                        + "FINER, FINEST, ALL, OFF or DEFAULT, got " + level;
            }
        }
        if (l == null) {
            String configured = LogManager.getLogManager().getProperty(name.isEmpty() ? ".level" : name + ".level");
            l = configured == null ? null : level(configured.trim());
        }
        Logger target = Logger.getLogger(name);
        target.setLevel(l);
        set.put(name, target);
        return (name.isEmpty() ? "ROOT" : name) + ": " + (l == null ? "inherited (" + effective(target) + ")"
                : l.getName());
    }

    @Descriptor("shows the levels the shell or the configuration set, and the root's")
    public String get() {
        Map<String, String> levels = new TreeMap<>();
        LogManager manager = LogManager.getLogManager();
        for (String name : java.util.Collections.list(manager.getLoggerNames())) {
            Logger l = manager.getLogger(name);
            if (l != null && l.getLevel() != null) {
                levels.put(name.isEmpty() ? "ROOT" : name, l.getLevel().getName());
            }
        }
        levels.putIfAbsent("ROOT", effective(Logger.getLogger("")));
        StringBuilder out = new StringBuilder();
        levels.forEach((n, l) -> out.append(String.format(Locale.ROOT, "%-40s %s%n", n, l)));
        return out.toString().stripTrailing();
    }

    @Descriptor("shows the level in force for a logger (its own, or the nearest set above it)")
    public String get(@Descriptor("the logger, as a package name; ROOT for the root") String logger) {
        String name = logger.equalsIgnoreCase("root") ? "" : logger;
        return (name.isEmpty() ? "ROOT" : name) + ": " + effective(Logger.getLogger(name));
    }

    private static String effective(Logger logger) {
        for (Logger l = logger; l != null; l = l.getParent()) {
            if (l.getLevel() != null) {
                return l.getLevel().getName();
            }
        }
        return Level.INFO.getName();
    }

    private static Level level(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        Level alias = ALIASES.get(upper);
        if (alias != null) {
            return alias;
        }
        try {
            return Level.parse(upper);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private String noFile() {
        return "log: no log file: etc/logging.properties names no " + PATTERN_PROPERTY + " (a home created before "
                + "the file log: copy the distribution's etc/logging.properties into it)";
    }

    /** The file of generation {@code g}: 0 is the one being written. */
    Path file(int g) {
        return Path.of(pattern.replace("%g", Integer.toString(g)).replace("%t", System.getProperty("java.io.tmpdir"))
                .replace("%h", System.getProperty("user.home")).replace("%%", "%"));
    }

    /** @return the last {@code n} lines, oldest first, from the newest file and as many rotated ones as it takes */
    List<String> last(int n) throws IOException {
        Deque<String> lines = new ArrayDeque<>();
        for (int g = 0; lines.size() < n && Files.exists(file(g)); g++) {
            List<String> older = lastOf(file(g), n - lines.size());
            for (int i = older.size() - 1; i >= 0; i--) {
                lines.addFirst(older.get(i));
            }
        }
        return new ArrayList<>(lines);
    }

    /** The last {@code n} lines of one file, read backwards a block at a time. */
    private static List<String> lastOf(Path file, int n) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long end = f.length();
            byte[] tail = new byte[0];
            long at = end;
            // a final line without its newline is one still being written: it counts as a line
            while (at > 0 && count(tail) <= n) {
                int len = (int) Math.min(BLOCK, at);
                at -= len;
                byte[] block = new byte[len];
                f.seek(at);
                f.readFully(block);
                tail = concat(block, tail);
            }
            String text = new String(tail, StandardCharsets.UTF_8);
            List<String> all = new ArrayList<>(List.of(text.split("\r?\n", -1)));
            if (!all.isEmpty() && all.get(all.size() - 1).isEmpty()) {
                all.remove(all.size() - 1);
            }
            if (at > 0) {
                all.remove(0); // cut in the middle of a line
            }
            return all.subList(Math.max(0, all.size() - n), all.size());
        }
    }

    private static int count(byte[] b) {
        int c = 0;
        for (byte x : b) {
            if (x == '\n') {
                c++;
            }
        }
        return c;
    }

    private static int lastNewline(byte[] b) {
        for (int i = b.length - 1; i >= 0; i--) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
