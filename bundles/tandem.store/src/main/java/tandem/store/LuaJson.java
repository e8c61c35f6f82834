package tandem.store;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

import party.iroiro.luajava.Lua;

/**
 * Redis's {@code cjson} library, lua-cjson 2.1.0 as Redis 7.0.15 patches it ({@code deps/lua/src/lua_cjson.c},
 * {@code fpconv.c}): Lua values to JSON and back. Numbers are written with C's {@code %.14g} (the precision is
 * {@code encode_number_precision}) and read with glibc's {@code strtod} rules (hexadecimal, {@code inf},
 * {@code nan}, a leading {@code +} are numbers while {@code decode_invalid_numbers} is on, as it is by default);
 * {@code /} is escaped as {@code \/}; a table is an array when its keys are positive integers and not too sparse,
 * else an object; JSON's {@code null} is {@code cjson.null}, C's {@code NULL} as a light userdata. Errors have
 * lua-cjson's words and character positions. Each table (the global one, and each {@code cjson.new()}) has its own
 * configuration. Hand-written, see {@link LuaLibraries}.
 */
final class LuaJson {

    // tokens, in lua-cjson's order (their names are in its error messages)
    private static final int T_OBJ_BEGIN = 0;
    private static final int T_OBJ_END = 1;
    private static final int T_ARR_BEGIN = 2;
    private static final int T_ARR_END = 3;
    private static final int T_STRING = 4;
    private static final int T_NUMBER = 5;
    private static final int T_BOOLEAN = 6;
    private static final int T_NULL = 7;
    private static final int T_COLON = 8;
    private static final int T_COMMA = 9;
    private static final int T_END = 10;
    private static final int T_WHITESPACE = 11;
    private static final int T_ERROR = 12;
    private static final int T_UNKNOWN = 13;
    private static final String[] TOKEN_NAMES = {"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
        "T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"};

    private static final int[] CH2TOKEN = new int[256];
    private static final byte[] ESCAPE2CHAR = new byte[256];
    private static final String[] CHAR2ESCAPE = new String[256];

    static {
        java.util.Arrays.fill(CH2TOKEN, T_ERROR);
        CH2TOKEN['{'] = T_OBJ_BEGIN;
        CH2TOKEN['}'] = T_OBJ_END;
        CH2TOKEN['['] = T_ARR_BEGIN;
        CH2TOKEN[']'] = T_ARR_END;
        CH2TOKEN[','] = T_COMMA;
        CH2TOKEN[':'] = T_COLON;
        CH2TOKEN[0] = T_END;
        CH2TOKEN[' '] = T_WHITESPACE;
        CH2TOKEN['\t'] = T_WHITESPACE;
        CH2TOKEN['\n'] = T_WHITESPACE;
        CH2TOKEN['\r'] = T_WHITESPACE;
        for (char c : "fiInNt\"+-0123456789".toCharArray()) {
            CH2TOKEN[c] = T_UNKNOWN;
        }
        ESCAPE2CHAR['"'] = '"';
        ESCAPE2CHAR['\\'] = '\\';
        ESCAPE2CHAR['/'] = '/';
        ESCAPE2CHAR['b'] = '\b';
        ESCAPE2CHAR['t'] = '\t';
        ESCAPE2CHAR['n'] = '\n';
        ESCAPE2CHAR['f'] = '\f';
        ESCAPE2CHAR['r'] = '\r';
        ESCAPE2CHAR['u'] = 'u';
        for (int c = 0; c < 0x20; c++) {
            CHAR2ESCAPE[c] = String.format("\\u%04x", c);
        }
        CHAR2ESCAPE['\b'] = "\\b";
        CHAR2ESCAPE['\t'] = "\\t";
        CHAR2ESCAPE['\n'] = "\\n";
        CHAR2ESCAPE['\f'] = "\\f";
        CHAR2ESCAPE['\r'] = "\\r";
        CHAR2ESCAPE['"'] = "\\\"";
        CHAR2ESCAPE['/'] = "\\/";
        CHAR2ESCAPE['\\'] = "\\\\";
        CHAR2ESCAPE[0x7f] = "\\u007f";
    }

    /** A table's settings ({@code json_config_t}), with lua-cjson's defaults. */
    private static final class Config {
        final int[] v = {0, 2, 10, 1000, 1000, 0, 1, 1, 14};
    }

    private static final int SPARSE_CONVERT = 0;
    private static final int SPARSE_RATIO = 1;
    private static final int SPARSE_SAFE = 2;
    private static final int ENCODE_MAX_DEPTH = 3;
    private static final int DECODE_MAX_DEPTH = 4;
    private static final int ENCODE_INVALID_NUMBERS = 5;
    private static final int DECODE_INVALID_NUMBERS = 6;
    private static final int ENCODE_KEEP_BUFFER = 7;
    private static final int ENCODE_NUMBER_PRECISION = 8;

    private static final String[] BOOL_OPTIONS = {"off", "on"};
    private static final String[] INVALID_OPTIONS = {"off", "on", "null"};

    private LuaJson() {
    }

    /** Pushes a new {@code cjson} table, with its own configuration ({@code lua_cjson_new}). */
    static void newTable(LuaLibraries libs, Lua l) {
        Config cfg = new Config();
        int[] v = cfg.v;
        l.createTable(0, 13);
        libs.function(l, "encode", x -> encode(libs, cfg, x));
        libs.function(l, "decode", x -> decode(libs, cfg, x));
        libs.function(l, "encode_sparse_array", x -> {
            argInit(libs, x, 3);
            enumOption(libs, x, 1, v, SPARSE_CONVERT, null, 1);
            integerOption(libs, x, 2, v, SPARSE_RATIO, 0, Integer.MAX_VALUE);
            integerOption(libs, x, 3, v, SPARSE_SAFE, 0, Integer.MAX_VALUE);
            return 3;
        });
        libs.function(l, "encode_max_depth", x -> {
            argInit(libs, x, 1);
            return integerOption(libs, x, 1, v, ENCODE_MAX_DEPTH, 1, Integer.MAX_VALUE);
        });
        libs.function(l, "decode_max_depth", x -> {
            argInit(libs, x, 1);
            return integerOption(libs, x, 1, v, DECODE_MAX_DEPTH, 1, Integer.MAX_VALUE);
        });
        libs.function(l, "encode_number_precision", x -> {
            argInit(libs, x, 1);
            return integerOption(libs, x, 1, v, ENCODE_NUMBER_PRECISION, 1, 14);
        });
        libs.function(l, "encode_keep_buffer", x -> {
            argInit(libs, x, 1);
            return enumOption(libs, x, 1, v, ENCODE_KEEP_BUFFER, null, 1);
        });
        libs.function(l, "encode_invalid_numbers", x -> {
            argInit(libs, x, 1);
            return enumOption(libs, x, 1, v, ENCODE_INVALID_NUMBERS, INVALID_OPTIONS, 1);
        });
        libs.function(l, "decode_invalid_numbers", x -> {
            argInit(libs, x, 1);
            return enumOption(libs, x, 1, v, DECODE_INVALID_NUMBERS, null, 1);
        });
        libs.function(l, "new", x -> {
            newTable(libs, x);
            return 1;
        });
        LuaLibraries.pushNull(l);
        l.setField(-2, "null");
        l.push("cjson");
        l.setField(-2, "_NAME");
        l.push("2.1.0");
        l.setField(-2, "_VERSION");
    }

    // ------------------------------------------------------------------ configuration

    private static void argInit(LuaLibraries libs, Lua l, int args) {
        if (l.getTop() > args) {
            throw libs.argError(l, args + 1, "found too many arguments");
        }
        if (l.getTop() < args) {
            l.setTop(args);
        }
    }

    private static int integerOption(LuaLibraries libs, Lua l, int index, int[] v, int setting, int min, int max) {
        if (!l.isNil(index)) {
            int value = (int) libs.checkInteger(l, index);
            if (!(min <= value && value <= max)) {
                throw libs.argError(l, 1, "expected integer between " + min + " and " + max);
            }
            v[setting] = value;
        }
        l.push((double) v[setting]);
        return 1;
    }

    private static int enumOption(LuaLibraries libs, Lua l, int index, int[] v, int setting, String[] options,
            int boolTrue) {
        if (options == null) {
            options = BOOL_OPTIONS;
            boolTrue = 1;
        }
        if (!l.isNil(index)) {
            if (boolTrue != 0 && l.isBoolean(index)) {
                v[setting] = l.toBoolean(index) ? boolTrue : 0;
            } else {
                byte[] name = libs.checkCString(l, index);
                String option = new String(name, StandardCharsets.ISO_8859_1);
                int found = java.util.Arrays.asList(options).indexOf(option);
                if (found < 0) {
                    byte[] prefix = "invalid option '".getBytes(StandardCharsets.ISO_8859_1);
                    byte[] msg = new byte[prefix.length + name.length + 1];
                    System.arraycopy(prefix, 0, msg, 0, prefix.length);
                    System.arraycopy(name, 0, msg, prefix.length, name.length);
                    msg[msg.length - 1] = '\'';
                    throw libs.argError(l, index, msg);
                }
                v[setting] = found;
            }
        }
        if (boolTrue != 0 && (v[setting] == 0 || v[setting] == boolTrue)) {
            l.push(v[setting] != 0);
        } else {
            l.push(options[v[setting]]);
        }
        return 1;
    }

    // ------------------------------------------------------------------ encoding

    private static int encode(LuaLibraries libs, Config cfg, Lua l) {
        if (l.getTop() != 1) {
            throw libs.argError(l, 1, "expected 1 argument");
        }
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        appendData(l, cfg.v, json);
        LuaValues.pushBytes(l, json.toByteArray());
        return 1;
    }

    private static LuaLibraries.Raised encodeException(Lua l, int index, String reason) {
        return LuaLibraries.error("Cannot serialise " + LuaLibraries.typeName(l, index) + ": " + reason);
    }

    private static void appendString(Lua l, ByteArrayOutputStream json, int index) {
        byte[] s = LuaValues.bytes(l, index);
        json.write('"');
        for (byte b : s) {
            String escape = CHAR2ESCAPE[b & 0xff];
            if (escape != null) {
                json.writeBytes(escape.getBytes(StandardCharsets.ISO_8859_1));
            } else {
                json.write(b);
            }
        }
        json.write('"');
    }

    /** {@code lua_array_length}: the array's length, or -1 for an object (the table is on the top). */
    private static int arrayLength(Lua l, int[] v) {
        int max = 0;
        int items = 0;
        l.pushNil();
        while (l.next(-2) != 0) {
            double k;
            if (l.type(-2) == Lua.LuaType.NUMBER && (k = l.toNumber(-2)) != 0) {
                if (Math.floor(k) == k && k >= 1) {
                    if (k > max) {
                        max = LuaLibraries.toInt(k);
                    }
                    items++;
                    l.pop(1);
                    continue;
                }
            }
            l.pop(2);
            return -1;
        }
        if (v[SPARSE_RATIO] > 0 && max > items * v[SPARSE_RATIO] && max > v[SPARSE_SAFE]) {
            if (v[SPARSE_CONVERT] == 0) {
                throw encodeException(l, -1, "excessively sparse array");
            }
            return -1;
        }
        return max;
    }

    private static void appendNumber(Lua l, int[] v, ByteArrayOutputStream json, int index) {
        double num = l.toNumber(index);
        int invalid = v[ENCODE_INVALID_NUMBERS];
        if (invalid == 0) {
            if (Double.isInfinite(num) || Double.isNaN(num)) {
                throw encodeException(l, index, "must not be NaN or Inf");
            }
        } else if (invalid == 1) {
            if (Double.isNaN(num)) {
                json.writeBytes("nan".getBytes(StandardCharsets.ISO_8859_1));
                return;
            }
        } else if (Double.isInfinite(num) || Double.isNaN(num)) {
            json.writeBytes("null".getBytes(StandardCharsets.ISO_8859_1));
            return;
        }
        json.writeBytes(formatG(num, v[ENCODE_NUMBER_PRECISION]).getBytes(StandardCharsets.ISO_8859_1));
    }

    /** An array or object being written: the table is on the stack's top while its entries are. */
    private static final class Open {
        final boolean array;
        final int depth;
        final int length;
        int index;

        Open(boolean array, int depth, int length) {
            this.array = array;
            this.depth = depth;
            this.length = length;
        }
    }

    /**
     * {@code json_append_data} over the value on the stack's top, walked without recursion (a Java stack that runs
     * out inside a native call takes the process down): the Lua stack holds what C's recursion holds on it.
     */
    private static void appendData(Lua l, int[] v, ByteArrayOutputStream json) {
        java.util.ArrayDeque<Open> open = new java.util.ArrayDeque<>();
        if (!appendValue(l, v, 0, json, open)) {
            return;
        }
        while (!open.isEmpty()) {
            Open t = open.peek();
            if (t.array) {
                if (t.index < t.length) {
                    if (t.index++ > 0) {
                        json.write(',');
                    }
                    l.rawGetI(-1, t.index);
                    if (!appendValue(l, v, t.depth, json, open)) {
                        l.pop(1);
                    }
                    continue;
                }
                json.write(']');
            } else {
                if (l.next(-2) != 0) {
                    if (t.index++ > 0) {
                        json.write(',');
                    }
                    Lua.LuaType keytype = l.type(-2);
                    if (keytype == Lua.LuaType.NUMBER) {
                        json.write('"');
                        appendNumber(l, v, json, -2);
                        json.write('"');
                        json.write(':');
                    } else if (keytype == Lua.LuaType.STRING) {
                        appendString(l, json, -2);
                        json.write(':');
                    } else {
                        throw encodeException(l, -2, "table key must be a number or string");
                    }
                    if (!appendValue(l, v, t.depth, json, open)) {
                        l.pop(1);
                    }
                    continue;
                }
                json.write('}');
            }
            open.pop();
            if (!open.isEmpty()) {
                l.pop(1); // the finished table was its parent's entry
            }
        }
    }

    /**
     * Writes the value on the top, or opens it when it is a table ({@code [} or <code>{</code>, and an entry in
     * {@code open}).
     *
     * @return whether a table was opened
     */
    private static boolean appendValue(Lua l, int[] v, int depth, ByteArrayOutputStream json,
            java.util.ArrayDeque<Open> open) {
        switch (l.type(-1)) {
            case STRING -> appendString(l, json, -1);
            case NUMBER -> appendNumber(l, v, json, -1);
            case BOOLEAN -> json.writeBytes((l.toBoolean(-1) ? "true" : "false").getBytes(StandardCharsets.ISO_8859_1));
            case TABLE -> {
                depth++;
                if (!(depth <= v[ENCODE_MAX_DEPTH] && LuaLibraries.checkStack(l, 3))) {
                    throw LuaLibraries.error("Cannot serialise, excessive nesting (" + depth + ")");
                }
                int len = arrayLength(l, v);
                if (len > 0) {
                    json.write('[');
                    open.push(new Open(true, depth, len));
                } else {
                    json.write('{');
                    l.pushNil();
                    open.push(new Open(false, depth, 0));
                }
                return true;
            }
            case NIL -> json.writeBytes("null".getBytes(StandardCharsets.ISO_8859_1));
            default -> {
                if (LuaLibraries.isNull(l, -1)) {
                    json.writeBytes("null".getBytes(StandardCharsets.ISO_8859_1));
                } else {
                    throw encodeException(l, -1, "type not supported");
                }
            }
        }
        return false;
    }

    /** C's {@code printf("%.<precision>g", num)} as glibc writes it: exact decimal, rounded half to even. */
    static String formatG(double num, int precision) {
        boolean negative = (Double.doubleToRawLongBits(num) & Long.MIN_VALUE) != 0;
        if (Double.isNaN(num)) {
            return negative ? "-nan" : "nan";
        }
        if (Double.isInfinite(num)) {
            return negative ? "-inf" : "inf";
        }
        if (num == 0) {
            return negative ? "-0" : "0";
        }
        BigDecimal rounded = new BigDecimal(num).abs().round(new MathContext(precision, RoundingMode.HALF_EVEN));
        String digits = rounded.unscaledValue().toString();
        int exponent = digits.length() - 1 - rounded.scale();
        // the significant digits, without the trailing zeros %g drops
        int end = digits.length();
        while (end > 1 && digits.charAt(end - 1) == '0') {
            end--;
        }
        digits = digits.substring(0, end);
        StringBuilder out = new StringBuilder(24);
        if (negative) {
            out.append('-');
        }
        if (exponent < -4 || exponent >= precision) {
            out.append(digits.charAt(0));
            if (digits.length() > 1) {
                out.append('.').append(digits, 1, digits.length());
            }
            out.append('e').append(exponent < 0 ? '-' : '+');
            int e = Math.abs(exponent);
            if (e < 10) {
                out.append('0');
            }
            out.append(e);
        } else if (exponent >= 0) {
            if (digits.length() <= exponent + 1) {
                out.append(digits);
                out.append("0".repeat(exponent + 1 - digits.length()));
            } else {
                out.append(digits, 0, exponent + 1).append('.').append(digits, exponent + 1, digits.length());
            }
        } else {
            out.append("0.").append("0".repeat(-exponent - 1)).append(digits);
        }
        return out.toString();
    }

    // ------------------------------------------------------------------ decoding

    private static final class Token {
        int type;
        int index;
        String error;
        double number;
        boolean bool;
        byte[] string;
    }

    /** The input being read ({@code json_parse_t}): past its end, as past a C string's, is a zero byte. */
    private static final class Parser {
        final byte[] data;
        final int[] v;
        int ptr;
        int depth;

        Parser(byte[] data, int[] v) {
            this.data = data;
            this.v = v;
        }

        int ch(int i) {
            return i < data.length ? data[i] & 0xff : 0;
        }

        /** The byte as C's signed {@code char}. */
        int sch(int i) {
            return i < data.length ? data[i] : 0;
        }

        boolean startsWith(String s) {
            for (int i = 0; i < s.length(); i++) {
                if (ch(ptr + i) != s.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        boolean startsWithIgnoreCase(int at, String s) {
            for (int i = 0; i < s.length(); i++) {
                int c = ch(at + i);
                if (c >= 'A' && c <= 'Z') {
                    c += 32;
                }
                if (c != s.charAt(i)) {
                    return false;
                }
            }
            return true;
        }
    }

    private static int decode(LuaLibraries libs, Config cfg, Lua l) {
        if (l.getTop() != 1) {
            throw libs.argError(l, 1, "expected 1 argument");
        }
        byte[] data = libs.checkBytes(l, 1);
        if (data.length >= 2 && (data[0] == 0 || data[1] == 0)) {
            throw LuaLibraries.error("JSON parser does not support UTF-16 or UTF-32");
        }
        Parser json = new Parser(data, cfg.v);
        Token token = new Token();
        nextToken(json, token);
        processValue(l, json, token);
        nextToken(json, token);
        if (token.type != T_END) {
            throw parseError(json, "the end", token);
        }
        return 1;
    }

    private static void tokenError(Token token, Parser json, String error) {
        token.type = T_ERROR;
        token.index = json.ptr;
        token.error = error;
    }

    private static int hexdigit(int c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        c |= 0x20;
        if (c >= 'a' && c <= 'f') {
            return 10 + c - 'a';
        }
        return -1;
    }

    private static int decodeHex4(Parser json, int at) {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int d = hexdigit(json.ch(at + i));
            if (d < 0) {
                return -1;
            }
            value = (value << 4) | d;
        }
        return value;
    }

    /** {@code json_append_unicode_escape}: at {@code \\u}, appends the code point as UTF-8; -1 when invalid. */
    private static int appendUnicodeEscape(Parser json, ByteArrayOutputStream tmp) {
        int escapeLen = 6;
        int codepoint = decodeHex4(json, json.ptr + 2);
        if (codepoint < 0) {
            return -1;
        }
        if ((codepoint & 0xF800) == 0xD800) {
            if ((codepoint & 0x400) != 0) {
                return -1;
            }
            if (json.ch(json.ptr + escapeLen) != '\\' || json.ch(json.ptr + escapeLen + 1) != 'u') {
                return -1;
            }
            int low = decodeHex4(json, json.ptr + 2 + escapeLen);
            if (low < 0 || (low & 0xFC00) != 0xDC00) {
                return -1;
            }
            codepoint = (((codepoint & 0x3FF) << 10) | (low & 0x3FF)) + 0x10000;
            escapeLen = 12;
        }
        if (codepoint <= 0x7F) {
            tmp.write(codepoint);
        } else if (codepoint <= 0x7FF) {
            tmp.write((codepoint >> 6) | 0xC0);
            tmp.write((codepoint & 0x3F) | 0x80);
        } else if (codepoint <= 0xFFFF) {
            tmp.write((codepoint >> 12) | 0xE0);
            tmp.write(((codepoint >> 6) & 0x3F) | 0x80);
            tmp.write((codepoint & 0x3F) | 0x80);
        } else {
            tmp.write((codepoint >> 18) | 0xF0);
            tmp.write(((codepoint >> 12) & 0x3F) | 0x80);
            tmp.write(((codepoint >> 6) & 0x3F) | 0x80);
            tmp.write((codepoint & 0x3F) | 0x80);
        }
        json.ptr += escapeLen;
        return 0;
    }

    private static void nextStringToken(Parser json, Token token) {
        json.ptr++;
        ByteArrayOutputStream tmp = new ByteArrayOutputStream();
        int ch;
        while ((ch = json.ch(json.ptr)) != '"') {
            if (ch == 0) {
                tokenError(token, json, "unexpected end of string");
                return;
            }
            if (ch == '\\') {
                ch = ESCAPE2CHAR[json.ch(json.ptr + 1)];
                if (ch == 'u') {
                    if (appendUnicodeEscape(json, tmp) == 0) {
                        continue;
                    }
                    tokenError(token, json, "invalid unicode escape code");
                    return;
                }
                if (ch == 0) {
                    tokenError(token, json, "invalid escape code");
                    return;
                }
                json.ptr++;
            }
            tmp.write(ch);
            json.ptr++;
        }
        json.ptr++;
        token.type = T_STRING;
        token.string = tmp.toByteArray();
    }

    private static boolean isInvalidNumber(Parser json) {
        int p = json.ptr;
        if (json.ch(p) == '+') {
            return true;
        }
        if (json.ch(p) == '-') {
            p++;
        }
        if (json.ch(p) == '0') {
            int ch2 = json.ch(p + 1);
            return (ch2 | 0x20) == 'x' || (ch2 >= '0' && ch2 <= '9');
        } else if (json.sch(p) <= '9') {
            return false;
        }
        return json.startsWithIgnoreCase(p, "inf") || json.startsWithIgnoreCase(p, "nan");
    }

    private static void nextNumberToken(Parser json, Token token) {
        token.type = T_NUMBER;
        double[] value = new double[1];
        int end = strtod(json.data, json.ptr, value);
        if (end == json.ptr) {
            tokenError(token, json, "invalid number");
        } else {
            token.number = value[0];
            json.ptr = end;
        }
    }

    private static void nextToken(Parser json, Token token) {
        int ch;
        while (true) {
            ch = json.ch(json.ptr);
            token.type = CH2TOKEN[ch];
            if (token.type != T_WHITESPACE) {
                break;
            }
            json.ptr++;
        }
        token.index = json.ptr;
        if (token.type == T_ERROR) {
            tokenError(token, json, "invalid token");
            return;
        }
        if (token.type == T_END) {
            return;
        }
        if (token.type != T_UNKNOWN) {
            json.ptr++;
            return;
        }
        boolean invalidAllowed = json.v[DECODE_INVALID_NUMBERS] != 0;
        if (ch == '"') {
            nextStringToken(json, token);
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            if (!invalidAllowed && isInvalidNumber(json)) {
                tokenError(token, json, "invalid number");
                return;
            }
            nextNumberToken(json, token);
        } else if (json.startsWith("true")) {
            token.type = T_BOOLEAN;
            token.bool = true;
            json.ptr += 4;
        } else if (json.startsWith("false")) {
            token.type = T_BOOLEAN;
            token.bool = false;
            json.ptr += 5;
        } else if (json.startsWith("null")) {
            token.type = T_NULL;
            json.ptr += 4;
        } else if (invalidAllowed && isInvalidNumber(json)) {
            nextNumberToken(json, token);
        } else {
            tokenError(token, json, "invalid token");
        }
    }

    private static LuaLibraries.Raised parseError(Parser json, String expected, Token token) {
        String found = token.type == T_ERROR ? token.error : TOKEN_NAMES[token.type];
        return LuaLibraries.error("Expected " + expected + " but found " + found + " at character "
                + (token.index + 1));
    }

    private static void descend(Lua l, Parser json, int slots) {
        json.depth++;
        if (json.depth <= json.v[DECODE_MAX_DEPTH] && LuaLibraries.checkStack(l, slots)) {
            return;
        }
        throw LuaLibraries.error("Found too many nested data structures (" + json.depth + ") at character "
                + json.ptr);
    }

    /** An array or object being read: its table is on the stack (under the key being read, for an object). */
    private static final class Reading {
        final boolean array;
        int index = 1;

        Reading(boolean array) {
            this.array = array;
        }
    }

    /**
     * {@code json_process_value} with the token read, and what it opens, walked without recursion (see
     * {@link #appendData}): the Lua stack holds what C's recursion holds on it, and the errors come in its order.
     */
    private static void processValue(Lua l, Parser json, Token token) {
        java.util.ArrayDeque<Reading> open = new java.util.ArrayDeque<>();
        while (true) {
            boolean done = true;
            switch (token.type) {
                case T_STRING -> LuaValues.pushBytes(l, token.string);
                case T_NUMBER -> l.push(token.number);
                case T_BOOLEAN -> l.push(token.bool);
                case T_NULL -> LuaLibraries.pushNull(l);
                case T_OBJ_BEGIN -> {
                    descend(l, json, 3);
                    l.createTable(0, 0);
                    nextToken(json, token);
                    if (token.type == T_OBJ_END) {
                        json.depth--;
                    } else {
                        open.push(new Reading(false));
                        readKey(l, json, token);
                        done = false;
                    }
                }
                case T_ARR_BEGIN -> {
                    descend(l, json, 2);
                    l.createTable(0, 0);
                    nextToken(json, token);
                    if (token.type == T_ARR_END) {
                        json.depth--;
                    } else {
                        open.push(new Reading(true));
                        done = false;
                    }
                }
                default -> throw parseError(json, "value", token);
            }
            // a value is on the top: it goes into the table that is open, which may then close, and so on
            while (done) {
                Reading r = open.peek();
                if (r == null) {
                    return;
                }
                if (r.array) {
                    l.rawSetI(-2, r.index++);
                    nextToken(json, token);
                    if (token.type == T_ARR_END) {
                        json.depth--;
                        open.pop();
                        continue;
                    }
                    if (token.type != T_COMMA) {
                        throw parseError(json, "comma or array end", token);
                    }
                    nextToken(json, token);
                } else {
                    l.rawSet(-3);
                    nextToken(json, token);
                    if (token.type == T_OBJ_END) {
                        json.depth--;
                        open.pop();
                        continue;
                    }
                    if (token.type != T_COMMA) {
                        throw parseError(json, "comma or object end", token);
                    }
                    nextToken(json, token);
                    readKey(l, json, token);
                }
                done = false;
            }
        }
    }

    /** At an object's key: pushes it, reads the colon, and reads the value's first token into {@code token}. */
    private static void readKey(Lua l, Parser json, Token token) {
        if (token.type != T_STRING) {
            throw parseError(json, "object key string", token);
        }
        LuaValues.pushBytes(l, token.string);
        nextToken(json, token);
        if (token.type != T_COLON) {
            throw parseError(json, "colon", token);
        }
        nextToken(json, token);
    }

    // ------------------------------------------------------------------ glibc's strtod

    /**
     * glibc's {@code strtod} from {@code start} (never at white space here): decimal, hexadecimal
     * ({@code 0x1.8p3}), {@code inf}/{@code infinity}, {@code nan} and {@code nan(chars)}, signed.
     *
     * @return the index after the number, {@code start} when there is none; the value in {@code out[0]}
     */
    static int strtod(byte[] s, int start, double[] out) {
        int p = start;
        boolean negative = false;
        int c = at(s, p);
        if (c == '+' || c == '-') {
            negative = c == '-';
            p++;
        }
        if (matches(s, p, "inf")) {
            p += matches(s, p, "infinity") ? 8 : 3;
            out[0] = negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            return p;
        }
        if (matches(s, p, "nan")) {
            p += 3;
            if (at(s, p) == '(') {
                int q = p + 1;
                while (Character.isLetterOrDigit(at(s, q)) && at(s, q) < 128 || at(s, q) == '_') {
                    q++;
                }
                if (at(s, q) == ')') {
                    p = q + 1;
                }
            }
            out[0] = Double.longBitsToDouble(negative ? 0xfff8000000000000L : 0x7ff8000000000000L);
            return p;
        }
        if (at(s, p) == '0' && (at(s, p + 1) | 0x20) == 'x') {
            int q = p + 2;
            StringBuilder mantissa = new StringBuilder();
            boolean any = false;
            while (hexdigit(at(s, q)) >= 0) {
                mantissa.append((char) at(s, q++));
                any = true;
            }
            if (at(s, q) == '.') {
                int r = q + 1;
                StringBuilder fraction = new StringBuilder();
                while (hexdigit(at(s, r)) >= 0) {
                    fraction.append((char) at(s, r++));
                }
                if (any || fraction.length() > 0) {
                    mantissa.append('.').append(fraction);
                    any = true;
                    q = r;
                }
            }
            if (any) {
                long exponent = 0;
                if ((at(s, q) | 0x20) == 'p') {
                    int r = q + 1;
                    boolean eneg = false;
                    if (at(s, r) == '+' || at(s, r) == '-') {
                        eneg = at(s, r) == '-';
                        r++;
                    }
                    if (isDigit(at(s, r))) {
                        while (isDigit(at(s, r))) {
                            exponent = Math.min(exponent * 10 + at(s, r) - '0', 100_000_000L);
                            r++;
                        }
                        if (eneg) {
                            exponent = -exponent;
                        }
                        q = r;
                    }
                }
                double v = Double.parseDouble("0x" + (mantissa.charAt(0) == '.' ? "0" : "") + mantissa + "p"
                        + exponent);
                out[0] = negative ? -v : v;
                return q;
            }
            // "0x" without a digit: the number is the 0
        }
        int q = p;
        int digits = 0;
        while (isDigit(at(s, q))) {
            q++;
            digits++;
        }
        if (at(s, q) == '.') {
            int r = q + 1;
            while (isDigit(at(s, r))) {
                r++;
                digits++;
            }
            if (digits > 0) {
                q = r;
            }
        }
        if (digits == 0) {
            out[0] = 0;
            return start;
        }
        int mantissaEnd = q;
        if ((at(s, q) | 0x20) == 'e') {
            int r = q + 1;
            if (at(s, r) == '+' || at(s, r) == '-') {
                r++;
            }
            if (isDigit(at(s, r))) {
                while (isDigit(at(s, r))) {
                    r++;
                }
                q = r;
            }
        }
        String text = new String(s, p, q - p, StandardCharsets.ISO_8859_1);
        double v;
        try {
            v = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            v = Double.parseDouble(new String(s, p, mantissaEnd - p, StandardCharsets.ISO_8859_1));
        }
        out[0] = negative ? -v : v;
        return q;
    }

    private static int at(byte[] s, int i) {
        return i < s.length ? s[i] & 0xff : 0;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static boolean matches(byte[] s, int at, String word) {
        for (int i = 0; i < word.length(); i++) {
            int c = at(s, at + i);
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
