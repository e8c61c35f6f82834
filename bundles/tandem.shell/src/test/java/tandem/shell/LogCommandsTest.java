package tandem.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The commands as Gogo parses and calls them, over log files written as java.util.logging's FileHandler does. */
@Timeout(20)
class LogCommandsTest {

    @TempDir
    Path dir;

    private Gogo gogo;

    @AfterEach
    void close() {
        if (gogo != null) {
            gogo.close();
        }
        Logger.getLogger("tandem.logtest").setLevel(null);
    }

    private LogCommands commands() {
        LogCommands c = new LogCommands(dir.resolve("tandem.%g.log").toString());
        gogo = new Gogo("log", c, "display", "tail", "set", "get");
        return c;
    }

    private static List<String> lines(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> "2026-12-06 10:00:00.000 INFO    [tandem.x] line " + i)
                .toList();
    }

    private void write(int generation, List<String> lines) throws IOException {
        Files.write(dir.resolve("tandem." + generation + ".log"), lines, StandardCharsets.UTF_8);
    }

    @Test
    void displayShowsTheLastLinesAcrossARotation() throws Exception {
        commands();
        write(1, lines(1, 5));
        write(0, lines(6, 8));
        assertThat(gogo.run("log:display 4")).isEqualTo(String.join(System.lineSeparator(), lines(5, 8)));
        assertThat(gogo.run("log:display 2")).isEqualTo(String.join(System.lineSeparator(), lines(7, 8)));
        assertThat(gogo.run("log:display")).isEqualTo(String.join(System.lineSeparator(), lines(1, 8)));
    }

    @Test
    void displayReadsALargeFileFromItsEnd() throws Exception {
        LogCommands c = commands();
        write(0, lines(1, 20_000)); // about 1 MB, read a block at a time from the end
        assertThat(c.last(3)).containsExactlyElementsOf(lines(19_998, 20_000));
        assertThat(c.last(1000)).containsExactlyElementsOf(lines(19_001, 20_000));
    }

    @Test
    void aLineStillBeingWrittenCountsAndUtf8Survives() throws Exception {
        LogCommands c = commands();
        Files.writeString(dir.resolve("tandem.0.log"), "one\nключ два\nthree, not ended");
        assertThat(c.last(2)).containsExactly("ключ два", "three, not ended");
    }

    @Test
    void badCountsAndAMissingPatternAreSaid() throws Exception {
        commands();
        assertThat(gogo.run("log:display 0")).isEqualTo("log:display: lines must be at least 1, got 0");
        assertThat(gogo.run("log:display")).isEqualTo("");
        LogCommands none = new LogCommands(null);
        assertThat(none.display(5)).startsWith("log: no log file: etc/logging.properties names no "
                + "java.util.logging.FileHandler.pattern");
    }

    @Test
    void followPrintsWholeLinesAsTheyAreAppendedAndAfterARotation() throws Exception {
        LogCommands c = commands();
        write(0, lines(1, 3));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        AtomicBoolean go = new AtomicBoolean(true);
        List<Throwable> failed = new ArrayList<>();
        Thread follower = new Thread(() -> {
            try {
                c.follow(out, go::get);
            } catch (Throwable t) {
                failed.add(t);
            }
        });
        follower.start();
        try {
            Path file = dir.resolve("tandem.0.log");
            // the follower starts at the end as it finds it: wait until it is past the first poll
            Await.until(() -> follower.getState() == Thread.State.TIMED_WAITING);
            Files.writeString(file, "new 1\nnew 2 in", StandardOpenOption.APPEND);
            Await.until(() -> bytes.toString(StandardCharsets.UTF_8).equals("new 1\n"));
            Files.writeString(file, " two parts\n", StandardOpenOption.APPEND);
            Await.until(() -> bytes.toString(StandardCharsets.UTF_8).equals("new 1\nnew 2 in two parts\n"));
            // rotated: the file being written starts again, shorter
            Files.writeString(file, "fresh\n");
            Await.until(() -> bytes.toString(StandardCharsets.UTF_8).endsWith("two parts\nfresh\n"));
        } finally {
            go.set(false);
            follower.interrupt();
            follower.join(5000);
        }
        assertThat(follower.isAlive()).isFalse();
        assertThat(failed).isEmpty();
    }

    @Test
    void setChangesALoggersLevelAndDefaultGivesItBack() throws Exception {
        commands();
        assertThat(gogo.run("log:set DEBUG tandem.logtest")).isEqualTo("tandem.logtest: FINE");
        assertThat(Logger.getLogger("tandem.logtest.below").isLoggable(Level.FINE)).isTrue();
        assertThat(gogo.run("log:get tandem.logtest.below")).isEqualTo("tandem.logtest.below: FINE");
        assertThat(gogo.run("log:get")).asString().contains("tandem.logtest").contains("FINE");
        assertThat(gogo.run("log:set warning tandem.logtest")).isEqualTo("tandem.logtest: WARNING");
        assertThat(gogo.run("log:set DEFAULT tandem.logtest")).asString().startsWith("tandem.logtest: inherited");
        assertThat(Logger.getLogger("tandem.logtest").getLevel()).isNull();
        assertThat(gogo.run("log:set LOUD tandem.logtest")).asString().startsWith(
                "log:set: level must be one of ERROR, WARN, INFO");
    }

    /** Polls a condition with a deadline (the test's own timeout is the backstop). */
    private static final class Await {
        static void until(java.util.function.BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("condition not met within 10 s");
                }
                Thread.sleep(10);
            }
        }
    }
}
