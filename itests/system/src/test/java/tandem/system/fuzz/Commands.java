package tandem.system.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Commands as lists of arguments, and their RESP2 encoding. */
final class Commands {

    private Commands() {
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static List<byte[]> of(String... args) {
        List<byte[]> out = new ArrayList<>(args.length);
        for (String a : args) {
            out.add(b(a));
        }
        return out;
    }

    static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** The command's name in lower case. */
    static String name(List<byte[]> command) {
        return command.isEmpty() ? "" : s(command.get(0)).toLowerCase(Locale.ROOT);
    }

    /** The command's second argument in lower case (a subcommand or option), or "". */
    static String arg(List<byte[]> command, int i) {
        return command.size() > i ? s(command.get(i)).toLowerCase(Locale.ROOT) : "";
    }

    /** Writes {@code commands} in RESP2 to {@code out} without building the whole request in memory. */
    static void write(java.io.OutputStream out, List<List<byte[]>> commands) throws java.io.IOException {
        for (List<byte[]> c : commands) {
            out.write(b("*" + c.size() + "\r\n"));
            for (byte[] a : c) {
                out.write(b("$" + a.length + "\r\n"));
                out.write(a);
                out.write(CRLF);
            }
        }
    }

    private static final byte[] CRLF = {'\r', '\n'};

    static byte[] encode(List<List<byte[]>> commands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (List<byte[]> c : commands) {
            out.writeBytes(b("*" + c.size() + "\r\n"));
            for (byte[] a : c) {
                out.writeBytes(b("$" + a.length + "\r\n"));
                out.writeBytes(a);
                out.writeBytes(b("\r\n"));
            }
        }
        return out.toByteArray();
    }

    static String show(List<byte[]> command) {
        return Escape.command(command, 200);
    }
}
