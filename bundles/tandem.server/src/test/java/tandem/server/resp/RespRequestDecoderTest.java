package tandem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Golden vectors for {@link RespRequestDecoder}. Every input is fed whole, byte by byte, and in random fragments from
 * seeded {@link Random}s; all feeds must decode to exactly the same messages.
 */
class RespRequestDecoderTest {

    private static final int MAX = 1 << 20;
    private static final int BIG_INPUT = 16 * 1024;
    private static final int BIG_TAIL = 4 * 1024;

    /** Fixed seeds for reproducibility, plus one fresh seed per run (printed in every assertion message). */
    private static final long[] SEEDS = {1L, 42L, 0xC0FFEEL, System.nanoTime()};

    // ---- golden vectors --------------------------------------------------------------------------------------

    private static final String PING_MB = "*1\r\n$4\r\nPING\r\n";
    private static final String SET_MB = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n";
    private static final byte[] BINARY_MB = bytes("*2\r\n$4\r\nECHO\r\n$6\r\na\r\n\0\u00ffb\r\n");
    private static final String EMPTY_ARG_MB = "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n";
    /** Redis skips the two bytes after a bulk without looking at them. */
    private static final String BULK_TRAILER_NOT_CHECKED = "*1\r\n$4\r\nPINGxy*1\r\n$4\r\nPONG\r\n";
    /** ...and the byte after the CR of a header line. */
    private static final String HEADER_LF_NOT_CHECKED = "*1\rX$4\rYPING\r\n";
    private static final String INLINE_CRLF = "PING\r\n";
    private static final String INLINE_LF = "PING\n";
    private static final String INLINE_QUOTED =
            "SET \"foo bar\" 'it\\'s' \"\\x41\\x4a\\x7a\\n\\r\\t\\b\\a\\\\\\\"\" plain\r\n";
    private static final String INLINE_BLANKS = "\r\n\n   \r\n\t\n  ECHO   a  \r\n";
    private static final String EMPTY_MULTIBULK = "*0\r\n";
    private static final String NEGATIVE_MULTIBULK = "*-5\r\n";

    private static final String BAD_MULTIBULK = "*x\r\n";
    private static final String NEGATIVE_BULK = "*1\r\n$-1\r\n";
    private static final String HUGE_BULK = "*1\r\n$99999999999\r\n";
    private static final String PLUS_INSTEAD_OF_DOLLAR = "*1\r\n+foo\r\n";
    private static final String UNBALANCED_DOUBLE = "SET \"foo bar\r\n";
    private static final String UNBALANCED_SINGLE = "SET 'foo\r\n";
    private static final String QUOTE_NOT_FOLLOWED_BY_SPACE = "SET \"foo\"bar\r\n";

    private static final String ERR_MULTIBULK = "Protocol error: invalid multibulk length";
    private static final String ERR_BULK = "Protocol error: invalid bulk length";
    private static final String ERR_QUOTES = "Protocol error: unbalanced quotes in request";
    private static final String ERR_INLINE_TOO_BIG = "Protocol error: too big inline request";
    private static final String ERR_MBULK_TOO_BIG = "Protocol error: too big mbulk count string";
    private static final String ERR_BULK_COUNT_TOO_BIG = "Protocol error: too big bulk count string";

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void releaseAll() {
        for (EmbeddedChannel channel : channels) {
            channel.finishAndReleaseAll();
        }
        channels.clear();
    }

    // ---- multibulk ---------------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void multibulkPing() {
        assertDecodes(PING_MB, m("PING"));
    }

    @Test
    @Timeout(10)
    void multibulkSet() {
        assertDecodes(SET_MB, m("SET", "key", "value"));
    }

    @Test
    @Timeout(10)
    void bulkIsBinarySafe() {
        assertDecodes(BINARY_MB, m("ECHO", "a\r\n\0\u00ffb"));
    }

    @Test
    @Timeout(10)
    void emptyBulk() {
        assertDecodes(EMPTY_ARG_MB, m("ECHO", ""));
    }

    @Test
    @Timeout(10)
    void bytesAfterBulkAreSkippedUninspected() {
        assertDecodes(BULK_TRAILER_NOT_CHECKED, m("PING"), m("PONG"));
    }

    @Test
    @Timeout(10)
    void byteAfterHeaderCrIsSkippedUninspected() {
        assertDecodes(HEADER_LF_NOT_CHECKED, m("PING"));
    }

    @Test
    @Timeout(10)
    void pipelinedRequestsInOneBuffer() {
        assertDecodes(PING_MB + SET_MB + INLINE_CRLF + EMPTY_ARG_MB + PING_MB,
                m("PING"), m("SET", "key", "value"), i("PING"), m("ECHO", ""), m("PING"));
    }

    @Test
    @Timeout(10)
    void emptyAndNegativeMultibulkAreIgnored() {
        assertDecodes(EMPTY_MULTIBULK + PING_MB, m("PING"));
        assertDecodes(NEGATIVE_MULTIBULK + PING_MB, m("PING"));
        assertDecodes(EMPTY_MULTIBULK + NEGATIVE_MULTIBULK + "*-1\r\n" + INLINE_LF, i("PING"));
        assertDecodes(EMPTY_MULTIBULK);
    }

    @Test
    @Timeout(10)
    void hugeCountAllocatesNothingUpFront() {
        // INT_MAX is accepted; the argument list grows only with the arguments that actually arrive
        assertDecodes("*2147483647\r\n$4\r\nPING\r\n$1\r\nx\r\n");
    }

    @Test
    @Timeout(10)
    void multibulkCountAboveIntMaxIsInvalid() {
        assertDecodes("*2147483648\r\n" + PING_MB, err(ERR_MULTIBULK));
    }

    @Test
    @Timeout(10)
    void multibulkCountFollowsString2ll() {
        assertDecodes(BAD_MULTIBULK + PING_MB, err(ERR_MULTIBULK));
        assertDecodes("*\r\n" + PING_MB, err(ERR_MULTIBULK));
        assertDecodes("*-0\r\n" + PING_MB, err(ERR_MULTIBULK));
        assertDecodes("*01\r\n$4\r\nPING\r\n", err(ERR_MULTIBULK));
        assertDecodes("*+1\r\n$4\r\nPING\r\n", err(ERR_MULTIBULK));
        assertDecodes("* 1\r\n$4\r\nPING\r\n", err(ERR_MULTIBULK));
        assertDecodes("*1 \r\n$4\r\nPING\r\n", err(ERR_MULTIBULK));
    }

    @Test
    @Timeout(10)
    void protocolErrorDiscardsEverythingAfter() {
        assertDecodes(PING_MB + BAD_MULTIBULK + PING_MB + INLINE_CRLF + SET_MB, m("PING"), err(ERR_MULTIBULK));
    }

    @Test
    @Timeout(10)
    void negativeBulkLength() {
        assertDecodes(NEGATIVE_BULK + PING_MB, err(ERR_BULK));
    }

    @Test
    @Timeout(10)
    void bulkLengthTooLargeForALong() {
        assertDecodes(HUGE_BULK + "abc", err(ERR_BULK));
        assertDecodes("*1\r\n$99999999999999999999\r\n", err(ERR_BULK));
        assertDecodes("*1\r\n$04\r\nPING\r\n", err(ERR_BULK));
        assertDecodes("*1\r\n$\r\n" + PING_MB, err(ERR_BULK));
    }

    @Test
    @Timeout(10)
    void bulkLengthAboveConfiguredMax() {
        assertDecodes(1024, "*1\r\n$1025\r\n" + "x".repeat(1025) + "\r\n", err(ERR_BULK));
        assertDecodes(1024, "*1\r\n$1024\r\n" + "x".repeat(1024) + "\r\n", m("x".repeat(1024)));
    }

    @Test
    @Timeout(10)
    void maxIsReadAgainForEachRequest() {
        AtomicInteger max = new AtomicInteger(1024);
        EmbeddedChannel channel = channel(max::get);
        feed(channel, bytes("*1\r\n$1000\r\n" + "a".repeat(1000) + "\r\n"), Feed.WHOLE, null);
        assertThat(drain(channel)).containsExactly(m("a".repeat(1000)));
        max.set(100);
        feed(channel, bytes("*1\r\n$1000\r\n" + "a".repeat(1000) + "\r\n"), Feed.WHOLE, null);
        assertThat(drain(channel)).containsExactly(err(ERR_BULK));
    }

    @Test
    @Timeout(10)
    void expectedDollar() {
        assertDecodes(PLUS_INSTEAD_OF_DOLLAR + PING_MB, err("Protocol error: expected '$', got '+'"));
        assertDecodes("*2\r\n$4\r\nECHO\r\n:1\r\n", err("Protocol error: expected '$', got ':'"));
    }

    @Test
    @Timeout(10)
    void tooBigMultibulkCountString() {
        String exactlyMax = "*" + "1".repeat(RespRequestDecoder.MAX_INLINE_LENGTH - 1);
        assertDecodes(exactlyMax); // 64 KiB without CR is still waited for
        assertDecodes(exactlyMax + "1", err(ERR_MBULK_TOO_BIG));
        assertDecodes(exactlyMax + "\r\n", err(ERR_MULTIBULK)); // the line is complete: just not a number
    }

    @Test
    @Timeout(10)
    void tooBigBulkCountString() {
        String exactlyMax = "*1\r\n$" + "1".repeat(RespRequestDecoder.MAX_INLINE_LENGTH - 1);
        assertDecodes(exactlyMax);
        assertDecodes(exactlyMax + "2", err(ERR_BULK_COUNT_TOO_BIG));
    }

    @Test
    @Timeout(10)
    void tooBigInlineRequest() {
        String exactlyMax = "a".repeat(RespRequestDecoder.MAX_INLINE_LENGTH);
        assertDecodes(exactlyMax);
        assertDecodes(exactlyMax + "b", err(ERR_INLINE_TOO_BIG));
        String belowMax = "a".repeat(RespRequestDecoder.MAX_INLINE_LENGTH - 1);
        assertDecodes(belowMax + "\r\n", i(belowMax)); // "aaa...\r" is 64 KiB: still waited for
        // 64 KiB plus CRLF: accepted when the LF arrives in the same read, refused when 64 KiB + CR is pending
        // alone, exactly as in Redis, whose check looks only at what it holds without a newline
        check(MAX, bytes(exactlyMax + "\r\n"), Feed.WHOLE, null, new String[] {i(exactlyMax)});
        check(MAX, bytes(exactlyMax + "\r\n"), Feed.BYTE_BY_BYTE, null, new String[] {err(ERR_INLINE_TOO_BIG)});
    }

    @Test
    @Timeout(10)
    void requestLargerThanMaxIsClosedSilently() {
        StringBuilder request = new StringBuilder("*1000\r\n");
        for (int k = 0; k < 1000; k++) {
            request.append("$1\r\na\r\n");
        }
        assertDecodes(1024, request + PING_MB, silentErr());
        // just under the limit: 100 arguments of 7 bytes each plus the count line
        StringBuilder small = new StringBuilder("*100\r\n");
        String[] expected = new String[100];
        for (int k = 0; k < 100; k++) {
            small.append("$1\r\na\r\n");
            expected[k] = "a";
        }
        assertDecodes(1024, small.toString(), m(expected));
    }

    @Test
    @Timeout(10)
    void silentErrorHasNullReply() {
        EmbeddedChannel channel = channel(() -> 1024);
        StringBuilder request = new StringBuilder("*1000\r\n");
        for (int k = 0; k < 1000; k++) {
            request.append("$1\r\na\r\n");
        }
        feed(channel, bytes(request.toString()), Feed.WHOLE, null);
        Object msg = channel.readInbound();
        assertThat(msg).isInstanceOf(RespProtocolError.class);
        assertThat(((RespProtocolError) msg).reply()).isNull();
        assertThat(((RespProtocolError) msg).reason()).isNotBlank();
        assertThat((Object) channel.readInbound()).isNull();
    }

    /**
     * A client that must authenticate and has not is bounded as Redis bounds it: more than 10 arguments, or one of more
     * than 16384 bytes, is a protocol error before anything of it is kept; an AUTH in the same read lifts the bounds
     * for what follows it (the AUTH is decided after the read); an authenticated client is not bounded.
     */
    @Test
    @Timeout(10)
    void anUnauthenticatedClientIsBoundedAsRedisBoundsIt() {
        boolean[] authenticated = {false};
        String eleven = "*11\r\n" + "$1\r\na\r\n".repeat(11);
        String big = "*2\r\n$3\r\nSET\r\n$16385\r\n" + "x".repeat(16385) + "\r\n";
        for (Feed feed : Feed.values()) {
            EmbeddedChannel ch = new EmbeddedChannel(new RespRequestDecoder(() -> MAX, () -> authenticated[0]));
            channels.add(ch);
            feed(ch, bytes(eleven), feed, new java.util.Random(feed.ordinal()));
            assertThat(drain(ch)).as("%s", feed).containsExactly(err("Protocol error: unauthenticated multibulk length"));
            EmbeddedChannel ch2 = new EmbeddedChannel(new RespRequestDecoder(() -> MAX, () -> authenticated[0]));
            channels.add(ch2);
            feed(ch2, bytes(big), feed, new java.util.Random(feed.ordinal()));
            assertThat(drain(ch2)).as("%s", feed).containsExactly(err("Protocol error: unauthenticated bulk length"));
        }
        EmbeddedChannel pipelined = new EmbeddedChannel(new RespRequestDecoder(() -> MAX, () -> authenticated[0]));
        channels.add(pipelined);
        feed(pipelined, bytes("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n" + eleven), Feed.WHOLE, null);
        assertThat(drain(pipelined)).hasSize(2).doesNotContain(err("Protocol error: unauthenticated multibulk length"));
        authenticated[0] = true;
        EmbeddedChannel ch = new EmbeddedChannel(new RespRequestDecoder(() -> MAX, () -> authenticated[0]));
        channels.add(ch);
        feed(ch, bytes(eleven + big), Feed.WHOLE, null);
        assertThat(drain(ch)).hasSize(2);
    }

    @Test
    @Timeout(10)
    void protocolErrorCarriesReplyTextAndReason() {
        EmbeddedChannel channel = channel(() -> MAX);
        feed(channel, bytes(BAD_MULTIBULK), Feed.WHOLE, null);
        RespProtocolError error = channel.readInbound();
        assertThat(error.reply()).isEqualTo(ERR_MULTIBULK);
        assertThat(error.reason()).isNotBlank();
        feed(channel, bytes(PING_MB), Feed.WHOLE, null);
        assertThat((Object) channel.readInbound()).isNull();
    }

    /**
     * A peer declares a 500 MB argument (allowed by a 512 MB maximum) and sends ten bytes of it: nothing is emitted
     * and nothing of the declared size is allocated. The surefire heap is 384 MB, so allocating the declared length
     * would fail with OutOfMemoryError; the tracking allocator also shows that the cumulation stays small.
     */
    @Test
    @Timeout(10)
    void declaredLengthIsNeverAllocated() {
        TrackingAllocator allocator = new TrackingAllocator();
        EmbeddedChannel channel = channel(() -> 512 * 1024 * 1024);
        channel.config().setAllocator(allocator);
        assertThatCode(() -> {
            feed(channel, bytes("*2\r\n$4\r\nECHO\r\n$500000000\r\n"), Feed.BYTE_BY_BYTE, null);
            feed(channel, bytes("0123456789"), Feed.WHOLE, null);
            feed(channel, bytes("0123456789"), Feed.BYTE_BY_BYTE, null);
        }).doesNotThrowAnyException();
        assertThat(drain(channel)).isEmpty();
        assertThat(allocator.largestRequest).as("largest buffer the decoder asked for").isLessThan(64 * 1024);
    }

    // ---- inline ---------------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void inlineCrlfAndBareLf() {
        assertDecodes(INLINE_CRLF, i("PING"));
        assertDecodes(INLINE_LF, i("PING"));
        assertDecodes("PING\r\nPING\nECHO hi\r\n", i("PING"), i("PING"), i("ECHO", "hi"));
    }

    @Test
    @Timeout(10)
    void inlineQuotesAndEscapes() {
        assertDecodes(INLINE_QUOTED, i("SET", "foo bar", "it's", "AJz\n\r\t\b\u0007\\\"", "plain"));
    }

    @Test
    @Timeout(10)
    void inlineHexEscapeProducesRawByte() {
        assertDecodes("ECHO \"\\xff\\x00\\xAb\"\r\n", i("ECHO", "\u00ff\0\u00ab"));
    }

    @Test
    @Timeout(10)
    void blankLinesAreIgnored() {
        assertDecodes(INLINE_BLANKS, i("ECHO", "a"));
        assertDecodes("\r\n\r\n\n" + PING_MB, m("PING"));
    }

    @Test
    @Timeout(10)
    void inlineCrInsideLineSeparatesArguments() {
        assertDecodes("ECHO a\rb\r\n", i("ECHO", "a", "b"));
    }

    @Test
    @Timeout(10)
    void inlineNulEndsTheLine() {
        assertDecodes("PING\0 ignored\r\n", i("PING"));
    }

    @Test
    @Timeout(10)
    void inlineFollowedByMultibulk() {
        assertDecodes("ECHO 'a b'\n" + SET_MB + "PING\r\n", i("ECHO", "a b"), m("SET", "key", "value"), i("PING"));
    }

    @Test
    @Timeout(10)
    void unbalancedQuotes() {
        assertDecodes(UNBALANCED_DOUBLE + PING_MB, err(ERR_QUOTES));
        assertDecodes(UNBALANCED_SINGLE + PING_MB, err(ERR_QUOTES));
        assertDecodes(QUOTE_NOT_FOLLOWED_BY_SPACE + INLINE_CRLF, err(ERR_QUOTES));
        assertDecodes(INLINE_CRLF + UNBALANCED_DOUBLE + INLINE_CRLF, i("PING"), err(ERR_QUOTES));
    }

    // ---- feeding machinery ------------------------------------------------------------------------------------

    private enum Feed { WHOLE, BYTE_BY_BYTE, RANDOM }

    private void assertDecodes(String input, String... expected) {
        assertDecodes(MAX, bytes(input), expected);
    }

    private void assertDecodes(byte[] input, String... expected) {
        assertDecodes(MAX, input, expected);
    }

    private void assertDecodes(int max, String input, String... expected) {
        assertDecodes(max, bytes(input), expected);
    }

    private void assertDecodes(int max, byte[] input, String... expected) {
        check(max, input, Feed.WHOLE, null, expected);
        check(max, input, Feed.BYTE_BY_BYTE, null, expected);
        for (long seed : SEEDS) {
            check(max, input, Feed.RANDOM, new Random(seed), expected);
        }
    }

    private void check(int max, byte[] input, Feed mode, Random random, String[] expected) {
        EmbeddedChannel channel = channel(() -> max);
        String how = feed(channel, input, mode, random);
        assertThat(drain(channel)).as("decoding %s fed %s", abbreviate(input), how).containsExactly(expected);
    }

    /** @return how the input was cut, for assertion messages */
    private static String feed(EmbeddedChannel channel, byte[] input, Feed mode, Random random) {
        switch (mode) {
            case WHOLE -> {
                write(channel, input, 0, input.length);
                return "whole";
            }
            case BYTE_BY_BYTE -> {
                // The decoder rescans a pending header line on every read, as Redis' strchr() does, so feeding a
                // 64 KiB line one byte at a time costs O(n^2). For long inputs all but the last BIG_TAIL bytes go
                // in one write; the tail, which holds every 64 KiB boundary tested here, goes byte by byte.
                int head = input.length > BIG_INPUT ? input.length - BIG_TAIL : 0;
                if (head > 0) {
                    write(channel, input, 0, head);
                }
                for (int k = head; k < input.length; k++) {
                    write(channel, input, k, 1);
                }
                return head > 0 ? "byte by byte after a first write of " + head + " bytes" : "byte by byte";
            }
            default -> {
                long seed = random.nextLong();
                Random r = new Random(seed);
                int k = 0;
                while (k < input.length) {
                    int roll = r.nextInt(10);
                    int size = roll < 5 ? 1 + r.nextInt(3) : roll < 9 ? 4 + r.nextInt(29) : 1 + r.nextInt(input.length);
                    size = Math.min(size, input.length - k);
                    write(channel, input, k, size);
                    k += size;
                }
                return "in random fragments, seed " + seed + " (new Random(seed) with sizes as in feed())";
            }
        }
    }

    private static void write(EmbeddedChannel channel, byte[] input, int from, int length) {
        ByteBuf buf = channel.alloc().buffer(length);
        buf.writeBytes(input, from, length);
        channel.writeInbound(buf);
    }

    private EmbeddedChannel channel(IntSupplier max) {
        EmbeddedChannel channel = new EmbeddedChannel(new RespRequestDecoder(max));
        channels.add(channel);
        return channel;
    }

    private static List<String> drain(EmbeddedChannel channel) {
        List<String> out = new ArrayList<>();
        for (Object msg = channel.readInbound(); msg != null; msg = channel.readInbound()) {
            out.add(describe(msg));
        }
        return out;
    }

    private static String describe(Object msg) {
        if (msg instanceof RespRequest request) {
            List<String> args = new ArrayList<>();
            for (byte[] arg : request.args()) {
                args.add(show(arg));
            }
            return (request.inline() ? "inline" : "multibulk") + args;
        }
        if (msg instanceof RespProtocolError error) {
            return "error(" + error.reply() + ")";
        }
        return "unexpected " + msg;
    }

    private static String m(String... args) {
        return "multibulk" + Arrays.stream(args).map(a -> show(bytes(a))).toList();
    }

    private static String i(String... args) {
        return "inline" + Arrays.stream(args).map(a -> show(bytes(a))).toList();
    }

    private static String err(String reply) {
        return "error(" + reply + ")";
    }

    private static String silentErr() {
        return "error(null)";
    }

    /** Printable ASCII as is, everything else as \xHH, long values abbreviated. */
    private static String show(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 0x20 && c < 0x7F && c != '\\') {
                sb.append((char) c);
            } else {
                sb.append(String.format("\\x%02x", c));
            }
        }
        return sb.length() > 200 ? sb.substring(0, 100) + "...(" + bytes.length + " bytes)" : sb.toString();
    }

    private static String abbreviate(byte[] input) {
        return show(input);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Records the largest buffer requested through it. */
    private static final class TrackingAllocator extends AbstractByteBufAllocator {

        int largestRequest;

        TrackingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            largestRequest = Math.max(largestRequest, initialCapacity);
            return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }
}
