package tandem.shell.client;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import tandem.shell.admin.AdminChannel;
import tandem.shell.admin.AdminFrames;

/**
 * {@code bin/tandem shell}: runs Gogo commands on a running node through its local admin channel.
 *
 * <pre>
 * AdminClient --home DIR [-c COMMAND]
 * AdminClient --socket PATH [-c COMMAND]
 * </pre>
 *
 * With {@code -c} it runs one command and exits with its status (0 ok, 1 the command failed, 2 no node). Otherwise
 * it reads command lines from standard input, with a prompt when that is a terminal. Runs outside OSGi, on the JDK
 * alone.
 *
 * <p>A channel that the node closes before answering a command anything did not run it: the shell bundle went away
 * (stopped, updated or refreshed, perhaps by this session's previous line) while the session was idle. The client
 * then waits (up to {@value #RECONNECT_SECONDS} s) until the home records another socket that accepts, the bundle's
 * next revision, and sends the line again there, once, in a new session.
 */
public final class AdminClient {

    /** How long a client waits for the shell's next revision after its channel closed unanswered. */
    static final int RECONNECT_SECONDS = 10;

    private AdminClient() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err));
    }

    /**
     * Runs the client.
     *
     * @param stdin the command lines of an interactive session (without {@code -c})
     * @return the exit status: 0 ok, 1 the (last) command failed, 2 no node or the channel broke
     */
    public static int run(String[] args, InputStream stdin, PrintStream stdout, PrintStream stderr) {
        Path home = null;
        Path socket = null;
        String command = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--home" -> home = Path.of(value(args, ++i, "--home"));
                case "--socket" -> socket = Path.of(value(args, ++i, "--socket"));
                case "-c" -> command = value(args, ++i, "-c");
                default -> {
                    stderr.println("tandem shell: unknown argument " + args[i]);
                    stderr.println("usage: tandem shell [--home DIR | --socket PATH] [-c COMMAND]");
                    return 2;
                }
            }
        }
        if (socket == null && home == null) {
            stderr.println("tandem shell: give --home DIR or --socket PATH");
            return 2;
        }
        try (Connection connection = new Connection(home, socket, stdout, stderr)) {
            if (command != null) {
                return connection.execute(command);
            }
            return interactive(connection, stdin, stdout);
        } catch (IOException e) {
            stderr.println("tandem shell: " + e.getMessage());
            return 2;
        }
    }

    private static int interactive(Connection connection, InputStream stdin, PrintStream stdout)
            throws IOException {
        boolean tty = System.console() != null;
        BufferedReader lines = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        int status = 0;
        while (true) {
            if (tty) {
                stdout.print("tandem> ");
                stdout.flush();
            }
            String line = lines.readLine();
            if (line == null) {
                return status;
            }
            if (line.isBlank()) {
                continue;
            }
            if (line.trim().equals("exit") || line.trim().equals("quit")) {
                return status;
            }
            status = connection.execute(line);
        }
    }

    /** The channel to the node, opened again (once per command) when the node closed it before answering. */
    private static final class Connection implements AutoCloseable {

        private final Path home;
        private final Path givenSocket;
        private final PrintStream stdout;
        private final PrintStream stderr;
        private Path socket;
        private SocketChannel channel;
        private DataInputStream in;
        private OutputStream out;

        Connection(Path home, Path socket, PrintStream stdout, PrintStream stderr) throws IOException {
            this.home = home;
            this.givenSocket = socket;
            this.stdout = stdout;
            this.stderr = stderr;
            open();
        }

        private void open() throws IOException {
            socket = givenSocket != null ? givenSocket : recorded();
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                c.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                c.close();
                throw new IOException("cannot connect to " + socket + ": " + e.getMessage());
            }
            channel = c;
            in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(c)));
            out = Channels.newOutputStream(c);
        }

        private Path recorded() throws IOException {
            Path record = home.resolve(AdminChannel.PATH_RECORD);
            try {
                return Path.of(Files.readString(record).trim());
            } catch (NoSuchFileException e) {
                throw new IOException("no running node at " + home + " (" + record + " is missing)");
            }
        }

        /** Opens the channel again, on the next revision's socket once the home records one that accepts. */
        private void reopen() throws IOException {
            channel.close();
            Path closed = socket;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RECONNECT_SECONDS);
            while (true) {
                try {
                    if (givenSocket != null || !recorded().equals(closed)) {
                        open();
                        return;
                    }
                } catch (IOException e) {
                    if (System.nanoTime() - deadline > 0) {
                        throw e;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("the node closed the admin channel " + closed + " and recorded no other "
                            + "within " + RECONNECT_SECONDS + " s");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // the next revision is activating
            }
        }

        int execute(String command) throws IOException {
            byte[] bytes = command.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > AdminFrames.MAX_PAYLOAD) {
                stderr.println("tandem shell: command longer than " + AdminFrames.MAX_PAYLOAD + " bytes");
                return 1;
            }
            Integer status = send(bytes);
            if (status == null) {
                reopen();
                status = send(bytes);
                if (status == null) {
                    throw new IOException("the node closed the admin channel");
                }
            }
            return status;
        }

        /** @return the command's exit status, or null when the node closed the channel before answering anything */
        private Integer send(byte[] command) throws IOException {
            try {
                AdminFrames.write(out, AdminFrames.COMMAND, command, 0, command.length);
            } catch (IOException e) {
                return null; // closed by the node while idle: the line was not run
            }
            return AdminClient.answer(in, stdout, stderr);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** @return the command's exit status, or null when the channel ended before any answer */
    private static Integer answer(DataInputStream in, PrintStream stdout, PrintStream stderr) throws IOException {
        // progress lines only on a terminal, rewritten in place; piped output stays the command's result alone
        boolean terminal = System.console() != null;
        boolean progressShown = false;
        boolean answered = false;
        while (true) {
            AdminFrames.Frame frame;
            try {
                frame = AdminFrames.read(in);
            } catch (IOException e) {
                if (answered) {
                    throw e;
                }
                frame = null; // reset: the node closed the idle session with the line unread
            }
            if (frame == null) {
                if (!answered) {
                    return null;
                }
                throw new IOException("the node closed the admin channel");
            }
            answered = true;
            if (progressShown && frame.type() != AdminFrames.PROGRESS) {
                stderr.print("\r\033[K");
                progressShown = false;
            }
            switch (frame.type()) {
                case AdminFrames.OUT -> stdout.write(frame.payload());
                case AdminFrames.ERR -> stderr.write(frame.payload());
                case AdminFrames.PROGRESS -> {
                    if (terminal) {
                        stderr.print("\r\033[K" + new String(frame.payload(), StandardCharsets.UTF_8));
                        stderr.flush();
                        progressShown = true;
                    }
                }
                case AdminFrames.EXIT -> {
                    stdout.flush();
                    stderr.flush();
                    return frame.payload().length == 1 ? (int) frame.payload()[0] : 1;
                }
                default -> throw new IOException("unexpected frame type " + frame.type());
            }
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
