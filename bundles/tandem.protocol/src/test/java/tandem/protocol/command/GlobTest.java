package tandem.protocol.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Glob} against Redis 7.0's {@code stringmatchlen}. */
class GlobTest {

    @Test
    @Timeout(10)
    void literals() {
        assertMatch("save", "save", false, true);
        assertMatch("save", "SAVE", false, false);
        assertMatch("save", "SAVE", true, true);
        assertMatch("save", "saves", false, false);
        assertMatch("saves", "save", false, false);
        assertMatch("", "", false, true);
        assertMatch("", "a", false, false);
    }

    @Test
    @Timeout(10)
    void star() {
        assertMatch("*", "anything", false, true);
        assertMatch("max*", "maxclients", false, true);
        assertMatch("max*", "max", false, true);
        assertMatch("*clients", "maxclients", false, true);
        assertMatch("m*c*s", "maxclients", false, true);
        assertMatch("m*x*z", "maxclients", false, false);
        assertMatch("a**b", "ab", false, true);
        assertMatch("a*", "b", false, false);
        assertMatch("a*b*", "ab", false, true);
        assertMatch("*a*", "bab", false, true);
        assertMatch("a*?", "a", false, false);
    }

    @Test
    @Timeout(10)
    void emptyStringMatchesOnlyTheEmptyPattern() {
        // stringmatchlen's loop never runs on an empty string, so even "*" does not match it
        assertMatch("*", "", false, false);
        assertMatch("**", "", false, false);
        assertMatch("?", "", false, false);
    }

    @Test
    @Timeout(10)
    void questionMark() {
        assertMatch("?", "a", false, true);
        assertMatch("?", "ab", false, false);
        assertMatch("a?c", "abc", false, true);
        assertMatch("a?c", "ac", false, false);
    }

    @Test
    @Timeout(10)
    void classes() {
        assertMatch("h[ae]llo", "hello", false, true);
        assertMatch("h[ae]llo", "hallo", false, true);
        assertMatch("h[ae]llo", "hillo", false, false);
        assertMatch("h[^e]llo", "hallo", false, true);
        assertMatch("h[^e]llo", "hello", false, false);
        assertMatch("h[a-b]llo", "hbllo", false, true);
        assertMatch("h[b-a]llo", "hbllo", false, true); // reversed range
        assertMatch("h[a-b]llo", "hcllo", false, false);
        assertMatch("[A-Z]", "q", true, true);
        assertMatch("[A-Z]", "q", false, false);
        assertMatch("[a\\]]", "]", false, true);
        assertMatch("[\\-]", "-", false, true);
        assertMatch("[a-]", "]", false, true); // "a-]" is the range a..] , swapped
        assertMatch("[", "a", false, false);
        assertMatch("[^", "a", false, true); // an unterminated class ends the pattern
        assertMatch("[abc", "b", false, true);
        assertMatch("[]", "a", false, false);
    }

    @Test
    @Timeout(10)
    void classesWithNocaseFollowRedisOrderOfOperations() {
        // the range is swapped on the raw bytes, then lowered: Z-a becomes z..a, which matches nothing
        assertMatch("[Z-a]", "b", true, false);
        assertMatch("[a-Z]", "b", true, false);
        // an escaped character inside a class is compared exactly even with nocase
        assertMatch("[\\A]", "a", true, false);
        assertMatch("[\\A]", "A", true, true);
    }

    @Test
    @Timeout(10)
    void nocaseIsAsciiOnly() {
        assertMatch("\u00e9", "\u00c9", true, false);
        assertMatch("\u00e9", "\u00e9", true, true);
        assertMatch("A", "a", true, true);
    }

    @Test
    @Timeout(10)
    void escapes() {
        assertMatch("\\*", "*", false, true);
        assertMatch("\\*", "a", false, false);
        assertMatch("\\?", "?", false, true);
        assertMatch("a\\", "a\\", false, true); // trailing backslash is literal
        assertMatch("\\a", "a", false, true);
        assertMatch("\\A", "a", true, true);
    }

    @Test
    @Timeout(10)
    void agreesWithTranscribedRedisImplementation() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String patternAlphabet = "aAbB*?[]^-\\z";
        String stringAlphabet = "aAbB*?[]^-\\zZ";
        for (int n = 0; n < 200_000; n++) {
            String pattern = randomString(random, patternAlphabet, 7);
            String string = randomString(random, stringAlphabet, 6);
            boolean nocase = random.nextBoolean();
            assertThat(Glob.matches(pattern, string, nocase))
                    .as("pattern '%s' string '%s' nocase %s (seed %d)", pattern, string, nocase, seed)
                    .isEqualTo(RedisStringmatch.matches(pattern, string, nocase));
        }
    }

    /**
     * The patterns of Redis' own regression tests for CVE-2022-36021 and CVE-2024-31228: without the early exit the
     * first takes about 2^20 attempts per key, the second recurses 50,000 deep. Both end at once and match nothing.
     */
    @Test
    @Timeout(10)
    void abusivePatternsEndAtOnceAndMatchNothing() {
        assertMatch("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(40), false, false);
        assertMatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(64), true, false);
        assertMatch("*?".repeat(50_000), "a".repeat(50_000), false, false);
        assertMatch("*a".repeat(999), "a".repeat(999), false, true); // within the bound: a real match
    }

    private static String randomString(Random random, String alphabet, int maxLength) {
        int length = random.nextInt(maxLength + 1);
        StringBuilder sb = new StringBuilder(length);
        for (int k = 0; k < length; k++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private static void assertMatch(String pattern, String string, boolean nocase, boolean expected) {
        assertThat(Glob.matches(pattern, string, nocase))
                .as("Glob.matches(\"%s\", \"%s\", nocase=%s)", pattern, string, nocase).isEqualTo(expected);
        assertThat(RedisStringmatch.matches(pattern, string, nocase))
                .as("reference stringmatchlen(\"%s\", \"%s\", nocase=%s)", pattern, string, nocase)
                .isEqualTo(expected);
    }

    /**
     * A line-by-line transcription of {@code stringmatchlen} from Redis 7.0's util.c over NUL-terminated ASCII
     * strings (index past the end reads as NUL), used as the oracle: 7.0.9's {@code skipLongerMatches} and the
     * nesting bound of CVE-2024-31228 included, as in Debian's 7.0.15.
     */
    private static final class RedisStringmatch {

        static boolean matches(String pattern, String string, boolean nocase) {
            return match(pattern, 0, pattern.length(), string, 0, string.length(), nocase, new boolean[1], 0);
        }

        private static int at(String s, int i) {
            return i < s.length() ? s.charAt(i) : 0;
        }

        private static int tolower(int c) {
            return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
        }

        private static boolean match(String p, int pi, int patternLen, String s, int si, int stringLen,
                boolean nocase, boolean[] skipLongerMatches, int nesting) {
            if (nesting > 1000) {
                return false;
            }
            while (patternLen > 0 && stringLen > 0) {
                switch (at(p, pi)) {
                    case '*' -> {
                        while (patternLen > 0 && at(p, pi + 1) == '*') {
                            pi++;
                            patternLen--;
                        }
                        if (patternLen == 1) {
                            return true;
                        }
                        while (stringLen > 0) {
                            if (match(p, pi + 1, patternLen - 1, s, si, stringLen, nocase, skipLongerMatches,
                                    nesting + 1)) {
                                return true;
                            }
                            if (skipLongerMatches[0]) {
                                return false;
                            }
                            si++;
                            stringLen--;
                        }
                        skipLongerMatches[0] = true;
                        return false;
                    }
                    case '?' -> {
                        si++;
                        stringLen--;
                    }
                    case '[' -> {
                        pi++;
                        patternLen--;
                        boolean not = at(p, pi) == '^';
                        if (not) {
                            pi++;
                            patternLen--;
                        }
                        boolean match = false;
                        while (true) {
                            if (at(p, pi) == '\\' && patternLen >= 2) {
                                pi++;
                                patternLen--;
                                if (at(p, pi) == at(s, si)) {
                                    match = true;
                                }
                            } else if (at(p, pi) == ']') {
                                break;
                            } else if (patternLen == 0) {
                                pi--;
                                patternLen++;
                                break;
                            } else if (patternLen >= 3 && at(p, pi + 1) == '-') {
                                int start = at(p, pi);
                                int end = at(p, pi + 2);
                                int c = at(s, si);
                                if (start > end) {
                                    int t = start;
                                    start = end;
                                    end = t;
                                }
                                if (nocase) {
                                    start = tolower(start);
                                    end = tolower(end);
                                    c = tolower(c);
                                }
                                pi += 2;
                                patternLen -= 2;
                                if (c >= start && c <= end) {
                                    match = true;
                                }
                            } else if (!nocase) {
                                if (at(p, pi) == at(s, si)) {
                                    match = true;
                                }
                            } else if (tolower(at(p, pi)) == tolower(at(s, si))) {
                                match = true;
                            }
                            pi++;
                            patternLen--;
                        }
                        if (not) {
                            match = !match;
                        }
                        if (!match) {
                            return false;
                        }
                        si++;
                        stringLen--;
                    }
                    default -> {
                        if (at(p, pi) == '\\' && patternLen >= 2) {
                            pi++;
                            patternLen--;
                        }
                        if (!nocase ? at(p, pi) != at(s, si) : tolower(at(p, pi)) != tolower(at(s, si))) {
                            return false;
                        }
                        si++;
                        stringLen--;
                    }
                }
                pi++;
                patternLen--;
                if (stringLen == 0) {
                    while (at(p, pi) == '*') {
                        pi++;
                        patternLen--;
                    }
                    break;
                }
            }
            return patternLen == 0 && stringLen == 0;
        }
    }
}
