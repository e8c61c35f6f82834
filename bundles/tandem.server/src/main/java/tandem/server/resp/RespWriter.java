package tandem.server.resp;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import tandem.api.store.Reply;

/**
 * Writes RESP2 replies into a buffer that the connection flushes once per read batch.
 *
 * <p>Not thread-safe; one per connection, re-targeted at each batch's buffer with {@link #target(ByteBuf)}.
 */
public final class RespWriter implements Reply {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);

    private ByteBuf out;
    private java.util.function.Consumer<String> errorSink;
    private long errors;

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
        out.writeByte('+');
        out.writeCharSequence(text, StandardCharsets.UTF_8);
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
        out.writeByte(':');
        writeDecimal(value);
        out.writeBytes(CRLF);
        return this;
    }

    /** {@code $len\r\nbytes\r\n}. */
    @Override
    public RespWriter bulk(byte[] value) {
        out.writeByte('$');
        writeDecimal(value.length);
        out.writeBytes(CRLF);
        out.writeBytes(value);
        out.writeBytes(CRLF);
        return this;
    }

    /** A bulk string of the UTF-8 bytes of {@code value}. */
    public RespWriter bulk(String value) {
        return bulk(value.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code $-1\r\n}. */
    @Override
    public RespWriter nullBulk() {
        out.writeBytes(NULL_BULK);
        return this;
    }

    /** {@code *-1\r\n}. */
    @Override
    public RespWriter nullArray() {
        out.writeBytes(NULL_ARRAY);
        return this;
    }

    /** {@code *n\r\n}, to be followed by n replies. */
    @Override
    public RespWriter array(int count) {
        out.writeByte('*');
        writeDecimal(count);
        out.writeBytes(CRLF);
        return this;
    }

    private void writeDecimal(long value) {
        if (value >= 0 && value < 10) {
            out.writeByte('0' + (int) value);
        } else {
            out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
        }
    }
}
