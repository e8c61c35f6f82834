package tandem.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shell bundle swapped from its own admin channel, through {@code bin/tandem shell}: {@code update},
 * {@code stop; start} and {@code refresh} of {@code tandem.shell} are answered with exit status 0 (Felix stops the
 * bundle while the command runs, on the session's thread or on its refresh thread), the next command reaches the
 * new revision, and an interactive session goes on across the update. One node for the class.
 */
@Timeout(120)
class ShellSwapSystemTest {

    @RegisterExtension
    static final PerClass<TandemNode> NODE = new PerClass<>(() -> TandemNode.start("shell-swap"));

    @Test
    void updateStopStartAndRefreshOfTheShellFromItsOwnChannelAreAnswered() throws IOException {
        TandemNode node = NODE.get();
        long id = node.bundleId("Tandem shell");
        Path socket = socket();
        for (String line : new String[] {"update " + id, "stop " + id + "; start " + id, "refresh " + id}) {
            TandemNode.Result r = node.shell(line + "; echo answered");
            assertThat(r.exit()).as("%s: %s", line, r.err()).isZero();
            assertThat(r.out()).as(line).contains("answered");
            assertThat(r.err()).as(line).isEmpty();
            TandemNode.Result status = node.shell("server:status");
            assertThat(status.exit()).as("the next command, after %s: %s", line, status.err()).isZero();
            assertThat(status.out()).contains("listening on");
        }
        assertThat(socket()).as("the new revision's socket").isNotEqualTo(socket);
        assertThat(node.bundleId("Tandem shell")).as("the same bundle, active").isEqualTo(id);
    }

    @Test
    void anInteractiveSessionGoesOnAcrossTheShellsUpdate() throws IOException {
        TandemNode node = NODE.get();
        long id = node.bundleId("Tandem shell");
        Path input = Files.createTempFile(node.home(), "session", ".txt");
        Files.writeString(input, "update " + id + "\nserver:status\nupdate " + id + "\necho still here\n");
        TandemNode.Result r = TandemNode.run(Duration.ofSeconds(60), "bash", "-c",
                "exec \"$0\" shell --home \"$1\" < \"$2\"", TandemNode.dist().resolve("bin/tandem").toString(),
                node.home().toString(), input.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("listening on").contains("still here");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void aHeadlessNodeLogsEveryLineOnStandardErrorAndInItsLogFile() throws IOException {
        TandemNode node = NODE.get();
        List<String> logged = node.log().lines().filter(l -> l.matches("\\d{4}-\\d\\d-\\d\\d .* INFO .*")).toList();
        assertThat(logged).as("INFO lines on standard error").hasSizeGreaterThan(5);
        assertThat(Files.readString(node.home().resolve("data/log/tandem.0.log"))).contains(logged.get(0))
                .contains(logged.get(logged.size() / 2)); // not the last: the file handler may be a moment behind
    }

    private static Path socket() throws IOException {
        return Path.of(Files.readString(NODE.get().home().resolve("data/shell.path")).trim());
    }
}
