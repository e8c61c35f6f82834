package tandem.protocol.command;

/**
 * Redis' glob matching ({@code stringmatchlen}) over bytes: {@code *}, {@code ?}, {@code [abc]}, {@code [^a-z]}
 * and {@code \} escapes, for {@code KEYS}, {@code SCAN MATCH} and {@code CONFIG GET}. Bytes compare as C's signed
 * {@code char}, and case folding is ASCII only, as C's {@code tolower}. Written here because
 * {@link java.nio.file.PathMatcher} globs treat {@code /}, braces and escapes differently.
 */
public final class Glob {

    /** Redis' bound on nested {@code *} (CVE-2024-31228): deeper, the pattern does not match. */
    private static final int MAX_NESTING = 1000;

    private Glob() {
    }

    public static boolean matches(byte[] pattern, byte[] string, boolean nocase) {
        if (string.length == 0) {
            return pattern.length == 0; // stringmatchlen's loop never runs: not even "*" matches ""
        }
        return match(pattern, 0, string, 0, nocase, new boolean[1], 0);
    }

    /** The same over the ISO-8859-1 bytes of two strings (parameter names, for {@code CONFIG GET}). */
    public static boolean matches(String pattern, String string, boolean nocase) {
        return matches(pattern.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                string.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), nocase);
    }

    /** True for the pattern {@code *}, which KEYS and SCAN treat as "everything" without matching. */
    public static boolean isMatchAll(byte[] pattern) {
        return pattern.length == 1 && pattern[0] == '*';
    }

    /**
     * @param skipLonger set once the rest of the pattern after some {@code *} matched nowhere in the rest of the
     *                   string: then no earlier {@code *} can do better by matching more, so every pending attempt
     *                   ends at once. With it, and the nesting bound, a pattern's cost is polynomial in its length
     *                   and the string's, never exponential (Redis 7.0.9's fix for CVE-2022-36021, and the bound of
     *                   CVE-2024-31228 that Redis 7.0.15 as Debian ships it has too)
     * @param nesting    how many {@code *} enclose this call: past {@value #MAX_NESTING}, no match, as in Redis
     */
    private static boolean match(byte[] p, int pi, byte[] s, int si, boolean nocase, boolean[] skipLonger,
            int nesting) {
        if (nesting > MAX_NESTING) {
            return false;
        }
        while (pi < p.length) {
            byte pc = p[pi];
            switch (pc) {
                case '*' -> {
                    while (pi + 1 < p.length && p[pi + 1] == '*') {
                        pi++;
                    }
                    if (pi + 1 == p.length) {
                        return true;
                    }
                    for (int k = si; k <= s.length; k++) {
                        if (match(p, pi + 1, s, k, nocase, skipLonger, nesting + 1)) {
                            return true;
                        }
                        if (skipLonger[0]) {
                            return false;
                        }
                    }
                    skipLonger[0] = true;
                    return false;
                }
                case '?' -> {
                    if (si >= s.length) {
                        return false;
                    }
                    si++;
                }
                case '[' -> {
                    if (si >= s.length) {
                        return false;
                    }
                    pi++;
                    boolean not = pi < p.length && p[pi] == '^';
                    if (not) {
                        pi++;
                    }
                    boolean found = false;
                    byte c = fold(s[si], nocase);
                    while (pi < p.length && p[pi] != ']') {
                        if (p[pi] == '\\' && pi + 1 < p.length) {
                            pi++;
                            found |= p[pi] == s[si]; // Redis compares an escape exactly
                        } else if (pi + 2 < p.length && p[pi + 1] == '-') {
                            byte lo = p[pi];
                            byte hi = p[pi + 2];
                            if (lo > hi) { // Redis swaps the raw bounds, then lowers them
                                byte t = lo;
                                lo = hi;
                                hi = t;
                            }
                            found |= c >= fold(lo, nocase) && c <= fold(hi, nocase);
                            pi += 2;
                        } else {
                            found |= fold(p[pi], nocase) == c;
                        }
                        pi++;
                    }
                    if (pi >= p.length) {
                        pi--; // an unterminated class ends the pattern, as in Redis
                    }
                    if (found == not) {
                        return false;
                    }
                    si++;
                }
                case '\\' -> {
                    if (pi + 1 < p.length) {
                        pi++;
                    }
                    if (si >= s.length || fold(p[pi], nocase) != fold(s[si], nocase)) {
                        return false;
                    }
                    si++;
                }
                default -> {
                    if (si >= s.length || fold(pc, nocase) != fold(s[si], nocase)) {
                        return false;
                    }
                    si++;
                }
            }
            pi++;
        }
        return si == s.length;
    }

    private static byte fold(byte c, boolean nocase) {
        return nocase && c >= 'A' && c <= 'Z' ? (byte) (c + ('a' - 'A')) : c;
    }
}
