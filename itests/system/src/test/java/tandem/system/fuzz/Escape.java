package tandem.system.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Printable renderings of binary commands and replies, as {@code redis-cli} quotes them. */
public final class Escape {

    private Escape() {
    }

    /** The bytes with {@code \r \n \t \" \\} escaped and other non-printable bytes as {@code \xNN}. */
    public static String bytes(byte[] b, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.length; i++) {
            if (sb.length() >= max) {
                return sb + "…(" + b.length + " bytes)";
            }
            int c = b[i] & 0xff;
            switch (c) {
                case '\r' -> sb.append("\\r");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        sb.append((char) c);
                    } else {
                        sb.append(String.format("\\x%02x", c));
                    }
                }
            }
        }
        return sb.toString();
    }

    /**
     * A command as {@code redis-cli} accepts it on its command line: every argument that is empty or holds anything
     * but letters, digits and {@code -_.:*?[]{}+} in double quotes with escapes; a long argument shortened.
     */
    public static String command(List<byte[]> args, int maxArg) {
        StringBuilder sb = new StringBuilder();
        for (byte[] a : args) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            if (a.length > maxArg) {
                int period = period(a);
                if (period > 0) {
                    sb.append("\"").append(bytes(java.util.Arrays.copyOf(a, period), Integer.MAX_VALUE))
                            .append("\"×").append(a.length / period);
                } else {
                    sb.append("<").append(a.length).append(" bytes: \"").append(bytes(a, Math.min(maxArg, 24)))
                            .append("\"…>");
                }
                continue;
            }
            String plain = new String(a, StandardCharsets.ISO_8859_1);
            if (!plain.isEmpty() && plain.matches("[A-Za-z0-9_.:*?\\[\\]{}+\\-|]+")) {
                sb.append(plain);
            } else {
                sb.append('"').append(bytes(a, Integer.MAX_VALUE)).append('"');
            }
        }
        return sb.toString();
    }

    /** The shortest period (up to 16) of which {@code a} is a whole number of repetitions, or 0. */
    static int period(byte[] a) {
        for (int p = 1; p <= 16 && p < a.length; p++) {
            if (a.length % p != 0) {
                continue;
            }
            boolean ok = true;
            for (int i = p; i < a.length && ok; i++) {
                ok = a[i] == a[i - p];
            }
            if (ok) {
                return p;
            }
        }
        return 0;
    }
}
