package tandem.store;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import party.iroiro.luajava.Lua;

/**
 * Redis's {@code struct} library, Roberto Ierusalimschy's lua_struct ({@code deps/lua/src/lua_struct.c}): packs
 * Lua values into binary strings and back by a format, with x86-64's sizes (short 2, int 4, long and size_t 8) and
 * alignment ({@code !} alone is 8), little-endian unless the format says {@code >}. Numbers are converted as that C
 * code converts them on x86-64 (a number out of a long's range is {@code LONG_MIN}'s bits). Hand-written, see
 * {@link LuaLibraries}.
 */
final class LuaStruct {

    private static final int BIG = 0;
    private static final int LITTLE = 1;
    private static final int MAXINTSIZE = 32;
    private static final int MAXALIGN = 8;

    private LuaStruct() {
    }

    static void newTable(LuaLibraries libs, Lua l) {
        l.createTable(0, 3);
        libs.function(l, "pack", x -> pack(libs, x));
        libs.function(l, "unpack", x -> unpack(libs, x));
        libs.function(l, "size", x -> size(libs, x));
    }

    /** The format being read, and its options so far ({@code Header} in C). */
    private static final class Format {
        final byte[] fmt;
        int at;
        int endian = LITTLE;
        int align = 1;

        Format(byte[] fmt) {
            this.fmt = fmt;
        }

        boolean more() {
            return at < fmt.length;
        }

        /** The next byte as C's (signed) {@code char}, then {@code int}. */
        int next() {
            return fmt[at++];
        }

        int peek() {
            return at < fmt.length ? fmt[at] : 0;
        }
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static int getnum(Format f, int df) {
        if (!isDigit(f.peek())) {
            return df;
        }
        int a = 0;
        do {
            if (a > Integer.MAX_VALUE / 10 || a * 10 > Integer.MAX_VALUE - (f.peek() - '0')) {
                throw LuaLibraries.error("integral size overflow");
            }
            a = a * 10 + f.next() - '0';
        } while (isDigit(f.peek()));
        return a;
    }

    private static long optsize(int opt, Format f) {
        switch (opt) {
            case 'B', 'b':
                return 1;
            case 'H', 'h':
                return 2;
            case 'L', 'l', 'T', 'd':
                return 8;
            case 'f':
                return 4;
            case 'x':
                return 1;
            case 'c':
                return getnum(f, 1);
            case 'i', 'I': {
                int sz = getnum(f, 4);
                if (sz > MAXINTSIZE) {
                    throw LuaLibraries.error("integral size " + sz + " is larger than limit of " + MAXINTSIZE);
                }
                return sz;
            }
            default:
                return 0;
        }
    }

    private static long gettoalign(long len, Format f, int opt, long size) {
        if (size == 0 || opt == 'c') {
            return 0;
        }
        if (Long.compareUnsigned(size, f.align) > 0) {
            size = f.align;
        }
        return (size - (len & (size - 1))) & (size - 1);
    }

    private static void controloptions(LuaLibraries libs, Lua l, int opt, Format f) {
        switch (opt) {
            case ' ':
                return;
            case '>':
                f.endian = BIG;
                return;
            case '<':
                f.endian = LITTLE;
                return;
            case '!': {
                int a = getnum(f, MAXALIGN);
                if (!(a > 0 && (a & (a - 1)) == 0)) {
                    throw LuaLibraries.error("alignment " + a + " is not a power of 2");
                }
                f.align = a;
                return;
            }
            default: {
                byte[] prefix = "invalid format option '".getBytes(StandardCharsets.ISO_8859_1);
                byte[] msg = new byte[prefix.length + 2];
                System.arraycopy(prefix, 0, msg, 0, prefix.length);
                msg[prefix.length] = (byte) opt;
                msg[prefix.length + 1] = '\'';
                throw libs.argError(l, 1, msg);
            }
        }
    }

    private static boolean isIntegral(int opt) {
        return switch (opt) {
            case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I' -> true;
            default -> false;
        };
    }

    private static int pack(LuaLibraries libs, Lua l) {
        Format f = new Format(libs.checkCString(l, 1));
        l.pushNil(); // C's mark between the arguments and its buffer: an argument missing after the last is nil
        int arg = 2;
        long totalsize = 0;
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (f.more()) {
            int opt = f.next();
            long size = optsize(opt, f);
            long toalign = gettoalign(totalsize, f, opt, size);
            totalsize += toalign;
            while (toalign-- > 0) {
                b.write(0);
            }
            if (isIntegral(opt)) {
                putinteger(libs, l, b, arg++, f.endian, (int) size);
            } else if (opt == 'x') {
                b.write(0);
            } else if (opt == 'f') {
                float v = (float) libs.checkNumber(l, arg++);
                putBytes(b, Float.floatToRawIntBits(v), 4, f.endian);
            } else if (opt == 'd') {
                double v = libs.checkNumber(l, arg++);
                putBytes(b, Double.doubleToRawLongBits(v), 8, f.endian);
            } else if (opt == 'c' || opt == 's') {
                byte[] s = libs.checkBytes(l, arg++);
                if (size == 0) {
                    size = s.length;
                }
                if (Long.compareUnsigned(s.length, size) < 0) {
                    throw libs.argError(l, arg, "string too short");
                }
                b.write(s, 0, (int) size);
                if (opt == 's') {
                    b.write(0);
                    size++;
                }
            } else {
                controloptions(libs, l, opt, f);
            }
            totalsize += size;
        }
        LuaValues.pushBytes(l, b.toByteArray());
        return 1;
    }

    private static void putinteger(LuaLibraries libs, Lua l, ByteArrayOutputStream b, int arg, int endian,
            int size) {
        double n = libs.checkNumber(l, arg);
        long value = n < 0 ? LuaLibraries.toLong(n) : LuaLibraries.toUnsignedLong(n);
        byte[] buff = new byte[size];
        if (endian == LITTLE) {
            for (int i = 0; i < size; i++) {
                buff[i] = (byte) value;
                value >>>= 8;
            }
        } else {
            for (int i = size - 1; i >= 0; i--) {
                buff[i] = (byte) value;
                value >>>= 8;
            }
        }
        b.write(buff, 0, size);
    }

    /** The {@code size} low bytes of {@code bits}, little-endian or big-endian. */
    private static void putBytes(ByteArrayOutputStream b, long bits, int size, int endian) {
        for (int i = 0; i < size; i++) {
            int shift = endian == LITTLE ? i * 8 : (size - 1 - i) * 8;
            b.write((int) (bits >>> shift));
        }
    }

    private static long getBytes(byte[] data, int pos, int size, int endian) {
        long v = 0;
        for (int i = 0; i < size; i++) {
            int shift = endian == LITTLE ? i * 8 : (size - 1 - i) * 8;
            v |= (long) (data[pos + i] & 0xff) << shift;
        }
        return v;
    }

    private static double getinteger(byte[] data, int pos, int endian, boolean signed, int size) {
        long v = 0;
        if (endian == BIG) {
            for (int i = 0; i < size; i++) {
                v <<= 8;
                v |= data[pos + i] & 0xff;
            }
        } else {
            for (int i = size - 1; i >= 0; i--) {
                v <<= 8;
                v |= data[pos + i] & 0xff;
            }
        }
        if (!signed) {
            return LuaLibraries.unsignedToDouble(v);
        }
        long mask = -1L << (size * 8 - 1); // a shift by 64 or more is by its low six bits, as on x86-64
        if ((v & mask) != 0) {
            v |= mask;
        }
        return v;
    }

    private static int unpack(LuaLibraries libs, Lua l) {
        Format f = new Format(libs.checkCString(l, 1));
        byte[] data = libs.checkBytes(l, 2);
        long ld = data.length;
        long pos = libs.optInteger(l, 3, 1);
        if (pos == 0) {
            throw libs.argError(l, 3, "offset must be 1 or greater");
        }
        pos--;
        int n = 0;
        while (f.more()) {
            int opt = f.next();
            long size = optsize(opt, f);
            pos += gettoalign(pos, f, opt, size);
            if (!(Long.compareUnsigned(size, ld) <= 0 && Long.compareUnsigned(pos, ld - size) <= 0)) {
                throw libs.argError(l, 2, "data string too short");
            }
            LuaLibraries.checkStack(l, 2, "too many results");
            int p = (int) pos;
            if (isIntegral(opt)) {
                l.push(getinteger(data, p, f.endian, Character.isLowerCase(opt), (int) size));
                n++;
            } else if (opt == 'x') {
                // padding
            } else if (opt == 'f') {
                l.push((double) Float.intBitsToFloat((int) getBytes(data, p, 4, f.endian)));
                n++;
            } else if (opt == 'd') {
                l.push(Double.longBitsToDouble(getBytes(data, p, 8, f.endian)));
                n++;
            } else if (opt == 'c') {
                if (size == 0) {
                    if (n == 0 || !l.isNumber(-1)) {
                        throw LuaLibraries.error("format 'c0' needs a previous size");
                    }
                    size = LuaLibraries.toUnsignedLong(l.toNumber(-1));
                    l.pop(1);
                    n--;
                    if (!(Long.compareUnsigned(size, ld) <= 0 && Long.compareUnsigned(pos, ld - size) <= 0)) {
                        throw libs.argError(l, 2, "data string too short");
                    }
                }
                push(l, data, p, (int) size);
                n++;
            } else if (opt == 's') {
                int e = p;
                while (e < data.length && data[e] != 0) {
                    e++;
                }
                if (e == data.length) {
                    throw LuaLibraries.error("unfinished string in data");
                }
                size = e - p + 1;
                push(l, data, p, (int) size - 1);
                n++;
            } else {
                controloptions(libs, l, opt, f);
            }
            pos += size;
        }
        l.push((double) (pos + 1));
        return n + 1;
    }

    private static void push(Lua l, byte[] data, int from, int length) {
        byte[] b = new byte[length];
        System.arraycopy(data, from, b, 0, length);
        LuaValues.pushBytes(l, b);
    }

    private static int size(LuaLibraries libs, Lua l) {
        Format f = new Format(libs.checkCString(l, 1));
        long pos = 0;
        while (f.more()) {
            int opt = f.next();
            long size = optsize(opt, f);
            pos += gettoalign(pos, f, opt, size);
            if (opt == 's') {
                throw libs.argError(l, 1, "option 's' has no fixed size");
            } else if (opt == 'c' && size == 0) {
                throw libs.argError(l, 1, "option 'c0' has no fixed size");
            }
            if (!Character.isLetterOrDigit(opt)) { // a byte past 127 is a negative char: not alphanumeric
                controloptions(libs, l, opt, f);
            }
            pos += size;
        }
        l.push((double) pos);
        return 1;
    }
}
