package tandem.protocol.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link InlineSplitter} against the rules of Redis' {@code sdssplitargs}. */
class InlineSplitterTest {

    @Test
    @Timeout(10)
    void blanksSeparateArguments() {
        assertSplits("SET key value", "SET", "key", "value");
        assertSplits("  SET\t key \t value  ", "SET", "key", "value");
        assertSplits("a\rb\nc", "a", "b", "c");
    }

    @Test
    @Timeout(10)
    void blankLineGivesNoArguments() {
        assertSplits("");
        assertSplits("   \t  ");
        assertSplits("\u000b\f ");
    }

    @Test
    @Timeout(10)
    void verticalTabAndFormFeedAreSkippedBetweenButNotInsideArguments() {
        // sdssplitargs skips isspace() blanks before a token, but ends an unquoted token only on ' ', \n, \r, \t
        assertSplits("\u000ba\u000bb\f", "a\u000bb\f");
    }

    @Test
    @Timeout(10)
    void doubleQuotes() {
        assertSplits("\"foo bar\" baz", "foo bar", "baz");
        assertSplits("\"\"", "");
        assertSplits("\"\" ''", "", "");
        assertSplits("\"a\"\t\"b\"", "a", "b");
    }

    @Test
    @Timeout(10)
    void doubleQuoteEscapes() {
        assertSplits("\"\\n\\r\\t\\b\\a\\\\\\\"\\q\"", "\n\r\t\b\u0007\\\"q");
    }

    @Test
    @Timeout(10)
    void hexEscapes() {
        assertSplits("\"\\x41\\x4a\\x7A\\xff\\x00\"", "AJz\u00ff\0");
        assertSplits("\"\\xZZ\"", "xZZ"); // not hex: the backslash escapes the x
        assertSplits("\"\\x4\"", "x4");
        assertSplits("\"\\x4g\"", "x4g");
    }

    @Test
    @Timeout(10)
    void singleQuotes() {
        assertSplits("'it\\'s' x", "it's", "x");
        assertSplits("'a\\nb \"c\"'", "a\\nb \"c\"");
        assertSplits("'a\\\\b'", "a\\\\b"); // only \' is an escape inside single quotes
        assertUnbalanced("'\\\\'"); // the second backslash escapes the closing quote
    }

    @Test
    @Timeout(10)
    void quoteInsideUnquotedTokenStartsQuoting() {
        assertSplits("foo\"bar baz\" qux", "foobar baz", "qux");
        assertSplits("a'b c'", "ab c");
    }

    @Test
    @Timeout(10)
    void unbalancedQuotes() {
        assertUnbalanced("\"foo");
        assertUnbalanced("'foo");
        assertUnbalanced("\"foo\\\"");      // escaped closing quote
        assertUnbalanced("\"foo\\");        // trailing backslash
        assertUnbalanced("'foo\\'");
        assertUnbalanced("\"foo\"bar");     // closing quote must be followed by a blank
        assertUnbalanced("'foo'bar");
        assertUnbalanced("SET \"a\"\"b\"");
    }

    @Test
    @Timeout(10)
    void closingQuoteMayBeFollowedByAnyIsspace() {
        assertSplits("\"a\"\u000bb", "a", "b");
        assertSplits("'a'\fb", "a", "b");
    }

    @Test
    @Timeout(10)
    void nulEndsTheLineAsInC() {
        assertSplits("PING\0garbage", "PING");
        assertSplits("\"unterminated\0\"", (String[]) null);
        assertSplits("\0\"");
    }

    @Test
    @Timeout(10)
    void nonAsciiBytesArePreserved() {
        assertSplits("\u00e9t\u00e9 \u00ff", "\u00e9t\u00e9", "\u00ff");
    }

    private static void assertUnbalanced(String line) {
        assertThat(InlineSplitter.split(bytes(line))).as("split(%s)", line).isNull();
    }

    private static void assertSplits(String line, String... expected) {
        byte[][] args = InlineSplitter.split(bytes(line));
        if (expected == null) {
            assertThat(args).as("split(%s)", line).isNull();
            return;
        }
        assertThat(args).as("split(%s)", line).isNotNull();
        List<String> actual = new ArrayList<>();
        for (byte[] arg : args) {
            actual.add(new String(arg, StandardCharsets.ISO_8859_1));
        }
        assertThat(actual).as("split(%s)", line).containsExactly(expected);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
