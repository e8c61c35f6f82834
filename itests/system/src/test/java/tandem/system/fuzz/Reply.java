package tandem.system.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One RESP2 or RESP3 reply as received: its type byte, the text of its header line (simple string, error, integer,
 * RESP3's double, boolean, big number, null), the bytes of a bulk or verbatim string, or the elements of an array
 * (RESP3's set, push, and map, whose keys and values alternate). {@link #bytes()} serialises it back to exactly the
 * bytes that were read, so two replies are equal exactly when their bytes are.
 */
public final class Reply {

    public static final Reply NIL_BULK = new Reply('$', null, null);
    public static final Reply NIL_ARRAY = new Reply('*', null, null);

    /** {@code +}, {@code -}, {@code :}, {@code $} or {@code *}; in RESP3 also {@code , # ( _ = ~ % >}. */
    public final char type;
    /** The line of {@code + - :}, the data of {@code $}; null for a nil bulk string or an array. */
    public final byte[] data;
    /** The elements of an array; null for a nil array and for the other types. */
    public final List<Reply> items;

    private Reply(char type, byte[] data, List<Reply> items) {
        this.type = type;
        this.data = data;
        this.items = items;
    }

    public static Reply simple(String s) {
        return new Reply('+', s.getBytes(StandardCharsets.ISO_8859_1), null);
    }

    public static Reply error(String s) {
        return new Reply('-', s.getBytes(StandardCharsets.ISO_8859_1), null);
    }

    public static Reply integer(long n) {
        return new Reply(':', Long.toString(n).getBytes(StandardCharsets.ISO_8859_1), null);
    }

    public static Reply bulk(byte[] b) {
        return new Reply('$', b, null);
    }

    public static Reply bulk(String s) {
        return bulk(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    public static Reply array(List<Reply> items) {
        return new Reply('*', null, List.copyOf(items));
    }

    /** An aggregate of {@code type} ({@code *}, or RESP3's {@code ~ % >}), for a normalised copy that keeps it. */
    public static Reply aggregate(char type, List<Reply> items) {
        return new Reply(type, null, List.copyOf(items));
    }

    public boolean isError() {
        return type == '-';
    }

    public boolean isNil() {
        return type == '_' || (type == '$' || type == '*') && data == null && items == null;
    }

    /** @return true for an array, and for RESP3's set, map (its keys and values in turn) and push */
    public boolean isArray() {
        return AGGREGATES.indexOf(type) >= 0 && items != null;
    }

    private static final String AGGREGATES = "*~%>";

    public boolean isBulk() {
        return type == '$' && data != null;
    }

    public String text() {
        return data == null ? null : new String(data, StandardCharsets.ISO_8859_1);
    }

    /** The value of an integer reply, or of a bulk string holding one; null otherwise. */
    public Long asLong() {
        if ((type == ':' || type == '$') && data != null) {
            try {
                return Long.parseLong(text());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    /** The RESP2 bytes of this reply. */
    public byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out);
        return out.toByteArray();
    }

    private void write(ByteArrayOutputStream out) {
        out.write(type);
        switch (type) {
            case '$', '=' -> {
                if (data == null) {
                    out.writeBytes("-1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                } else {
                    out.writeBytes((data.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.writeBytes(data);
                    out.writeBytes(CRLF);
                }
            }
            case '*', '~', '%', '>' -> {
                if (items == null) {
                    out.writeBytes("-1\r\n".getBytes(StandardCharsets.ISO_8859_1));
                } else {
                    int count = type == '%' ? items.size() / 2 : items.size();
                    out.writeBytes((count + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    for (Reply r : items) {
                        r.write(out);
                    }
                }
            }
            default -> {
                out.writeBytes(data);
                out.writeBytes(CRLF);
            }
        }
    }

    private static final byte[] CRLF = {'\r', '\n'};

    /** Equal exactly when the bytes are (compared without serialising: replies may be large). */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Reply r) || r.type != type || !Arrays.equals(data, r.data)
                || (items == null) != (r.items == null)) {
            return false;
        }
        return items == null || items.equals(r.items);
    }

    @Override
    public int hashCode() {
        return type * 31 + Arrays.hashCode(data) + (items == null ? 0 : items.hashCode());
    }

    /** The reply's bytes escaped for a report, cut to about {@code max} characters. */
    public String show(int max) {
        StringBuilder sb = new StringBuilder();
        show(sb, max);
        return sb.length() > max ? sb.substring(0, max) + "…(" + size() + " bytes)" : sb.toString();
    }

    private void show(StringBuilder sb, int max) {
        if (sb.length() > max) {
            return;
        }
        sb.append(type);
        if ((type == '$' || type == '=') && data != null) {
            sb.append(data.length).append("\\r\\n")
                    .append(Escape.bytes(Arrays.copyOf(data, Math.min(data.length, max)), max)).append("\\r\\n");
        } else if (type == '$' || type == '*' && items == null) {
            sb.append("-1\\r\\n");
        } else if (isArray()) {
            sb.append(type == '%' ? items.size() / 2 : items.size()).append("\\r\\n");
            for (Reply r : items) {
                r.show(sb, max);
                if (sb.length() > max) {
                    return;
                }
            }
        } else {
            sb.append(Escape.bytes(data, max)).append("\\r\\n");
        }
    }

    /** The number of bytes of the reply. */
    public long size() {
        if (type == '$' || type == '=') {
            return data == null ? 5 : 1 + Integer.toString(data.length).length() + 4 + data.length;
        }
        if (AGGREGATES.indexOf(type) >= 0) {
            long n = items == null ? 5
                    : 1 + Integer.toString(type == '%' ? items.size() / 2 : items.size()).length() + 2;
            if (items != null) {
                for (Reply r : items) {
                    n += r.size();
                }
            }
            return n;
        }
        return 3 + data.length;
    }

    @Override
    public String toString() {
        return show(300);
    }

    /**
     * Reads one reply. Lengths are checked before anything is allocated beyond {@code maxBulk}.
     *
     * @throws EOFException when the peer closed the connection before a whole reply arrived
     */
    public static Reply read(InputStream in, long maxBulk) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed");
        }
        byte[] line = readLine(in);
        switch (type) {
            case '+', '-', ':', ',', '#', '(', '_' -> {
                return new Reply((char) type, line, null);
            }
            case '=' -> {
                long n = parseLength(line);
                if (n < 0 || n > maxBulk) {
                    throw new IOException("verbatim string of " + n + " bytes");
                }
                byte[] data = in.readNBytes((int) n);
                if (data.length < n || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("connection closed inside a verbatim string");
                }
                return new Reply('=', data, null);
            }
            case '~', '%', '>' -> {
                long n = parseLength(line) * (type == '%' ? 2 : 1);
                if (n < 0 || n > 100_000_000) {
                    throw new IOException("aggregate of " + n + " elements");
                }
                List<Reply> items = new ArrayList<>((int) Math.min(n, 1024));
                for (long i = 0; i < n; i++) {
                    items.add(read(in, maxBulk));
                }
                return new Reply((char) type, null, items);
            }
            case '$' -> {
                long n = parseLength(line);
                if (n < 0) {
                    return NIL_BULK;
                }
                if (n > maxBulk) {
                    throw new IOException("bulk of " + n + " bytes");
                }
                byte[] data = in.readNBytes((int) n);
                if (data.length < n || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("connection closed inside a bulk string");
                }
                return new Reply('$', data, null);
            }
            case '*' -> {
                long n = parseLength(line);
                if (n < 0) {
                    return NIL_ARRAY;
                }
                if (n > 100_000_000) {
                    throw new IOException("array of " + n + " elements");
                }
                List<Reply> items = new ArrayList<>((int) Math.min(n, 1024));
                for (long i = 0; i < n; i++) {
                    items.add(read(in, maxBulk));
                }
                return new Reply('*', null, items);
            }
            default -> throw new IOException("not a RESP reply: type byte " + type + " then "
                    + Escape.bytes(line, 100));
        }
    }

    private static long parseLength(byte[] line) throws IOException {
        try {
            return Long.parseLong(new String(line, StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            throw new IOException("bad length " + Escape.bytes(line, 100));
        }
    }

    private static byte[] readLine(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed inside a reply");
            }
            if (b == '\r') {
                int n = in.read();
                if (n == '\n') {
                    return out.toByteArray();
                }
                if (n < 0) {
                    throw new EOFException("connection closed inside a reply");
                }
                out.write(b);
                out.write(n);
            } else {
                out.write(b);
            }
            if (out.size() > 64 * 1024 * 1024) {
                throw new IOException("reply line longer than 64 MB");
            }
        }
    }
}
