package tandem.store;

import java.io.ByteArrayOutputStream;

import party.iroiro.luajava.Lua;

/**
 * Redis's {@code cmsgpack} library, lua-cmsgpack 0.4.0 ({@code deps/lua/src/lua_cmsgpack.c}): Lua values to
 * MessagePack and back. A number that is an integer is packed in the fewest bytes, any other as a float when a float
 * holds it exactly, else as a double; a table whose keys are exactly 1..n is an array, any other a map (in
 * {@code next}'s order); tables nested 16 deep are packed as nil; strings use the str8/16/32 headers. Unpacking
 * pushes a uint64 past 2<sup>63</sup> as the negative number C's cast makes of it. Hand-written, see
 * {@link LuaLibraries}.
 */
final class LuaMsgpack {

    private static final int MAX_NESTING = 16;
    private static final String TOO_MANY = "too many return values at once; use unpack_one or unpack_limit instead.";

    private LuaMsgpack() {
    }

    static void newTable(LuaLibraries libs, Lua l) {
        l.createTable(0, 8);
        libs.function(l, "pack", x -> pack(libs, x));
        libs.function(l, "unpack", x -> unpackFull(libs, x, 0, 0));
        libs.function(l, "unpack_one", x -> {
            long offset = libs.optInteger(x, 2, 0);
            popToFirst(x);
            return unpackFull(libs, x, 1, offset);
        });
        libs.function(l, "unpack_limit", x -> {
            long limit = libs.checkInteger(x, 2);
            long offset = libs.optInteger(x, 3, 0);
            popToFirst(x);
            return unpackFull(libs, x, limit, offset);
        });
        l.push("cmsgpack");
        l.setField(-2, "_NAME");
        l.push("lua-cmsgpack 0.4.0");
        l.setField(-2, "_VERSION");
        l.push("Copyright (C) 2012, Salvatore Sanfilippo");
        l.setField(-2, "_COPYRIGHT");
        l.push("MessagePack C implementation for Lua");
        l.setField(-2, "_DESCRIPTION");
    }

    /** C's {@code lua_pop(L, lua_gettop(L) - 1)}: the first argument alone, or none when there was none. */
    private static void popToFirst(Lua l) {
        if (l.getTop() > 1) {
            l.setTop(1);
        }
    }

    // ------------------------------------------------------------------ packing

    private static int pack(LuaLibraries libs, Lua l) {
        int nargs = l.getTop();
        if (nargs == 0) {
            throw libs.argError(l, 0, "MessagePack pack needs input.");
        }
        if (!LuaLibraries.checkStack(l, nargs)) {
            throw libs.argError(l, 0, "Too many arguments for MessagePack pack.");
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        for (int i = 1; i <= nargs; i++) {
            LuaLibraries.checkStack(l, 1, "in function mp_check");
            l.pushValue(i);
            encode(l, buf, 0);
        }
        LuaValues.pushBytes(l, buf.toByteArray());
        return 1;
    }

    /** Packs the value on the top of the stack, and pops it. */
    private static void encode(Lua l, ByteArrayOutputStream buf, int level) {
        Lua.LuaType t = l.type(-1);
        if (t == Lua.LuaType.TABLE && level == MAX_NESTING) {
            t = Lua.LuaType.NIL;
        }
        switch (t) {
            case STRING -> encodeBytes(buf, LuaValues.bytes(l, -1));
            case BOOLEAN -> buf.write(l.toBoolean(-1) ? 0xc3 : 0xc2);
            case NUMBER -> encodeNumber(buf, l.toNumber(-1));
            case TABLE -> encodeTable(l, buf, level);
            default -> buf.write(0xc0);
        }
        l.pop(1);
    }

    private static void encodeBytes(ByteArrayOutputStream buf, byte[] s) {
        int len = s.length;
        if (len < 32) {
            buf.write(0xa0 | len);
        } else if (len <= 0xff) {
            buf.write(0xd9);
            buf.write(len);
        } else if (len <= 0xffff) {
            buf.write(0xda);
            be(buf, len, 2);
        } else {
            buf.write(0xdb);
            be(buf, len, 4);
        }
        buf.write(s, 0, len);
    }

    private static void be(ByteArrayOutputStream buf, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) {
            buf.write((int) (v >>> (8 * i)));
        }
    }

    private static void encodeNumber(ByteArrayOutputStream buf, double n) {
        if (!Double.isInfinite(n) && (double) LuaLibraries.toLong(n) == n) {
            encodeInt(buf, LuaLibraries.toLong(n));
            return;
        }
        float f = (float) n;
        if (n == (double) f) {
            buf.write(0xca);
            be(buf, Float.floatToRawIntBits(f), 4);
        } else {
            buf.write(0xcb);
            be(buf, Double.doubleToRawLongBits(n), 8);
        }
    }

    private static void encodeInt(ByteArrayOutputStream buf, long n) {
        if (n >= 0) {
            if (n <= 127) {
                buf.write((int) n);
            } else if (n <= 0xff) {
                buf.write(0xcc);
                buf.write((int) n);
            } else if (n <= 0xffff) {
                buf.write(0xcd);
                be(buf, n, 2);
            } else if (n <= 0xffffffffL) {
                buf.write(0xce);
                be(buf, n, 4);
            } else {
                buf.write(0xcf);
                be(buf, n, 8);
            }
        } else {
            if (n >= -32) {
                buf.write((int) n);
            } else if (n >= -128) {
                buf.write(0xd0);
                buf.write((int) n);
            } else if (n >= -32768) {
                buf.write(0xd1);
                be(buf, n, 2);
            } else if (n >= -2147483648L) {
                buf.write(0xd2);
                be(buf, n, 4);
            } else {
                buf.write(0xd3);
                be(buf, n, 8);
            }
        }
    }

    private static void encodeTable(Lua l, ByteArrayOutputStream buf, int level) {
        int count = arrayCount(l);
        if (count >= 0) {
            int len = l.rawLength(-1);
            encodeHeader(buf, len, 0x90, 0xdc, 0xdd);
            LuaLibraries.checkStack(l, 1, "in function mp_encode_lua_table_as_array");
            for (int j = 1; j <= len; j++) {
                l.rawGetI(-1, j);
                encode(l, buf, level + 1);
            }
            return;
        }
        LuaLibraries.checkStack(l, 3, "in function mp_encode_lua_table_as_map");
        long len = 0;
        l.pushNil();
        while (l.next(-2) != 0) {
            l.pop(1);
            len++;
        }
        encodeHeader(buf, len, 0x80, 0xde, 0xdf);
        l.pushNil();
        while (l.next(-2) != 0) {
            l.pushValue(-2);
            encode(l, buf, level + 1); // the key
            encode(l, buf, level + 1); // the value
        }
    }

    private static void encodeHeader(ByteArrayOutputStream buf, long n, int fix, int b16, int b32) {
        if (n <= 15) {
            buf.write(fix | (int) n);
        } else if (n <= 65535) {
            buf.write(b16);
            be(buf, n, 2);
        } else {
            buf.write(b32);
            be(buf, n, 4);
        }
    }

    /**
     * {@code table_is_an_array}: whether the keys of the table on the top are exactly 1..n (numbers an {@code int}
     * holds).
     *
     * @return n, or -1 when it is not an array
     */
    private static int arrayCount(Lua l) {
        int top = l.getTop();
        LuaLibraries.checkStack(l, 2, "in function table_is_an_array");
        int count = 0;
        int max = 0;
        l.pushNil();
        while (l.next(-2) != 0) {
            l.pop(1);
            double n;
            if (l.type(-1) != Lua.LuaType.NUMBER || (n = l.toNumber(-1)) <= 0 || LuaLibraries.toInt(n) != n) {
                l.setTop(top);
                return -1;
            }
            max = n > max ? (int) n : max;
            count++;
        }
        l.setTop(top);
        return max == count ? count : -1;
    }

    // ------------------------------------------------------------------ unpacking

    /** The input being read: {@code mp_cur}. */
    private static final class Cursor {
        final byte[] s;
        int p;
        long left;
        int err;
        /** The length of the array or map whose header was read last. */
        long length;

        Cursor(byte[] s, int p) {
            this.s = s;
            this.p = p;
            this.left = s.length - p;
        }

        int at(int i) {
            return s[p + i] & 0xff;
        }

        boolean need(long n) {
            if (left < n) {
                err = 1;
                return false;
            }
            return true;
        }

        void consume(long n) {
            p += (int) n;
            left -= n;
        }

        long be(int from, int bytes) {
            long v = 0;
            for (int i = 0; i < bytes; i++) {
                v = (v << 8) | at(from + i);
            }
            return v;
        }
    }

    private static int unpackFull(LuaLibraries libs, Lua l, long limit, long offset) {
        boolean decodeAll = limit == 0 && offset == 0;
        byte[] s = libs.checkBytes(l, 1);
        long len = s.length;
        if (offset < 0 || limit < 0) {
            throw LuaLibraries.error("Invalid request to unpack with offset of " + (int) offset + " and limit of "
                    + (int) len + ".");
        } else if (offset > len) {
            throw LuaLibraries.error("Start offset " + (int) offset + " greater than input length " + (int) len
                    + ".");
        }
        if (decodeAll) {
            limit = Integer.MAX_VALUE;
        }
        Cursor c = new Cursor(s, (int) offset);
        int cnt;
        for (cnt = 0; c.left > 0 && cnt < limit; cnt++) {
            decode(l, c);
            if (c.err == 1) {
                throw LuaLibraries.error("Missing bytes in input.");
            } else if (c.err == 2) {
                throw LuaLibraries.error("Bad data format in input.");
            }
        }
        if (!decodeAll) {
            long newOffset = len - c.left;
            LuaLibraries.checkStack(l, 1, "in function mp_unpack_full");
            l.push((double) (c.left == 0 ? -1 : newOffset));
            l.insert(2);
            cnt++;
        }
        return cnt;
    }

    private static final int SCALAR = 0;
    private static final int ARRAY = 1;
    private static final int HASH = 2;

    /** An array or map being read: its table is on the stack, under the index or key being read. */
    private static final class Reading {
        final boolean array;
        long remaining;
        int index = 1;
        boolean haveKey;

        Reading(boolean array, long remaining) {
            this.array = array;
            this.remaining = remaining;
        }
    }

    /**
     * {@code mp_decode_to_lua_type}: decodes one value, and all it holds, onto the stack, walked without recursion
     * (see {@link LuaJson}); on an error sets the cursor's and returns.
     */
    private static void decode(Lua l, Cursor c) {
        java.util.ArrayDeque<Reading> open = new java.util.ArrayDeque<>();
        while (true) {
            int kind = decodeItem(l, c);
            if (c.err != 0) {
                return;
            }
            boolean completed = true;
            if (kind == ARRAY) {
                l.createTable(0, 0);
                LuaLibraries.checkStack(l, 1, "in function mp_decode_to_lua_array");
                open.push(new Reading(true, c.length));
                completed = false;
            } else if (kind == HASH) {
                l.createTable(0, 0);
                open.push(new Reading(false, c.length));
                completed = false;
            }
            while (true) {
                Reading r = open.peek();
                if (completed) {
                    if (r == null) {
                        return;
                    }
                    if (r.array) {
                        l.rawSet(-3);
                        r.remaining--;
                    } else if (!r.haveKey) {
                        r.haveKey = true;
                        break; // its value next
                    } else {
                        // lua_settable raises these from C, without a position; raised here instead of inside it
                        if (l.type(-2) == Lua.LuaType.NIL) {
                            throw LuaLibraries.plainError("table index is nil");
                        }
                        if (l.type(-2) == Lua.LuaType.NUMBER && Double.isNaN(l.toNumber(-2))) {
                            throw LuaLibraries.plainError("table index is NaN");
                        }
                        l.rawSet(-3);
                        r.haveKey = false;
                        r.remaining--;
                    }
                    completed = false;
                }
                if (r.remaining > 0) {
                    if (r.array) {
                        l.push((double) r.index++);
                    }
                    break;
                }
                open.pop();
                completed = true;
            }
        }
    }

    /**
     * Decodes the value at the cursor and pushes it, or reads an array's or map's header (its length in
     * {@code c.length}); on an error sets the cursor's.
     *
     * @return {@link #SCALAR}, {@link #ARRAY} or {@link #HASH}
     */
    private static int decodeItem(Lua l, Cursor c) {
        if (!c.need(1)) {
            return SCALAR;
        }
        LuaLibraries.checkStack(l, 1, TOO_MANY);
        int b = c.at(0);
        switch (b) {
            case 0xcc -> {
                if (c.need(2)) {
                    l.push((double) c.at(1));
                    c.consume(2);
                }
            }
            case 0xd0 -> {
                if (c.need(2)) {
                    l.push((double) (byte) c.at(1));
                    c.consume(2);
                }
            }
            case 0xcd -> {
                if (c.need(3)) {
                    l.push((double) c.be(1, 2));
                    c.consume(3);
                }
            }
            case 0xd1 -> {
                if (c.need(3)) {
                    l.push((double) (short) c.be(1, 2));
                    c.consume(3);
                }
            }
            case 0xce -> {
                if (c.need(5)) {
                    l.push((double) c.be(1, 4));
                    c.consume(5);
                }
            }
            case 0xd2 -> {
                if (c.need(5)) {
                    l.push((double) (int) c.be(1, 4));
                    c.consume(5);
                }
            }
            case 0xcf, 0xd3 -> {
                if (c.need(9)) {
                    l.push((double) c.be(1, 8)); // uint64 past 2^63: C's cast to lua_Integer makes it negative
                    c.consume(9);
                }
            }
            case 0xc0 -> {
                l.pushNil();
                c.consume(1);
            }
            case 0xc3, 0xc2 -> {
                l.push(b == 0xc3);
                c.consume(1);
            }
            case 0xca -> {
                if (c.need(5)) {
                    l.push((double) Float.intBitsToFloat((int) c.be(1, 4)));
                    c.consume(5);
                }
            }
            case 0xcb -> {
                if (c.need(9)) {
                    l.push(Double.longBitsToDouble(c.be(1, 8)));
                    c.consume(9);
                }
            }
            case 0xd9 -> {
                if (c.need(2)) {
                    long n = c.at(1);
                    if (c.need(2 + n)) {
                        push(l, c, 2, n);
                        c.consume(2 + n);
                    }
                }
            }
            case 0xda -> {
                if (c.need(3)) {
                    long n = c.be(1, 2);
                    if (c.need(3 + n)) {
                        push(l, c, 3, n);
                        c.consume(3 + n);
                    }
                }
            }
            case 0xdb -> {
                if (c.need(5)) {
                    long n = c.be(1, 4);
                    c.consume(5);
                    if (c.need(n)) {
                        push(l, c, 0, n);
                        c.consume(n);
                    }
                }
            }
            case 0xdc, 0xdd, 0xde, 0xdf -> {
                int bytes = b == 0xdc || b == 0xde ? 2 : 4;
                if (c.need(1 + bytes)) {
                    long n = c.be(1, bytes);
                    c.consume(1 + bytes);
                    c.length = n;
                    return b == 0xdc || b == 0xdd ? ARRAY : HASH;
                }
            }
            default -> {
                if ((b & 0x80) == 0) {
                    l.push((double) b);
                    c.consume(1);
                } else if ((b & 0xe0) == 0xe0) {
                    l.push((double) (byte) b);
                    c.consume(1);
                } else if ((b & 0xe0) == 0xa0) {
                    long n = b & 0x1f;
                    if (c.need(1 + n)) {
                        push(l, c, 1, n);
                        c.consume(1 + n);
                    }
                } else if ((b & 0xf0) == 0x90) {
                    c.consume(1);
                    c.length = b & 0xf;
                    return ARRAY;
                } else if ((b & 0xf0) == 0x80) {
                    c.consume(1);
                    c.length = b & 0xf;
                    return HASH;
                } else {
                    c.err = 2;
                }
            }
        }
        return SCALAR;
    }

    private static void push(Lua l, Cursor c, int from, long n) {
        byte[] b = new byte[(int) n];
        System.arraycopy(c.s, c.p + from, b, 0, (int) n);
        LuaValues.pushBytes(l, b);
    }
}
