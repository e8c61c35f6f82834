package tandem.server.resp;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import tandem.api.store.Reply;

/**
 * Writes RESP2 or RESP3 replies into a buffer that the connection flushes once per read batch. The connection
 * speaks RESP2 until {@code HELLO 3} sets {@link #protocol(int)}; the RESP3 types are written as Redis 7.0 writes
 * them ({@code %} map, {@code ~} set, {@code ,} double, {@code _} null, {@code =} verbatim, {@code >} push).
 *
 * <p>Not thread-safe; one per connection, re-targeted at each batch's buffer with {@link #target(ByteBuf)}.
 */
public final class RespWriter implements Reply {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VERBATIM_TXT = "txt:".getBytes(StandardCharsets.US_ASCII);

    private ByteBuf out;
    /**
     * Where a reply's header is put together, to reach the buffer in one write: each write to a buffer checks its
     * state and bounds, and a pipelined SET's whole reply is one such write.
     */
    private final byte[] header = new byte[24];
    private java.util.function.Consumer<String> errorSink;
    private long errors;
    /** 2 or 3; read by other threads of the connection ({@code CLIENT INFO}'s {@code resp=}). */
    private volatile int protocol = 2;

    /** {@code CLIENT REPLY}: how many whole replies to drop from the next on; {@link #ALL} while {@code OFF}. */
    private int dropping;
    private int droppingSaved;
    /** While a reply is being dropped: how many elements each of its open aggregates still waits for. */
    private long[] open = new long[8];
    private int depth;
    private static final int ALL = -1;

    /**
     * {@code CLIENT REPLY ON|OFF|SKIP}, called by the command before it replies: {@code OFF} drops every reply from
     * this one on, {@code SKIP} this one and the next, {@code ON} none (its own {@code +OK} is written).
     */
    public RespWriter replies(String mode) {
        dropping = switch (mode) {
            case "off" -> ALL;
            case "skip" -> 2;
            default -> 0;
        };
        return this;
    }

    /** Keeps the dropping state at a reply mark, for {@link #restoreMark()} when that reply is taken back. */
    public void saveMark() {
        droppingSaved = dropping;
    }

    /** The reply begun at the last mark was taken back: whatever it consumed of {@code SKIP} is owed again. */
    public void restoreMark() {
        depth = 0;
        dropping = droppingSaved;
    }

    /** @return true when this write belongs to a reply {@code CLIENT REPLY} drops (then it is only counted) */
    private boolean dropped(long elements) {
        if (dropping == 0) {
            return false;
        }
        if (elements > 0) {
            if (depth == open.length) {
                open = java.util.Arrays.copyOf(open, depth * 2);
            }
            open[depth++] = elements;
            return true;
        }
        while (depth > 0) { // one element ended: it may close the aggregates it completes
            if (--open[depth - 1] > 0) {
                return true;
            }
            depth--;
        }
        if (dropping > 0) {
            dropping--; // a whole reply dropped
        }
        return true;
    }

    /** Speaks {@code version} (2 or 3) from the next reply on. */
    public RespWriter protocol(int version) {
        this.protocol = version;
        return this;
    }

    @Override
    public int protocol() {
        return protocol;
    }

    /** Tells {@code sink} the text of every error reply written from now on ({@code INFO errorstats}). */
    public RespWriter errorSink(java.util.function.Consumer<String> sink) {
        this.errorSink = sink;
        return this;
    }

    /** @return how many error replies this writer has written */
    public long errors() {
        return errors;
    }

    /** Directs the following replies into {@code buffer}. */
    public RespWriter target(ByteBuf buffer) {
        this.out = buffer;
        return this;
    }

    /** {@code +text\r\n}; the text must not contain CR or LF. */
    @Override
    public RespWriter simple(String text) {
        if (dropping != 0 && dropped(0)) {
            return this;
        }
        if (text.equals("OK")) {
            out.writeBytes(OK);
            return this;
        }
        out.writeByte('+');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x100) {
                out.writeByte(c); // a script's status carries its bytes as Latin-1 chars: they go out as they came
            } else {
                out.writeCharSequence(String.valueOf(c), StandardCharsets.UTF_8);
            }
        }
        out.writeBytes(CRLF);
        return this;
    }

    /** {@code +OK\r\n}. */
    public RespWriter ok() {
        return simple("OK");
    }

    /**
     * An error reply. {@code text} starts with the error code ({@code ERR}, {@code NOAUTH}…); CR and LF inside it
     * become spaces, as Redis' {@code addReplyErrorFormat} does, so that a peer's bytes cannot break the framing.
     */
    @Override
    public RespWriter error(String text) {
        errors++;
        if (errorSink != null) {
            errorSink.accept(text);
        }
        if (dropping != 0 && dropped(0)) {
            return this; // counted as Redis counts it, not sent
        }
        out.writeByte('-');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' || c == '\n') {
                out.writeByte(' ');
            } else if (c < 0x100) {
                out.writeByte(c); // peer bytes arrive as Latin-1 chars: echo them raw, as Redis' %s does
            } else {
                out.writeCharSequence(String.valueOf(c), StandardCharsets.UTF_8);
            }
        }
        out.writeBytes(CRLF);
        return this;
    }

    /** {@code :n\r\n}. */
    @Override
    public RespWriter integer(long value) {
        if (dropping != 0 && dropped(0)) {
            return this;
        }
        writeHeader(':', value);
        return this;
    }

    /** {@code $len\r\nbytes\r\n}. */
    @Override
    public RespWriter bulk(byte[] value) {
        if (dropping != 0 && dropped(0)) {
            return this;
        }
        writeHeader('$', value.length);
        out.writeBytes(value);
        out.writeBytes(CRLF);
        return this;
    }

    /** A bulk string of the UTF-8 bytes of {@code value}. */
    public RespWriter bulk(String value) {
        return bulk(value.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code $-1\r\n}; RESP3 {@code _\r\n}. */
    @Override
    public RespWriter nullBulk() {
        if (dropping != 0 && dropped(0)) {
            return this;
        }
        out.writeBytes(protocol == 3 ? NULL : NULL_BULK);
        return this;
    }

    /** {@code *-1\r\n}; RESP3 {@code _\r\n}. */
    @Override
    public RespWriter nullArray() {
        if (dropping != 0 && dropped(0)) {
            return this;
        }
        out.writeBytes(protocol == 3 ? NULL : NULL_ARRAY);
        return this;
    }

    /** RESP3 {@code %pairs\r\n}; RESP2 {@code *(2 * pairs)\r\n}. */
    @Override
    public RespWriter map(int pairs) {
        if (dropping != 0 && dropped(2L * pairs)) {
            return this;
        }
        if (protocol == 3) {
            writeHeader('%', pairs);
        } else {
            writeHeader('*', 2L * pairs);
        }
        return this;
    }

    /** RESP3 {@code ~count\r\n}; RESP2 {@code *count\r\n}. */
    @Override
    public RespWriter set(int count) {
        if (dropping != 0 && dropped(count)) {
            return this;
        }
        writeHeader(protocol == 3 ? '~' : '*', count);
        return this;
    }

    /** RESP3 {@code ,text\r\n}; RESP2 a bulk string. */
    @Override
    public RespWriter doubleValue(byte[] text) {
        if (dropping != 0 && dropped(0)) {
            return this;
        }
        if (protocol != 3) {
            return bulk(text);
        }
        out.writeByte(',');
        out.writeBytes(text);
        out.writeBytes(CRLF);
        return this;
    }

    /** RESP3 {@code =len\r\ntxt:text\r\n}; RESP2 a bulk string. */
    @Override
    public RespWriter verbatim(byte[] text) {
        if (dropping != 0 && dropped(0)) {
            return this;
        }
        if (protocol != 3) {
            return bulk(text);
        }
        writeHeader('=', text.length + 4L);
        out.writeBytes(VERBATIM_TXT);
        out.writeBytes(text);
        out.writeBytes(CRLF);
        return this;
    }

    /** A verbatim string of the UTF-8 bytes of {@code text}. */
    public RespWriter verbatim(String text) {
        return verbatim(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * An out-of-band message of {@code count} elements (a Pub/Sub message, an invalidation): RESP3 {@code >count},
     * RESP2 {@code *count}.
     */
    public RespWriter push(int count) {
        if (dropping != 0 && dropped(count)) {
            return this;
        }
        writeHeader(protocol == 3 ? '>' : '*', count);
        return this;
    }

    /** {@code *n\r\n}, to be followed by n replies. */
    @Override
    public RespWriter array(int count) {
        if (dropping != 0 && dropped(count)) {
            return this;
        }
        writeHeader('*', count);
        return this;
    }

    /** {@code <type><value>\r\n} in one write. */
    private void writeHeader(char type, long value) {
        byte[] h = header;
        int end = h.length;
        h[--end] = '\n';
        h[--end] = '\r';
        if (value == Long.MIN_VALUE) {
            out.writeByte(type);
            out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
            out.writeBytes(CRLF);
            return;
        }
        long v = Math.abs(value);
        do {
            h[--end] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        if (value < 0) {
            h[--end] = '-';
        }
        h[--end] = (byte) type;
        out.writeBytes(h, end, h.length - end);
    }
}
