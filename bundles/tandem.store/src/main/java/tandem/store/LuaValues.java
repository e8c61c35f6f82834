package tandem.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import party.iroiro.luajava.Lua;
import party.iroiro.luajava.LuaException;

import tandem.api.store.Reply;

/**
 * Values between Java and the scripts' Lua: a reply to a Lua value ({@code redis.call}'s result) and a Lua value to a
 * reply (a script's), as Redis 7.0's {@code luaReplyToRedisReply} and {@code redisProtocolToLuaType} convert them;
 * and byte strings both ways, exactly. luajava can push a string only through JNI's modified UTF-8, so any byte
 * string that is not plain ASCII is pushed by loading a chunk that returns it as a literal ({@link #pushBytes}).
 */
final class LuaValues {

    private LuaValues() {
    }

    // ------------------------------------------------------------------ values, Java to Lua

    static void push(Lua l, Object v, int resp) {
        if (v instanceof Long n) {
            l.push((double) n);
        } else if (v instanceof byte[] b) {
            pushBytes(l, b);
        } else if (v instanceof TreeReply.Status s) {
            l.createTable(0, 1);
            pushBytes(l, s.text().getBytes(StandardCharsets.ISO_8859_1));
            l.setField(-2, "ok");
        } else if (v instanceof TreeReply.Error e) {
            pushError(l, "-" + e.text());
        } else if (v instanceof TreeReply.Null) {
            if (resp == 2) {
                l.push(false);
            } else {
                l.pushNil();
            }
        } else if (v instanceof TreeReply.Double d) {
            l.createTable(0, 1);
            l.push(d.value());
            l.setField(-2, "double");
        } else if (v instanceof TreeReply.Verbatim t) {
            l.createTable(0, 1);
            l.createTable(0, 2);
            l.push("txt");
            l.setField(-2, "format");
            pushBytes(l, t.text());
            l.setField(-2, "string");
            l.setField(-2, "verbatim_string");
        } else if (v instanceof TreeReply.Aggregate a) {
            pushAggregate(l, a, resp);
        } else {
            throw new IllegalStateException("no Lua value for " + v);
        }
    }

    private static void pushAggregate(Lua l, TreeReply.Aggregate a, int resp) {
        l.checkStack(4); // a reply nests as deep as a command makes it: the stack grows with it
        List<Object> items = a.items();
        if (a.kind() == TreeReply.Kind.ARRAY) {
            l.createTable(items.size(), 0);
            for (int i = 0; i < items.size(); i++) {
                push(l, items.get(i), resp);
                l.rawSetI(-2, i + 1);
            }
            return;
        }
        boolean map = a.kind() == TreeReply.Kind.MAP;
        l.createTable(0, 1);
        l.createTable(0, items.size());
        for (int i = 0; i < items.size(); i += map ? 2 : 1) {
            push(l, items.get(i), resp);
            if (map) {
                push(l, items.get(i + 1), resp);
            } else {
                l.push(true);
            }
            l.rawSet(-3);
        }
        l.setField(-2, map ? "map" : "set");
    }

    /**
     * Pushes {@code {err = "CODE message"}} as Redis's {@code luaPushErrorBuff} makes it: from {@code "-CODE message"}
     * (a reply's error), or from {@code "message"}, which gets the code {@code ERR}.
     */
    static void pushError(Lua l, String buffer) {
        String code = "ERR";
        String message = buffer;
        if (buffer.startsWith("-")) {
            int space = buffer.indexOf(' ');
            if (space < 0) {
                message = buffer.substring(1);
            } else {
                code = buffer.substring(1, space);
                message = buffer.substring(space + 1);
            }
        }
        message = message.replaceAll("^[\\r\\n]+|[\\r\\n]+$", "");
        l.createTable(0, 1);
        pushBytes(l, (code + " " + message).getBytes(StandardCharsets.ISO_8859_1));
        l.setField(-2, "err");
    }

    static void pushArray(Lua l, byte[][] values) {
        l.createTable(values.length, 0);
        for (int i = 0; i < values.length; i++) {
            pushBytes(l, values[i]);
            l.rawSetI(-2, i + 1);
        }
    }

    /**
     * Pushes a byte string exactly. luajava's {@code push(String)} goes through JNI's modified UTF-8, which is exact
     * only for bytes 1 to 127; any other string is pushed by running a chunk that returns it as a literal (luajava
     * 4.1's binary push is not served here with its natives).
     */
    /** Up to this many bytes, {@link #direct} reuses one buffer per thread instead of allocating native memory. */
    private static final int SCRATCH_LIMIT = 1 << 20;
    private static final ThreadLocal<ByteBuffer> SCRATCH =
            ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(4096));

    /**
     * {@code bytes} in a direct buffer for luajava's {@code load}, which reads it before it returns: a reused one,
     * since a direct buffer per call is native memory that only a GC gives back.
     */
    static ByteBuffer direct(byte[] bytes) {
        if (bytes.length > SCRATCH_LIMIT) {
            return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        }
        ByteBuffer b = SCRATCH.get();
        if (b.capacity() < bytes.length) {
            b = ByteBuffer.allocateDirect(Math.max(bytes.length, 2 * b.capacity()));
            SCRATCH.set(b);
        }
        b.clear();
        return b.put(bytes).flip();
    }

    static void pushBytes(Lua l, byte[] b) {
        boolean ascii = true;
        for (byte x : b) {
            if (x <= 0) {
                ascii = false;
                break;
            }
        }
        if (ascii) {
            l.push(new String(b, StandardCharsets.ISO_8859_1));
            return;
        }
        StringBuilder chunk = new StringBuilder(b.length + 16).append("return \"");
        for (byte x : b) {
            int c = x & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                chunk.append((char) c);
            } else {
                chunk.append('\\');
                if (c < 100) {
                    chunk.append('0');
                }
                if (c < 10) {
                    chunk.append('0');
                }
                chunk.append(c);
            }
        }
        chunk.append('"');
        byte[] code = chunk.toString().getBytes(StandardCharsets.ISO_8859_1);
        try {
            l.load(direct(code), "=bytes");
        } catch (LuaException e) {
            throw new IllegalStateException("a byte string literal did not compile", e);
        }
        protectedCall(l, 0, 1);
    }

    // ------------------------------------------------------------------ values, Lua to Java

    /** The bytes of the string (or number, which Lua turns into its text) at {@code index}. */
    static byte[] bytes(Lua l, int index) {
        // a view of Lua's own bytes, copied at once: toBuffer would allocate a direct buffer per string, native
        // memory that only a GC gives back, and a script calling Redis reads several strings per call
        ByteBuffer buffer = l.toDirectBuffer(index);
        if (buffer == null) {
            return new byte[0];
        }
        byte[] b = new byte[buffer.remaining()];
        buffer.get(b);
        return b;
    }

    static String text(Lua l, int index) {
        return new String(bytes(l, index), StandardCharsets.ISO_8859_1);
    }

    /** Redis's {@code luaReplyToRedisReply}: the Lua value at {@code index} as the script's reply. */
    static void write(Lua l, int index, Reply out, int depth, int resp) {
        int at = index < 0 ? l.getTop() + index + 1 : index;
        if (depth > 1000 || !room(l)) {
            out.error("ERR reached lua stack limit");
            return;
        }
        switch (l.type(at)) {
            case STRING -> out.bulk(bytes(l, at));
            case BOOLEAN -> {
                if (l.toBoolean(at)) {
                    out.integer(1);
                } else if (resp == 2) {
                    out.nullBulk();
                } else {
                    out.integer(0);
                }
            }
            case NUMBER -> out.integer(truncate(l.toNumber(at)));
            case TABLE -> writeTable(l, at, out, depth, resp);
            default -> out.nullBulk();
        }
    }

    private static void writeTable(Lua l, int at, Reply out, int depth, int resp) {
        if (field(l, at, "err") == Lua.LuaType.STRING) {
            String err = oneLine(text(l, -1));
            l.pop(1);
            out.error(err);
            return;
        }
        l.pop(1);
        if (field(l, at, "ok") == Lua.LuaType.STRING) {
            String ok = oneLine(text(l, -1));
            l.pop(1);
            out.simple(ok);
            return;
        }
        l.pop(1);
        if (field(l, at, "double") == Lua.LuaType.NUMBER) {
            double d = l.toNumber(-1);
            l.pop(1);
            out.doubleValue(Doubles.format(d));
            return;
        }
        l.pop(1);
        if (field(l, at, "big_number") == Lua.LuaType.STRING) {
            String big = oneLine(text(l, -1));
            l.pop(1);
            out.bulk(big.getBytes(StandardCharsets.ISO_8859_1)); // RESP3's big number is not spoken here
            return;
        }
        l.pop(1);
        if (field(l, at, "verbatim_string") == Lua.LuaType.TABLE) {
            int v = l.getTop();
            if (field(l, v, "format") == Lua.LuaType.STRING && field(l, v, "string") == Lua.LuaType.STRING) {
                byte[] text = bytes(l, -1);
                l.pop(3);
                out.verbatim(text);
                return;
            }
            l.setTop(v);
        }
        l.pop(1);
        for (String kind : new String[] {"map", "set"}) {
            if (field(l, at, kind) == Lua.LuaType.TABLE) {
                int t = l.getTop();
                int count = 0;
                l.pushNil();
                while (l.next(t) != 0) {
                    count++;
                    l.pop(1);
                }
                if (kind.equals("map")) {
                    out.map(count);
                } else {
                    out.set(count);
                }
                l.pushNil();
                while (l.next(t) != 0) {
                    write(l, -2, out, depth + 1, resp);
                    if (kind.equals("map")) {
                        write(l, -1, out, depth + 1, resp);
                    }
                    l.pop(1);
                }
                l.pop(1);
                return;
            }
            l.pop(1);
        }
        int count = 0;
        while (true) {
            l.rawGetI(at, count + 1);
            boolean nil = l.type(-1) == Lua.LuaType.NIL;
            l.pop(1);
            if (nil) {
                break;
            }
            count++;
        }
        out.array(count);
        for (int i = 1; i <= count; i++) {
            l.rawGetI(at, i);
            write(l, -1, out, depth + 1, resp);
            l.pop(1);
        }
    }

    /** @return whether the stack has room for the four values a nested reply pushes, as Redis checks */
    private static boolean room(Lua l) {
        try {
            l.checkStack(4);
            return true;
        } catch (RuntimeException full) {
            return false;
        }
    }

    /** Pushes {@code t[name]}, read raw as Redis reads it, and returns its type. */
    static Lua.LuaType field(Lua l, int table, String name) {
        l.push(name);
        l.rawGet(table);
        return l.type(-1);
    }

    /** The reply to a script that failed: its error table's text, where it failed, as Redis words it. */
    static void writeError(Lua l, int index, String sha, Reply out) {
        if (l.type(index) != Lua.LuaType.TABLE) {
            String message = l.type(index) == Lua.LuaType.STRING ? text(l, index) : "execution failure";
            out.error("ERR Error running script " + sha + ", "
                    + message.substring(0, Math.min(100, message.length())));
            return;
        }
        String err = field(l, index, "err") == Lua.LuaType.STRING ? text(l, -1) : null;
        l.pop(1);
        String source = isText(field(l, index, "source")) ? text(l, -1) : null;
        l.pop(1);
        String line = isText(field(l, index, "line")) ? text(l, -1) : null;
        l.pop(1);
        if (err == null) {
            // Redis 7.0.15 crashes on an error object without 'err'; Tandem answers instead
            err = "ERR the script raised an error object without an 'err' field";
        }
        StringBuilder message = new StringBuilder(oneLine(err));
        if (source != null && line != null) {
            message.append(" script: ").append(sha).append(", on ").append(source).append(':').append(line)
                    .append('.');
        }
        out.error(message.toString());
    }

    private static boolean isText(Lua.LuaType t) {
        return t == Lua.LuaType.STRING || t == Lua.LuaType.NUMBER;
    }

    static String oneLine(String s) {
        return s.replace('\r', ' ').replace('\n', ' ');
    }

    /** C's {@code (long long)} of a Lua number on x86-64: out of range (and NaN) is the smallest long. */
    static long truncate(double d) {
        if (Double.isNaN(d) || d >= 0x1p63 || d < -0x1p63) {
            return Long.MIN_VALUE;
        }
        return (long) d;
    }

    /** A call into Lua that must not fail: a failure is a bug of this environment, not of a script. */
    static void protectedCall(Lua l, int args, int results) {
        try {
            l.pCall(args, results);
        } catch (LuaException e) {
            String message = l.getTop() > 0 && l.type(-1) == Lua.LuaType.STRING ? text(l, -1) : e.getMessage();
            l.setTop(0);
            throw new IllegalStateException("Lua failed outside a script: " + message, e);
        }
    }
}
