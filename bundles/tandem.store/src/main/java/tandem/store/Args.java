package tandem.store;

import java.nio.charset.StandardCharsets;

/** Small helpers over raw command arguments. */
final class Args {

    private Args() {
    }

    /** ASCII case-insensitive comparison with a lower-case keyword, as C's {@code strcasecmp}. */
    static boolean is(byte[] arg, String lowerKeyword) {
        if (arg.length != lowerKeyword.length()) {
            return false;
        }
        for (int i = 0; i < arg.length; i++) {
            int c = arg[i];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != lowerKeyword.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The lower-case ASCII form of a command name. */
    static String lower(byte[] name) {
        char[] c = new char[name.length];
        for (int i = 0; i < name.length; i++) {
            int b = name[i] & 0xff;
            c[i] = (char) (b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b);
        }
        return new String(c);
    }

    /** For messages that quote an argument, as Redis prints it with {@code %s}. */
    static String text(byte[] arg) {
        int end = 0;
        while (end < arg.length && arg[end] != 0) {
            end++; // C strings stop at the first NUL
        }
        return new String(arg, 0, end, StandardCharsets.ISO_8859_1);
    }

    /**
     * A SCAN cursor as Redis' {@code parseScanCursorOrReply} reads it ({@code strtoul}, base 10): no leading
     * space, an optional sign (a negative value wraps, as in C), digits to the end (a C string: the first NUL ends
     * it), no overflow; the empty string is 0.
     */
    static long cursor(byte[] arg) {
        CommandError invalid = new CommandError("ERR invalid cursor");
        byte[] s = java.util.Arrays.copyOf(arg, Args.text(arg).length()); // strtoul stops at a NUL, as at the end
        if (s.length == 0) {
            return 0;
        }
        if (isSpace(s[0])) {
            throw invalid;
        }
        int i = 0;
        boolean negative = false;
        if (s[0] == '+' || s[0] == '-') {
            negative = s[0] == '-';
            i++;
        }
        if (i == s.length) {
            throw invalid;
        }
        long v = 0;
        for (; i < s.length; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9) {
                throw invalid;
            }
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                throw invalid; // ERANGE
            }
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == 0x0b || b == '\f' || b == '\r';
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The indexes {@code start..end} (a negative one counts from the end) of a sequence of {@code length} elements,
     * as LRANGE, LTRIM and ZRANGE read them: {start, end} within the sequence, or null when they select nothing.
     */
    static long[] indexRange(long start, long end, long length) {
        if (start < 0) {
            start += length;
        }
        if (end < 0) {
            end += length;
        }
        if (start < 0) {
            start = 0;
        }
        if (start > end || start >= length) {
            return null;
        }
        return new long[] {start, Math.min(end, length - 1)};
    }
}
