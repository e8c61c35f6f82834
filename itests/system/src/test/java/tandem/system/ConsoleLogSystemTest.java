package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import tandem.testsupport.Await;

/**
 * A node started with a terminal, as a person starts it: {@code script} (util-linux, in every Debian) gives
 * {@code bin/tandem} a pseudo-terminal, so it offers the Gogo console. The console shows the prompt and the log's warnings only; the whole log is in
 * {@code data/log/tandem.0.log}, which {@code log:display} reads, and {@code log:set} changes a level while the node
 * runs. One node for the class.
 */
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleLogSystemTest {

    private Path home;
    private Path console;
    private Process script;
    /** Kept open: the end of the terminal's input would end the console. */
    private OutputStream keyboard;
    private int port;

    @BeforeAll
    void start() throws IOException {
        home = TandemNode.newHome("console");
        console = home.resolve("terminal.out");
        port = TandemNode.freePort();
        String command = String.join(" ", List.of(TandemNode.dist().resolve("bin/tandem").toString(), "--home",
                home.toString(), "--port", Integer.toString(port), "--replication-port",
                Integer.toString(TandemNode.freePort()), "--config", "tandem.health:port=" + TandemNode.freePort()));
        ProcessBuilder pb = new ProcessBuilder("script", "-qfec", command, "/dev/null");
        pb.environment().put("TANDEM_JAVA_OPTS", TandemNode.NODE_JAVA_OPTS);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.to(console.toFile()));
        script = pb.start();
        keyboard = script.getOutputStream();
        Await.until("the node with a terminal answers PING", TandemNode.START_DEADLINE,
                () -> "+PONG\r\n".equals(TandemNode.tryExchange(port, "PING\r\n")));
        Await.until("the console shows its prompt", TandemNode.START_DEADLINE, () -> terminal().contains("g! "));
    }

    @AfterAll
    void stop() throws IOException, InterruptedException {
        if (script == null) {
            return;
        }
        // the node is a child of script's shell: SIGTERM to the JVM itself, as an operator's kill would send
        TandemNode.run(Duration.ofSeconds(10), "pkill", "-TERM", "-f", "tandem.home=" + home + " ");
        if (!script.waitFor(30, TimeUnit.SECONDS)) {
            TandemNode.run(Duration.ofSeconds(10), "pkill", "-KILL", "-f", "tandem.home=" + home + " ");
            script.destroyForcibly();
        }
        keyboard.close();
    }

    private String terminal() {
        try {
            return Files.readString(console);
        } catch (IOException e) {
            return "";
        }
    }

    private String logFile() throws IOException {
        return Files.readString(home.resolve("data/log/tandem.0.log"));
    }

    @Test
    void theConsoleShowsThePromptAndNoInfoLinesWhileTheFileHasTheWholeLog() throws IOException {
        assertThat(terminal()).contains("Tandem: the log is in ").contains(home.getFileName() + "/data/log/tandem.0.log");
        assertThat(terminal().lines().filter(l -> l.matches("\\d{4}-\\d\\d-\\d\\d .* INFO .*"))).as(terminal())
                .isEmpty();
        assertThat(logFile().lines().filter(l -> l.matches("\\d{4}-\\d\\d-\\d\\d .* INFO .*")).count())
                .as("INFO lines of the start in the file").isGreaterThan(5);
    }

    @Test
    void logDisplayShowsTheFilesLastLines() throws IOException {
        TandemNode.Result r = shell("log:display 3");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> shown = r.out().strip().lines().toList();
        assertThat(shown).hasSize(3).allMatch(l -> l.matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*"));
        assertThat(logFile()).contains(shown.get(0));
    }

    @Test
    void logSetChangesALevelWhileTheNodeRuns() throws IOException {
        TandemNode.Result set = shell("log:set DEBUG tandem.server");
        assertThat(set.out().strip()).as(set.err()).isEqualTo("tandem.server: FINE");
        assertThat(shell("log:get tandem.server.command").out().strip()).isEqualTo("tandem.server.command: FINE");
        assertThat(shell("log:set DEFAULT tandem.server").out().strip()).isEqualTo("tandem.server: inherited (INFO)");
    }

    private TandemNode.Result shell(String command) throws IOException {
        return TandemNode.run(Duration.ofSeconds(30), TandemNode.dist().resolve("bin/tandem").toString(), "shell",
                "--home", home.toString(), "-c", command);
    }
}
