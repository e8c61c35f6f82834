package tandem.launcher;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

/**
 * The node's console log: the process's own standard error, whatever {@code System.err} is at the time. Gogo replaces
 * {@code System.err} with a stream that follows the running shell command, and JUL's ConsoleHandler writes to
 * {@code System.err}, so whatever a command logged while it ran ({@code start}, {@code update}: every component it
 * activates) went to that shell client and never into the node's log. This handler writes to file descriptor 2.
 *
 * <p>Configured in {@code etc/logging.properties} like ConsoleHandler: {@code tandem.launcher.NodeConsoleHandler.level}
 * and {@code .formatter} (default {@link SimpleFormatter}). The system property {@value #LEVEL_PROPERTY} overrides the
 * level: {@code bin/tandem} sets it to {@code WARNING} when the node offers the Gogo console, so that the prompt is not
 * buried under the log, which the file handler keeps whole ({@code log:display}, {@code log:tail}).
 */
public final class NodeConsoleHandler extends StreamHandler {

    /** The console's level, over the configuration's. */
    public static final String LEVEL_PROPERTY = "tandem.console.level";

    public NodeConsoleHandler() {
        super(new FileOutputStream(FileDescriptor.err), new SimpleFormatter());
        java.util.logging.LogManager manager = java.util.logging.LogManager.getLogManager();
        String prefix = NodeConsoleHandler.class.getName();
        String level = manager.getProperty(prefix + ".level");
        if (level != null) {
            setLevel(java.util.logging.Level.parse(level.trim()));
        }
        String formatter = manager.getProperty(prefix + ".formatter");
        if (formatter != null) {
            try {
                setFormatter((java.util.logging.Formatter) ClassLoader.getSystemClassLoader()
                        .loadClass(formatter.trim()).getDeclaredConstructor().newInstance());
            } catch (ReflectiveOperationException | ClassCastException e) {
                reportError("formatter " + formatter + " cannot be used", e,
                        java.util.logging.ErrorManager.FORMAT_FAILURE);
            }
        }
    }

    /**
     * The level, unless {@value #LEVEL_PROPERTY} names one: LogManager sets a handler's level from the configuration
     * after constructing it, so the override must hold here.
     */
    @Override
    public synchronized void setLevel(java.util.logging.Level level) {
        String forced = System.getProperty(LEVEL_PROPERTY);
        if (forced != null) {
            try {
                level = java.util.logging.Level.parse(forced.trim());
            } catch (IllegalArgumentException e) {
                reportError(LEVEL_PROPERTY + "=" + forced + " is not a level", e,
                        java.util.logging.ErrorManager.GENERIC_FAILURE);
            }
        }
        super.setLevel(level);
    }

    /** Every record is flushed at once: a node killed with SIGKILL has written everything it logged before. */
    @Override
    public synchronized void publish(LogRecord record) {
        super.publish(record);
        flush();
    }

    /** Standard error stays open: closing it would silence the JVM's own last words. */
    @Override
    public synchronized void close() {
        flush();
    }
}
