package tandem.shell.client;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
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
 */
public final class AdminClient {

    private AdminClient() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream stdout, PrintStream stderr) {
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
        try {
            if (socket == null) {
                if (home == null) {
                    stderr.println("tandem shell: give --home DIR or --socket PATH");
                    return 2;
                }
                Path record = home.resolve(AdminChannel.PATH_RECORD);
                try {
                    socket = Path.of(Files.readString(record).trim());
                } catch (NoSuchFileException e) {
                    stderr.println("tandem shell: no running node at " + home + " (" + record + " is missing)");
                    return 2;
                }
            }
            try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                try {
                    channel.connect(UnixDomainSocketAddress.of(socket));
                } catch (IOException e) {
                    stderr.println("tandem shell: cannot connect to " + socket + ": " + e.getMessage());
                    return 2;
                }
                DataInputStream in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel)));
                OutputStream out = Channels.newOutputStream(channel);
                if (command != null) {
                    return execute(command, in, out, stdout, stderr);
                }
                return interactive(in, out, stdout, stderr);
            }
        } catch (IOException e) {
            stderr.println("tandem shell: " + e.getMessage());
            return 2;
        }
    }

    private static int interactive(DataInputStream in, OutputStream out, PrintStream stdout, PrintStream stderr)
            throws IOException {
        boolean tty = System.console() != null;
        BufferedReader lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
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
            status = execute(line, in, out, stdout, stderr);
        }
    }

    private static int execute(String command, DataInputStream in, OutputStream out, PrintStream stdout,
            PrintStream stderr) throws IOException {
        byte[] bytes = command.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > AdminFrames.MAX_PAYLOAD) {
            stderr.println("tandem shell: command longer than " + AdminFrames.MAX_PAYLOAD + " bytes");
            return 1;
        }
        AdminFrames.write(out, AdminFrames.COMMAND, bytes, 0, bytes.length);
        // progress lines only on a terminal, rewritten in place; piped output stays the command's result alone
        boolean terminal = System.console() != null;
        boolean progressShown = false;
        while (true) {
            AdminFrames.Frame frame = AdminFrames.read(in);
            if (frame == null) {
                throw new IOException("the node closed the admin channel");
            }
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
                    return frame.payload().length == 1 ? frame.payload()[0] : 1;
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
