package tandem.server.command;

/**
 * Redis' glob matching ({@code stringmatchlen}): {@code *}, {@code ?}, {@code [abc]}, {@code [^a-z]} and {@code \}
 * escapes. Written here because {@link java.nio.file.PathMatcher} globs treat {@code /}, braces and escapes
 * differently.
 */
public final class Glob {

    private Glob() {
    }

    public static boolean matches(String pattern, String string, boolean nocase) {
        if (string.isEmpty()) {
            return pattern.isEmpty(); // stringmatchlen's loop never runs: not even "*" matches ""
        }
        return match(pattern, 0, string, 0, nocase);
    }

    private static boolean match(String p, int pi, String s, int si, boolean nocase) {
        while (pi < p.length()) {
            char pc = p.charAt(pi);
            switch (pc) {
                case '*' -> {
                    while (pi + 1 < p.length() && p.charAt(pi + 1) == '*') {
                        pi++;
                    }
                    if (pi + 1 == p.length()) {
                        return true;
                    }
                    for (int k = si; k <= s.length(); k++) {
                        if (match(p, pi + 1, s, k, nocase)) {
                            return true;
                        }
                    }
                    return false;
                }
                case '?' -> {
                    if (si >= s.length()) {
                        return false;
                    }
                    si++;
                }
                case '[' -> {
                    if (si >= s.length()) {
                        return false;
                    }
                    pi++;
                    boolean not = pi < p.length() && p.charAt(pi) == '^';
                    if (not) {
                        pi++;
                    }
                    boolean found = false;
                    char c = fold(s.charAt(si), nocase);
                    while (pi < p.length() && p.charAt(pi) != ']') {
                        if (p.charAt(pi) == '\\' && pi + 1 < p.length()) {
                            pi++;
                            found |= p.charAt(pi) == s.charAt(si); // Redis compares an escape exactly
                        } else if (pi + 2 < p.length() && p.charAt(pi + 1) == '-') {
                            char lo = p.charAt(pi);
                            char hi = p.charAt(pi + 2);
                            if (lo > hi) { // Redis swaps the raw bounds, then lowers them
                                char t = lo;
                                lo = hi;
                                hi = t;
                            }
                            found |= c >= fold(lo, nocase) && c <= fold(hi, nocase);
                            pi += 2;
                        } else {
                            found |= fold(p.charAt(pi), nocase) == c;
                        }
                        pi++;
                    }
                    if (pi >= p.length()) {
                        pi--; // an unterminated class ends the pattern, as in Redis
                    }
                    if (found == not) {
                        return false;
                    }
                    si++;
                }
                case '\\' -> {
                    if (pi + 1 < p.length()) {
                        pi++;
                    }
                    if (si >= s.length() || fold(p.charAt(pi), nocase) != fold(s.charAt(si), nocase)) {
                        return false;
                    }
                    si++;
                }
                default -> {
                    if (si >= s.length() || fold(pc, nocase) != fold(s.charAt(si), nocase)) {
                        return false;
                    }
                    si++;
                }
            }
            pi++;
        }
        return si == s.length();
    }

    private static char fold(char c, boolean nocase) {
        return nocase && c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c; // C tolower(): ASCII only
    }
}
