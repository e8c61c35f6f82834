package tandem.shell.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.shell.client.AdminClient;

/**
 * The admin channel over a real Unix-domain socket and a real Gogo runtime, with {@code bin/tandem shell}'s client:
 * a command that takes the channel's bundle away (as {@code update}, {@code stop} or {@code refresh} of the shell
 * bundle does) is answered, and the next line reaches the bundle's next revision.
 */
@Timeout(30)
public class AdminChannelTest {

    @TempDir
    Path home;

    private final CommandProcessorImpl processor = new CommandProcessorImpl();
    private volatile AdminChannel channel;

    @BeforeEach
    void start() throws IOException {
        channel = new AdminChannel(processor, home);
        processor.addCommand("test", new Bundle(), "update");
        processor.addCommand("test", new Bundle(), "refresh");
        processor.addCommand("test", new Bundle(), "hello");
    }

    @AfterEach
    void stop() {
        channel.deactivate();
        processor.stop();
    }

    /** The commands: what Felix does to the shell bundle when Gogo's {@code update} or {@code refresh} names it. */
    public final class Bundle {

        /** {@code Bundle.update()}: this revision deactivates and the next activates, on the calling thread. */
        public String update() {
            swap();
            return "updated";
        }

        /** {@code refresh}: the same on the framework's refresh thread, while the command is still running. */
        public String refresh() throws InterruptedException {
            Thread framework = new Thread(AdminChannelTest.this::swap, "refresh");
            framework.start();
            framework.join();
            return "refreshed";
        }

        public String hello() {
            return "hello";
        }
    }

    private void swap() {
        channel.deactivate();
        try {
            channel = new AdminChannel(processor, home);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void anUpdateOfTheShellFromItsOwnSessionIsAnsweredAndTheNextRevisionServes() throws IOException {
        Path before = socket();

        Run update = client("update");

        assertThat(update.exit).as(update.err).isZero();
        assertThat(update.out).isEqualTo("updated\n");
        assertThat(socket()).as("the next revision's socket").isNotEqualTo(before).exists();
        assertThat(before).doesNotExist();
        Run hello = client("hello");
        assertThat(hello.exit).as(hello.err).isZero();
        assertThat(hello.out).isEqualTo("hello\n");
    }

    @Test
    void aRefreshOnAnotherThreadWhileTheCommandRunsIsAnsweredToo() throws IOException {
        Run refresh = client("refresh");

        assertThat(refresh.exit).as(refresh.err).isZero();
        assertThat(refresh.out).isEqualTo("refreshed\n");
        assertThat(client("hello").out).isEqualTo("hello\n");
    }

    @Test
    void anInteractiveSessionGoesOnWithTheNextRevision() throws IOException {
        // the line after "update" finds its session closed, unread: the client sends it again on the new socket
        Run session = interactive("update\nhello\nhello\n");

        assertThat(session.exit).as(session.err).isZero();
        assertThat(session.out).isEqualTo("updated\nhello\nhello\n");
        assertThat(session.err).isEmpty();
    }

    @Test
    void anIdleInteractiveSessionFollowsARefreshThatCameAfterItsCommandReturned() throws Exception {
        PipedOutputStream typed = new PipedOutputStream();
        PipedInputStream stdin = new PipedInputStream(typed);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int[] exit = {-1};
        Thread client = new Thread(() -> exit[0] = AdminClient.run(new String[] {"--home", home.toString()}, stdin,
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err), "client");
        client.start();
        typed.write("hello\n".getBytes(StandardCharsets.UTF_8));
        awaitOutput(out, "hello\n");

        swap(); // the refresh thread, while the session waits for its next line

        typed.write("hello\n".getBytes(StandardCharsets.UTF_8));
        typed.close();
        client.join(10_000);
        assertThat(exit[0]).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("hello\nhello\n");
    }

    private static void awaitOutput(ByteArrayOutputStream out, String expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!out.toString(StandardCharsets.UTF_8).equals(expected)) {
            assertThat(System.nanoTime() - deadline).as("waiting for %s", expected).isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @Test
    void anIdleSessionIsClosedWhenTheBundleGoesAway() throws IOException {
        Path socket = socket();
        try (SocketChannel idle = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            idle.connect(UnixDomainSocketAddress.of(socket));
            DataInputStream in = new DataInputStream(Channels.newInputStream(idle));
            byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
            AdminFrames.write(Channels.newOutputStream(idle), AdminFrames.COMMAND, hello, 0, hello.length);
            while (AdminFrames.read(in).type() != AdminFrames.EXIT) {
                // the answer: the session is served, and now idle
            }

            channel.deactivate();

            assertThat(AdminFrames.read(in)).as("end of stream").isNull();
        }
        assertThat(socket).doesNotExist();
        assertThat(home.resolve(AdminChannel.PATH_RECORD)).doesNotExist();
        Run none = client("hello");
        assertThat(none.exit).isEqualTo(2);
        assertThat(none.err).contains("no running node at");
        channel = new AdminChannel(processor, home); // for stop()
    }

    private Path socket() throws IOException {
        return Path.of(Files.readString(home.resolve(AdminChannel.PATH_RECORD)).trim());
    }

    private record Run(int exit, String out, String err) {
    }

    private Run client(String command) {
        return run(new ByteArrayInputStream(new byte[0]), "--home", home.toString(), "-c", command);
    }

    private Run interactive(String lines) {
        return run(new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8)), "--home", home.toString());
    }

    private static Run run(InputStream stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = AdminClient.run(args, stdin, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
