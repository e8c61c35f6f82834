package tandem.store;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import tandem.api.store.Reply;

/** A {@link Reply} that renders the exact RESP2 bytes a client would receive. */
final class RespRecorder implements Reply {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @Override
    public Reply simple(String text) {
        return line('+', text);
    }

    @Override
    public Reply error(String text) {
        return line('-', text);
    }

    @Override
    public Reply integer(long value) {
        return line(':', Long.toString(value));
    }

    @Override
    public Reply bulk(byte[] value) {
        line('$', Integer.toString(value.length));
        out.writeBytes(value);
        out.writeBytes(new byte[] {'\r', '\n'});
        return this;
    }

    @Override
    public Reply nullBulk() {
        return line('$', "-1");
    }

    @Override
    public Reply nullArray() {
        return line('*', "-1");
    }

    @Override
    public Reply array(int count) {
        return line('*', Integer.toString(count));
    }

    private Reply line(char type, String text) {
        out.write(type);
        out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1)); // bytes travel as Latin-1 chars, as RespWriter sends them
        out.writeBytes(new byte[] {'\r', '\n'});
        return this;
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** The reply with CR and LF as {@code \r} and {@code \n} and other non-printables as {@code \xNN}. */
    String escaped() {
        return escape(bytes());
    }

    static String escape(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            int c = x & 0xff;
            if (c == '\r') {
                s.append("\\r");
            } else if (c == '\n') {
                s.append("\\n");
            } else if (c == '\\') {
                s.append("\\\\");
            } else if (c < 0x20 || c >= 0x7f) {
                s.append(String.format("\\x%02x", c));
            } else {
                s.append((char) c);
            }
        }
        return s.toString();
    }
}
