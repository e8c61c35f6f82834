package tandem.store;

import java.nio.charset.StandardCharsets;

import party.iroiro.luajava.JFunction;
import party.iroiro.luajava.Lua;
import party.iroiro.luajava.lua51.Lua51Natives;

/**
 * The four C libraries Redis 7.0 loads into every script's Lua, {@code cjson}, {@code cmsgpack}, {@code bit} and
 * {@code struct}, as Java functions that Lua sees as C ones; and what they share: raising errors as the C API's
 * {@code luaL_error} and {@code luaL_argerror} word them, reading arguments as {@code luaL_check*} do.
 *
 * <p><b>Why written here by hand</b>: scripts compare, hash and store what these libraries produce, so their output
 * must be Redis's byte for byte: lua-cjson's {@code %.14g} numbers and its escaping of {@code /}, its sparse-array
 * rules and error texts; lua-cmsgpack's choice of float or double and of integer widths; LuaBitOp's normalisation
 * of a double; lua_struct's alignment. No Java JSON or MessagePack library reproduces these, and luajava cannot load
 * C modules into the embedded interpreter (its natives are fixed). Each library follows Redis 7.0.15's C source
 * ({@code deps/lua/src/lua_*.c}) function by function, and walks Lua's stack as that source does, so that the
 * limits a deep value meets ({@code lua_checkstack}) are the same.
 *
 * <p>A Lua error raised by a Lua API call made from Java would unwind through the JVM's frames and abort it: the
 * functions here never make a call that can raise (they check first what Lua would refuse, a table key that is nil
 * or NaN), and raise their own errors by throwing {@link Raised}, which {@link #guard} turns into the error value
 * luajava's wrapper raises once Java has returned.
 *
 * <p>One instance per Lua state: it holds {@code cjson}'s configuration, which Redis keeps in the state too (a
 * script's {@code cjson.encode_max_depth(5)} lasts until {@code SCRIPT FLUSH}).
 */
final class LuaLibraries {

    /** A Lua function, in the prelude, that answers the running Java function's name as its caller named it. */
    private int namerRef = -1;

    /**
     * Adds to the table on the top of the stack (the prelude's {@code J}) {@code libs}, the four library tables by
     * global name, and {@code libnamer}, which the prelude calls with its function-naming helper.
     */
    void install(Lua l) {
        l.createTable(0, 4);
        LuaJson.newTable(this, l);
        l.setField(-2, "cjson");
        LuaMsgpack.newTable(this, l);
        l.setField(-2, "cmsgpack");
        LuaBit.newTable(this, l);
        l.setField(-2, "bit");
        LuaStruct.newTable(this, l);
        l.setField(-2, "struct");
        l.setField(-2, "libs");
        l.push((JFunction) x -> {
            x.pushValue(1);
            namerRef = x.ref();
            x.setTop(0);
            return 0;
        });
        l.setField(-2, "libnamer");
    }

    /** A library function's body: may throw {@link Raised}; returns its count of results, on the stack's top. */
    interface Body {
        int call(Lua l);
    }

    /** Sets {@code t[name]} (table on the top) to {@code body}, made safe by {@link #guard}. */
    void function(Lua l, String name, Body body) {
        l.push(guard(body));
        l.setField(-2, name);
    }

    /** {@code body} as a Java function whose errors become Lua errors raised once Java has returned. */
    JFunction guard(Body body) {
        return l -> {
            try {
                return body.call(l);
            } catch (Raised r) {
                return raise(l, r);
            } catch (RuntimeException | StackOverflowError e) {
                // a push luajava refused (its own stack check), or Java's stack: Lua's own words for the first
                return raise(l, new Raised(e instanceof StackOverflowError ? "C stack overflow" : "stack overflow",
                        true));
            }
        };
    }

    private static int raise(Lua l, Raised r) {
        l.setTop(0);
        Lua51Natives natives = natives(l);
        if (r.where) {
            natives.luaL_where(l.getPointer(), 1);
        }
        LuaValues.pushBytes(l, r.message);
        if (r.where) {
            natives.lua_concat(l.getPointer(), 2);
        }
        return -1;
    }

    static Lua51Natives natives(Lua l) {
        return (Lua51Natives) l.getLuaNatives();
    }

    /** {@code lua_checkstack}: whether {@code n} more slots fit, without raising. */
    static boolean checkStack(Lua l, int n) {
        return natives(l).lua_checkstack(l.getPointer(), n) != 0;
    }

    /** {@code luaL_checkstack}: as {@link #checkStack}, or Lua's error {@code stack overflow (message)}. */
    static void checkStack(Lua l, int n, String message) {
        if (!checkStack(l, n)) {
            throw error("stack overflow (" + message + ")");
        }
    }

    /** Pushes C's {@code NULL} as a light userdata: {@code cjson.null}. */
    static void pushNull(Lua l) {
        natives(l).lua_pushlightuserdata(l.getPointer(), 0);
    }

    /** @return whether the value at {@code index} is a light userdata holding {@code NULL} */
    static boolean isNull(Lua l, int index) {
        return l.type(index) == Lua.LuaType.LIGHTUSERDATA && natives(l).lua_touserdata(l.getPointer(), index) == 0;
    }

    // ------------------------------------------------------------------ errors

    /** A Lua error a library function raises: thrown in Java, raised by {@link #guard}'s wrapper. */
    static final class Raised extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final byte[] message;
        /** Whether the caller's position is put before the message, as {@code luaL_error} does. */
        final boolean where;

        Raised(byte[] message, boolean where) {
            super(null, null, false, false);
            this.message = message;
            this.where = where;
        }

        Raised(String message, boolean where) {
            this(message.getBytes(StandardCharsets.ISO_8859_1), where);
        }
    }

    /** {@code luaL_error}: the caller's position, then {@code message}. */
    static Raised error(String message) {
        return new Raised(message, true);
    }

    /** {@code luaL_error} with bytes that may be any (a user's text in the message). */
    static Raised error(byte[] message) {
        return new Raised(message, true);
    }

    /** An error Lua's core raises from a C function: no position ({@code table index is nil}). */
    static Raised plainError(String message) {
        return new Raised(message, false);
    }

    /** {@code luaL_argerror}: {@code bad argument #n to 'name' (extra)}, named as the caller named the function. */
    Raised argError(Lua l, int narg, String extra) {
        return argError(l, narg, extra.getBytes(StandardCharsets.ISO_8859_1));
    }

    Raised argError(Lua l, int narg, byte[] extra) {
        String name = null;
        String namewhat = "";
        if (namerRef >= 0) {
            int top = l.getTop();
            try {
                l.refGet(namerRef);
                l.pCall(0, 2);
                if (l.type(-2) == Lua.LuaType.STRING) {
                    name = new String(LuaValues.bytes(l, -2), StandardCharsets.ISO_8859_1);
                }
                if (l.type(-1) == Lua.LuaType.STRING) {
                    namewhat = new String(LuaValues.bytes(l, -1), StandardCharsets.ISO_8859_1);
                }
            } catch (RuntimeException e) {
                name = null;
            }
            l.setTop(top);
        }
        String tail = new String(extra, StandardCharsets.ISO_8859_1);
        if (namewhat.equals("method")) {
            narg--;
            if (narg == 0) {
                return error(("calling '" + name + "' on bad self (" + tail + ")")
                        .getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        return error(("bad argument #" + narg + " to '" + (name == null ? "?" : name) + "' (" + tail + ")")
                .getBytes(StandardCharsets.ISO_8859_1));
    }

    /** {@code luaL_typerror}: {@code bad argument #n to 'name' (number expected, got nil)}. */
    Raised typeError(Lua l, int narg, String expected) {
        return argError(l, narg, expected + " expected, got " + typeName(l, narg));
    }

    /** {@code luaL_typename}: the type's name, {@code no value} past the top. */
    static String typeName(Lua l, int index) {
        return typeName(l.type(index));
    }

    static String typeName(Lua.LuaType t) {
        if (t == null) {
            return "no value";
        }
        return switch (t) {
            case NONE -> "no value";
            case NIL -> "nil";
            case BOOLEAN -> "boolean";
            case LIGHTUSERDATA, USERDATA -> "userdata";
            case NUMBER -> "number";
            case STRING -> "string";
            case TABLE -> "table";
            case FUNCTION -> "function";
            case THREAD -> "thread";
        };
    }

    // ------------------------------------------------------------------ arguments

    /** {@code luaL_checknumber}. */
    double checkNumber(Lua l, int narg) {
        double d = l.toNumber(narg);
        if (d == 0 && !l.isNumber(narg)) {
            throw typeError(l, narg, "number");
        }
        return d;
    }

    /** {@code luaL_checkinteger}: C's truncation of the number to a {@code long}. */
    long checkInteger(Lua l, int narg) {
        long v = l.toInteger(narg);
        if (v == 0 && !l.isNumber(narg)) {
            throw typeError(l, narg, "number");
        }
        return v;
    }

    /** {@code luaL_optinteger}. */
    long optInteger(Lua l, int narg, long def) {
        return l.isNoneOrNil(narg) ? def : checkInteger(l, narg);
    }

    /** {@code luaL_checklstring}: a string's bytes, or a number's text (which replaces the number, as in C). */
    byte[] checkBytes(Lua l, int narg) {
        Lua.LuaType t = l.type(narg);
        if (t != Lua.LuaType.STRING && t != Lua.LuaType.NUMBER) {
            throw typeError(l, narg, "string");
        }
        return LuaValues.bytes(l, narg);
    }

    /** {@code luaL_checkstring} as C reads it: up to the first zero byte. */
    byte[] checkCString(Lua l, int narg) {
        byte[] b = checkBytes(l, narg);
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                return java.util.Arrays.copyOf(b, i);
            }
        }
        return b;
    }

    /** Pushes a Lua number. */
    static void push(Lua l, double d) {
        l.push(d);
    }

    /** C's conversion of a double to {@code int} on x86-64 ({@code cvttsd2si}): out of range is the smallest int. */
    static int toInt(double d) {
        if (Double.isNaN(d) || d >= 0x1p31 || d <= -0x1p31 - 1) {
            return Integer.MIN_VALUE;
        }
        return (int) d;
    }

    /** C's conversion of a double to {@code long} on x86-64: out of range is the smallest long. */
    static long toLong(double d) {
        return LuaValues.truncate(d);
    }

    /** C's conversion of a double to an unsigned {@code long} as gcc compiles it for x86-64. */
    static long toUnsignedLong(double d) {
        if (d >= 0x1p63) {
            return toLong(d - 0x1p63) ^ Long.MIN_VALUE;
        }
        return toLong(d);
    }

    /** C's conversion of an unsigned {@code long} to a double (rounded to nearest). */
    static double unsignedToDouble(long v) {
        if (v >= 0) {
            return v;
        }
        return ((double) ((v >>> 1) | (v & 1))) * 2.0;
    }
}
