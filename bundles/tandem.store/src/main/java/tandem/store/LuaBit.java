package tandem.store;

import party.iroiro.luajava.Lua;

/**
 * Redis's {@code bit} library, LuaBitOp 1.0.2 ({@code deps/lua/src/lua_bit.c}): 32-bit operations on Lua's
 * numbers. A number becomes its 32 bits as LuaBitOp makes them, by adding 2<sup>52</sup>+2<sup>51</sup> and keeping
 * the low word of the double (so a fraction rounds half to even, and a number past 2<sup>51</sup> wraps); results
 * are signed. Hand-written, see {@link LuaLibraries}.
 */
final class LuaBit {

    private LuaBit() {
    }

    static void newTable(LuaLibraries libs, Lua l) {
        l.createTable(0, 12);
        libs.function(l, "tobit", x -> ret(x, barg(libs, x, 1)));
        libs.function(l, "bnot", x -> ret(x, ~barg(libs, x, 1)));
        libs.function(l, "band", x -> {
            int b = barg(libs, x, 1);
            for (int i = x.getTop(); i > 1; i--) {
                b &= barg(libs, x, i);
            }
            return ret(x, b);
        });
        libs.function(l, "bor", x -> {
            int b = barg(libs, x, 1);
            for (int i = x.getTop(); i > 1; i--) {
                b |= barg(libs, x, i);
            }
            return ret(x, b);
        });
        libs.function(l, "bxor", x -> {
            int b = barg(libs, x, 1);
            for (int i = x.getTop(); i > 1; i--) {
                b ^= barg(libs, x, i);
            }
            return ret(x, b);
        });
        libs.function(l, "lshift", x -> {
            int b = barg(libs, x, 1);
            int n = barg(libs, x, 2) & 31;
            return ret(x, b << n);
        });
        libs.function(l, "rshift", x -> {
            int b = barg(libs, x, 1);
            int n = barg(libs, x, 2) & 31;
            return ret(x, b >>> n);
        });
        libs.function(l, "arshift", x -> {
            int b = barg(libs, x, 1);
            int n = barg(libs, x, 2) & 31;
            return ret(x, b >> n);
        });
        libs.function(l, "rol", x -> {
            int b = barg(libs, x, 1);
            int n = barg(libs, x, 2) & 31;
            return ret(x, Integer.rotateLeft(b, n));
        });
        libs.function(l, "ror", x -> {
            int b = barg(libs, x, 1);
            int n = barg(libs, x, 2) & 31;
            return ret(x, Integer.rotateRight(b, n));
        });
        libs.function(l, "bswap", x -> ret(x, Integer.reverseBytes(barg(libs, x, 1))));
        libs.function(l, "tohex", x -> {
            int b = barg(libs, x, 1);
            int n = x.getTop() < 2 ? 8 : barg(libs, x, 2);
            String digits = "0123456789abcdef";
            if (n < 0) {
                n = -n;
                digits = "0123456789ABCDEF";
            }
            if (n > 8) {
                n = 8;
            }
            if (n < 0) {
                n = 0; // -(-2^31): C asks Lua for a string of 2^64 - 2^31 bytes, and fails
            }
            char[] buf = new char[n];
            for (int i = n; --i >= 0;) {
                buf[i] = digits.charAt(b & 15);
                b >>>= 4;
            }
            x.push(new String(buf));
            return 1;
        });
    }

    /** LuaBitOp's {@code barg}: the number's 32 bits; an argument that is not a number is an error. */
    private static int barg(LuaLibraries libs, Lua l, int index) {
        double n = l.toNumber(index) + 6755399441055744.0;
        int b = (int) Double.doubleToRawLongBits(n);
        if (b == 0 && !l.isNumber(index)) {
            throw libs.typeError(l, index, "number");
        }
        return b;
    }

    private static int ret(Lua l, int b) {
        l.push((double) b);
        return 1;
    }
}
