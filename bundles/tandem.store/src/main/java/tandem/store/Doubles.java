package tandem.store;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Sorted-set scores as Redis 7.0 (glibc, x86-64) reads and prints them, byte for byte.
 *
 * <p>A score is a C {@code double}: clients see it parsed by glibc's {@code strtod} (through {@code string2d} for
 * ZADD and friends, raw for ZRANGEBYSCORE bounds) and printed by {@code printf("%.17g")}. Java's own conversions
 * disagree at the edges: {@link Double#parseDouble} trims spaces and takes {@code "1d"} and {@code "NaN"}, but
 * refuses {@code "inf"} and a hex float without a {@code p} exponent ({@code "0x10"}), and knows nothing of
 * {@code ERANGE}; Java's {@code %.17g} pads the shortest decimal with zeros ({@code 0.10000000000000000} where C
 * prints the binary value's {@code 0.10000000000000001}) and never trims to C's short forms ({@code "1"},
 * {@code "1e+17"}). So the C grammar is scanned here by hand and only a normalised prefix is handed
 * to {@code parseDouble}, which rounds correctly, as glibc does; printing rounds the exact binary value to 17
 * significant digits half-to-even, as glibc does in the default rounding mode.
 *
 * <p>Scores are ordered with {@code <} in Redis, so {@code -0} and {@code 0} tie; {@link #sortable} gives an
 * unsigned 64-bit key with that order, for keys in the store.
 */
final class Doubles {

    /**
     * Decimal digits kept before the rest is folded into a sticky digit. A point halfway between two doubles has
     * at most 767 significant digits, so 800 are enough to decide every rounding.
     */
    private static final int MAX_DIGITS = 800;
    /** Hex digits kept likewise: 160 bits is far more than a double's 53 plus the rounding bits. */
    private static final int MAX_NIBBLES = 40;
    /** Exponents saturate here: anything bigger already overflows or underflows whatever the digits. */
    private static final long EXPONENT_CAP = 1_000_000_000_000L;
    private static final MathContext SEVENTEEN = new MathContext(17, RoundingMode.HALF_EVEN);
    /** Below 2^53 every integer is a double and prints, by %.17g, as itself. */
    private static final double EXACT_INTEGERS = 9007199254740992.0;

    private Doubles() {
    }

    /**
     * A score as a listpack holds it and ZSCAN returns it: {@code d2string}, which prints a whole number within
     * &plusmn;2^62 ({@code double2ll}) as an integer and anything else as {@link #format} does.
     */
    static byte[] formatListpack(double d) {
        if (d == Math.rint(d) && d >= -(double) (Long.MAX_VALUE / 2) && d <= (double) (Long.MAX_VALUE / 2)) {
            return Long.toString((long) d).getBytes(StandardCharsets.US_ASCII);
        }
        return format(d);
    }

    /**
     * Redis 7.0's {@code string2d}: the whole of {@code s} must be one {@code strtod} number, not starting with
     * a space, neither NaN nor out of range (a subnormal is fine, only underflow to zero is not).
     *
     * @throws CommandError {@code error} when Redis would refuse {@code s}
     */
    static double parse(byte[] s, String error) {
        if (s.length == 0 || isSpace(s[0])) {
            throw new CommandError(error);
        }
        Scan r = scan(s, 0, s.length);
        if (r.end != s.length
                || r.erange && (r.value == 0 || Double.isInfinite(r.value))
                || Double.isNaN(r.value)) {
            throw new CommandError(error);
        }
        return r.value;
    }

    /**
     * A ZRANGEBYSCORE/ZCOUNT bound as {@code zslParseRange} reads it: plain {@code strtod} on the NUL-terminated
     * argument from {@code from} on (past the {@code (}, if any). Unlike {@link #parse}, leading spaces are
     * skipped, nothing at all reads as 0, an overflow is a valid infinity, and an embedded NUL ends the argument.
     *
     * @return the bound, or {@link Double#NaN} when Redis would reply "min or max is not a float"
     */
    static double parseBound(byte[] s, int from) {
        int end = cEnd(s, from);
        int start = skipSpaces(s, from, end);
        Scan r = scan(s, start, end);
        // strtod points eptr back at the very start, spaces included, when it finds no number
        int eptr = r.end == start ? from : r.end;
        if (eptr != end || Double.isNaN(r.value)) {
            return Double.NaN;
        }
        return r.value;
    }

    /**
     * SORT's numeric key of an element: {@code strtod} as C sees the string (up to its first NUL), refused (NaN)
     * when anything follows the number, when it is NaN, or when strtod reports ERANGE (overflow, or a result too
     * small to be normal).
     */
    static double sortScore(byte[] s) {
        double v = parseBound(s, 0);
        if (Double.isNaN(v) || Double.isInfinite(v) && !isInfinityWord(s)
                || v != 0 && Math.abs(v) < Double.MIN_NORMAL) {
            return Double.NaN;
        }
        if (v == 0) {
            int end = cEnd(s, 0);
            if (scan(s, skipSpaces(s, 0, end), end).erange) {
                return Double.NaN; // underflow to zero
            }
        }
        return v;
    }

    /** Whether {@code s} spells an infinity (which strtod returns without ERANGE), not a number that overflowed. */
    private static boolean isInfinityWord(byte[] s) {
        int end = cEnd(s, 0);
        int i = skipSpaces(s, 0, end);
        if (i < end && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        String word = new String(s, i, end - i, StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT);
        return word.equals("inf") || word.equals("infinity");
    }

    /**
     * Redis 7.0's RESP2 {@code addReplyDouble}: {@code inf}/{@code -inf}, else glibc's {@code "%.17g"}, which is
     * what ZSCORE, ZINCRBY and WITHSCORES print.
     */
    static byte[] format(double d) {
        return formatString(d).getBytes(StandardCharsets.US_ASCII);
    }

    private static String formatString(double d) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return Double.doubleToRawLongBits(d) < 0 ? "-0" : "0";
        }
        if (Math.abs(d) < EXACT_INTEGERS && d == Math.rint(d)) {
            return Long.toString((long) d);
        }
        BigDecimal rounded = new BigDecimal(d).round(SEVENTEEN); // exact value, rounded as glibc does
        // %g picks its style from the exponent after rounding, which is what BigDecimal reports here
        int exponent = rounded.precision() - rounded.scale() - 1;
        String digits = rounded.unscaledValue().abs().toString();
        int n = digits.length();
        while (n > 1 && digits.charAt(n - 1) == '0') {
            n--; // %g drops trailing zeros
        }
        digits = digits.substring(0, n);
        StringBuilder out = new StringBuilder(26);
        if (d < 0) {
            out.append('-');
        }
        if (exponent < -4 || exponent >= 17) {
            out.append(digits.charAt(0));
            if (n > 1) {
                out.append('.').append(digits, 1, n);
            }
            out.append(exponent < 0 ? "e-" : "e+");
            int e = Math.abs(exponent);
            if (e < 10) {
                out.append('0'); // C prints at least two exponent digits
            }
            out.append(e);
        } else if (exponent >= 0) {
            if (n <= exponent + 1) {
                out.append(digits);
                out.append("0".repeat(exponent + 1 - n));
            } else {
                out.append(digits, 0, exponent + 1).append('.').append(digits, exponent + 1, n);
            }
        } else {
            out.append("0.").append("0".repeat(-exponent - 1)).append(digits);
        }
        return out.toString();
    }

    /**
     * An unsigned 64-bit key ordered as Redis orders scores: {@code sortable(a) < sortable(b)} (unsigned) exactly
     * when {@code a < b}, for every non-NaN double, infinities included; {@code -0.0} and {@code 0.0} share a key
     * because they compare equal in C, and Redis then orders by member.
     */
    static long sortable(double d) {
        long bits = Double.doubleToRawLongBits(d == 0 ? 0.0 : d);
        // negative doubles grow in magnitude as their bits grow, so flip them all; set the sign of the others
        return bits < 0 ? ~bits : bits | Long.MIN_VALUE;
    }

    /** {@link #sortable} written big-endian, so that unsigned byte order is score order. */
    static void putSortable(byte[] dst, int offset, double d) {
        long v = sortable(d);
        for (int i = 7; i >= 0; i--) {
            dst[offset + i] = (byte) v;
            v >>>= 8;
        }
    }

    /** The score a {@link #sortable} key stands for ({@code 0.0} for a {@code -0.0} score). */
    static double fromSortable(long key) {
        return Double.longBitsToDouble(key < 0 ? key & Long.MAX_VALUE : ~key);
    }

    /** Where C sees the string {@code s} (read from {@code from}) end: at its first NUL. */
    private static int cEnd(byte[] s, int from) {
        int end = from;
        while (end < s.length && s[end] != 0) {
            end++;
        }
        return end;
    }

    /** The index of the first byte from {@code i} (before {@code end}) that is not a space. */
    private static int skipSpaces(byte[] s, int i, int end) {
        while (i < end && isSpace(s[i])) {
            i++;
        }
        return i;
    }

    /** C's {@code isspace} in the "C" locale, which Redis keeps for LC_CTYPE. */
    private static boolean isSpace(byte b) {
        return b == ' ' || b >= '\t' && b <= '\r';
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static int hexValue(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        int lower = b | 0x20;
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    /** What strtod did: where it stopped ({@code start} when it found no number), its value, and ERANGE. */
    private record Scan(int end, double value, boolean erange) {
    }

    /** glibc's strtod on {@code s[start..end)}, without the leading-space skip; bytes past end count as absent. */
    private static Scan scan(byte[] s, int start, int end) {
        int i = start;
        boolean negative = false;
        if (i < end && (s[i] == '+' || s[i] == '-')) {
            negative = s[i] == '-';
            i++;
        }
        if (matchesIgnoringCase(s, i, end, "inf")) {
            int j = matchesIgnoringCase(s, i + 3, end, "inity") ? i + 8 : i + 3;
            return new Scan(j, negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, false);
        }
        if (matchesIgnoringCase(s, i, end, "nan")) {
            int j = i + 3;
            if (j < end && s[j] == '(') {
                int k = j + 1;
                while (k < end && (isDigit(s[k]) || s[k] == '_' || (s[k] | 0x20) >= 'a' && (s[k] | 0x20) <= 'z')) {
                    k++;
                }
                if (k < end && s[k] == ')') {
                    j = k + 1; // an unclosed "nan(" is just "nan" followed by junk
                }
            }
            return new Scan(j, Double.NaN, false);
        }
        // "0x" is a hex prefix only when a hex digit follows, possibly after the point; else "0" is the number
        if (i + 2 < end && s[i] == '0' && (s[i + 1] | 0x20) == 'x'
                && (hexValue(s[i + 2]) >= 0 || s[i + 2] == '.' && i + 3 < end && hexValue(s[i + 3]) >= 0)) {
            return hex(s, i + 2, end, negative);
        }
        return decimal(s, start, i, end, negative);
    }

    private static boolean matchesIgnoringCase(byte[] s, int i, int end, String lower) {
        if (end - i < lower.length()) {
            return false;
        }
        for (int k = 0; k < lower.length(); k++) {
            if ((s[i + k] | 0x20) != lower.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static Scan decimal(byte[] s, int start, int i, int end, boolean negative) {
        StringBuilder digits = new StringBuilder(32);
        long exponent = 0; // value = digits * 10^exponent
        boolean sticky = false;
        boolean any = false;
        for (; i < end && isDigit(s[i]); i++) {
            any = true;
            if (digits.length() < MAX_DIGITS) {
                if (digits.length() > 0 || s[i] != '0') {
                    digits.append((char) s[i]);
                }
            } else {
                sticky |= s[i] != '0';
                exponent++;
            }
        }
        if (i < end && s[i] == '.') {
            for (i++; i < end && isDigit(s[i]); i++) {
                any = true;
                if (digits.length() < MAX_DIGITS) {
                    if (digits.length() > 0 || s[i] != '0') {
                        digits.append((char) s[i]);
                    }
                    exponent--;
                } else {
                    sticky |= s[i] != '0';
                }
            }
        }
        if (!any) {
            return new Scan(start, 0.0, false); // ".", "-", "e1": no conversion
        }
        int mantissaEnd = i;
        i = exponentEnd(s, i, end, 'e');
        exponent += exponentValue(s, mantissaEnd, i);
        if (digits.length() == 0) {
            return new Scan(i, negative ? -0.0 : 0.0, false); // zero is exact whatever its exponent
        }
        if (sticky) {
            // stands for the dropped non-zero tail: enough to break a tie the way the full digits would
            digits.append('1');
            exponent--;
        }
        long magnitude = digits.length() + exponent; // the value lies in [10^(magnitude-1), 10^magnitude)
        if (magnitude > 310) {
            return new Scan(i, negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, true);
        }
        if (magnitude < -330) {
            return new Scan(i, negative ? -0.0 : 0.0, true);
        }
        double v = Double.parseDouble(digits.append('e').append(exponent).toString());
        return new Scan(i, negative ? -v : v, v == 0 || Double.isInfinite(v));
    }

    private static Scan hex(byte[] s, int i, int end, boolean negative) {
        StringBuilder nibbles = new StringBuilder(20);
        long exponent = 0; // value = nibbles * 2^exponent
        boolean sticky = false;
        for (; i < end && hexValue(s[i]) >= 0; i++) {
            if (nibbles.length() < MAX_NIBBLES) {
                if (nibbles.length() > 0 || s[i] != '0') {
                    nibbles.append((char) s[i]);
                }
            } else {
                sticky |= s[i] != '0';
                exponent += 4;
            }
        }
        if (i < end && s[i] == '.') {
            for (i++; i < end && hexValue(s[i]) >= 0; i++) {
                if (nibbles.length() < MAX_NIBBLES) {
                    if (nibbles.length() > 0 || s[i] != '0') {
                        nibbles.append((char) s[i]);
                    }
                    exponent -= 4;
                } else {
                    sticky |= s[i] != '0';
                }
            }
        }
        int mantissaEnd = i;
        i = exponentEnd(s, i, end, 'p');
        exponent += exponentValue(s, mantissaEnd, i);
        if (nibbles.length() == 0) {
            return new Scan(i, negative ? -0.0 : 0.0, false);
        }
        if (sticky) {
            nibbles.append('1');
            exponent -= 4;
        }
        long magnitude = 4L * nibbles.length() + exponent; // the value lies below 2^magnitude, at least 2^(m-4)
        if (magnitude > 1030) {
            return new Scan(i, negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, true);
        }
        if (magnitude < -1080) {
            return new Scan(i, negative ? -0.0 : 0.0, true);
        }
        double v = Double.parseDouble("0x" + nibbles + "p" + exponent);
        return new Scan(i, negative ? -v : v, v == 0 || Double.isInfinite(v));
    }

    /**
     * Where an exponent ({@code e12}, {@code p-3}) starting at {@code i} ends; {@code i} itself when the marker is
     * not followed by an optional sign and a digit, for then strtod leaves the marker unread.
     */
    private static int exponentEnd(byte[] s, int i, int end, char marker) {
        if (i >= end || (s[i] | 0x20) != marker) {
            return i;
        }
        int j = i + 1;
        if (j < end && (s[j] == '+' || s[j] == '-')) {
            j++;
        }
        if (j >= end || !isDigit(s[j])) {
            return i;
        }
        while (j < end && isDigit(s[j])) {
            j++;
        }
        return j;
    }

    /** The value of the exponent in {@code s[i..end)} (empty for none), saturated so it cannot wrap. */
    private static long exponentValue(byte[] s, int i, int end) {
        if (i == end) {
            return 0;
        }
        int j = i + 1;
        boolean negative = s[j] == '-';
        if (s[j] == '+' || s[j] == '-') {
            j++;
        }
        long e = 0;
        for (; j < end; j++) {
            if (e < EXPONENT_CAP) {
                e = e * 10 + (s[j] - '0');
            }
        }
        return negative ? -e : e;
    }
}
