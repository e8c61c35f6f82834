package tandem.store;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import tandem.protocol.command.String2ll;

/**
 * Redis' number parsing and formatting, byte for byte.
 *
 * <p>Integers follow {@code string2ll}: an optional {@code -}, no {@code +}, no leading zero, no space, at most 20
 * characters, within a signed 64-bit range.
 *
 * <p>Floats follow {@code string2ld} and {@code ld2string(…, LD_STR_HUMAN)}: Redis parses with {@code strtold},
 * adds in the x87 80-bit {@code long double} (a 64-bit significand) and prints with {@code "%.17Lf"} before
 * trimming trailing zeros. Java has no such type, so the values here are kept <em>exactly</em> as
 * {@link BigDecimal}s and rounded to a 64-bit significand (round half to even) after parsing and after each
 * addition, exactly as the FPU does; printing the exact value to 17 decimals then gives Redis' digits, the
 * {@code 5011.10000000000000009} kind included. Differences left: subnormal long doubles (below about
 * 3.4e-4932) keep a full 64-bit significand here, where the FPU has fewer bits.
 */
final class Numbers {

    /** {@code MAX_LONG_DOUBLE_CHARS}: Redis refuses a float argument this long or longer. */
    private static final int MAX_LONG_DOUBLE_CHARS = 5 * 1024;

    private static final BigInteger TWO_POW_63 = BigInteger.ONE.shiftLeft(63);
    private static final BigInteger TWO_POW_64 = BigInteger.ONE.shiftLeft(64);
    /** 2^-16445 is the smallest x87 subnormal; quantum below which nothing survives. */
    private static final int MAX_SCALE_BITS = 16445;
    /** The largest finite long double: (2^64 - 1) * 2^(16383 - 63). */
    private static final BigDecimal LDBL_MAX = new BigDecimal(TWO_POW_64.subtract(BigInteger.ONE).shiftLeft(16320));
    private static final double LOG2_10 = Math.log(10) / Math.log(2);

    private Numbers() {
    }

    /** Redis' {@code string2ll}; throws {@link CommandError} {@code error} when {@code s} is not one. */
    static long parseLong(byte[] s, String error) {
        try {
            return String2ll.parse(s);
        } catch (NumberFormatException e) {
            throw new CommandError(error);
        }
    }

    static long parseLong(byte[] s) {
        return parseLong(s, CommandError.NOT_INTEGER);
    }

    /**
     * The optional count after the key of SPOP, ZPOPMIN and ZPOPMAX ({@code absent} when not given): at least 0, and
     * the last argument.
     */
    static long optionalCount(byte[][] a, long absent) {
        if (a.length > 3) {
            throw new CommandError(CommandError.SYNTAX);
        }
        return a.length == 3 ? positive(a[2], CommandError.MUST_BE_POSITIVE) : absent;
    }

    /** {@code getPositiveLongFromObjectOrReply} with a message: the message for a bad number and a negative one. */
    static long positive(byte[] arg, String error) {
        long n = parseLong(arg, error);
        if (n < 0) {
            throw new CommandError(error);
        }
        return n;
    }

    /** @return true when {@code s} is a valid {@code string2ll} integer */
    static boolean isLong(byte[] s) {
        try {
            parseLong(s, CommandError.NOT_INTEGER);
            return true;
        } catch (CommandError e) {
            return false;
        }
    }

    static byte[] bytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Redis' {@code string2ld}: a {@code strtold} number consuming the whole argument, not starting with a space,
     * not NaN, not overflowing.
     *
     * @return the value rounded to a long double, exactly; null for an infinity ({@code inf}, {@code -Infinity})
     * @throws CommandError {@code error} when {@code s} is not a valid float
     */
    static BigDecimal parseLongDouble(byte[] s, String error) {
        if (s.length == 0 || s.length >= MAX_LONG_DOUBLE_CHARS) {
            throw new CommandError(error);
        }
        String t = new String(s, StandardCharsets.ISO_8859_1);
        int i = 0;
        boolean negative = false;
        if (t.charAt(0) == '+' || t.charAt(0) == '-') {
            negative = t.charAt(0) == '-';
            i = 1;
        }
        String body = t.substring(i);
        String lower = body.toLowerCase(java.util.Locale.ROOT);
        if (lower.equals("inf") || lower.equals("infinity")) {
            return null;
        }
        BigDecimal exact;
        if (lower.startsWith("0x")) {
            exact = parseHex(lower.substring(2), error);
        } else {
            exact = parseDecimal(lower, error);
        }
        if (exact.signum() == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal rounded = round(exact);
        if (rounded == null || rounded.signum() == 0) {
            throw new CommandError(error); // ERANGE: overflow to HUGE_VAL or underflow to zero
        }
        return negative ? rounded.negate() : rounded;
    }

    private static BigDecimal parseDecimal(String s, String error) {
        int i = 0;
        int n = s.length();
        StringBuilder digits = new StringBuilder();
        int fraction = 0;
        boolean any = false;
        while (i < n && isDigit(s.charAt(i))) {
            digits.append(s.charAt(i++));
            any = true;
        }
        if (i < n && s.charAt(i) == '.') {
            i++;
            while (i < n && isDigit(s.charAt(i))) {
                digits.append(s.charAt(i++));
                fraction++;
                any = true;
            }
        }
        if (!any) {
            throw new CommandError(error);
        }
        long exponent = exponentToEnd(s, i, 'e', error);
        BigInteger unscaled = new BigInteger(digits.toString());
        if (unscaled.signum() == 0) {
            return BigDecimal.ZERO;
        }
        long scale = fraction - exponent;
        long magnitude = digits.length() - scale; // decimal exponent, roughly
        if (magnitude > 5000) {
            throw new CommandError(error); // far above LDBL_MAX
        }
        if (magnitude < -5000) {
            throw new CommandError(error); // far below the smallest subnormal
        }
        return new BigDecimal(unscaled, (int) scale);
    }

    private static BigDecimal parseHex(String s, String error) {
        int i = 0;
        int n = s.length();
        BigInteger mantissa = BigInteger.ZERO;
        long binaryExponent = 0;
        boolean any = false;
        while (i < n && Character.digit(s.charAt(i), 16) >= 0) {
            mantissa = mantissa.shiftLeft(4).add(BigInteger.valueOf(Character.digit(s.charAt(i++), 16)));
            any = true;
        }
        if (i < n && s.charAt(i) == '.') {
            i++;
            while (i < n && Character.digit(s.charAt(i), 16) >= 0) {
                mantissa = mantissa.shiftLeft(4).add(BigInteger.valueOf(Character.digit(s.charAt(i++), 16)));
                binaryExponent -= 4;
                any = true;
            }
        }
        if (!any) {
            throw new CommandError(error);
        }
        binaryExponent += exponentToEnd(s, i, 'p', error);
        if (mantissa.signum() == 0) {
            return BigDecimal.ZERO;
        }
        long bits = mantissa.bitLength() + binaryExponent;
        if (bits > 16400 || bits < -16500) {
            throw new CommandError(error);
        }
        return timesPowerOfTwo(new BigDecimal(mantissa), (int) binaryExponent);
    }

    /**
     * The exponent that ends {@code s} from index {@code i}: {@code marker [+|-] digits}, or nothing (0); its
     * magnitude capped at 1,000,000, which is far past any double.
     */
    private static long exponentToEnd(String s, int i, char marker, String error) {
        int n = s.length();
        long exponent = 0;
        if (i < n && s.charAt(i) == marker) {
            i++;
            boolean negative = false;
            if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                negative = s.charAt(i) == '-';
                i++;
            }
            if (i == n) {
                throw new CommandError(error); // strtold would stop before the marker
            }
            while (i < n && isDigit(s.charAt(i))) {
                exponent = Math.min(exponent * 10 + (s.charAt(i++) - '0'), 1_000_000);
            }
            exponent = negative ? -exponent : exponent;
        }
        if (i != n) {
            throw new CommandError(error);
        }
        return exponent;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** {@code v * 2^k}, exactly. */
    private static BigDecimal timesPowerOfTwo(BigDecimal v, int k) {
        if (k >= 0) {
            return v.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(k)));
        }
        // v / 2^n = v * 5^n / 10^n
        return v.multiply(new BigDecimal(BigInteger.valueOf(5).pow(-k))).scaleByPowerOfTen(k);
    }

    /**
     * Rounds an exact value to the nearest long double (64-bit significand, ties to even).
     *
     * @return the rounded value, exactly; null when it overflows to infinity
     */
    static BigDecimal round(BigDecimal exact) {
        if (exact.signum() == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal a = exact.abs();
        int decimalExponent = a.precision() - a.scale() - 1;
        int e = (int) Math.floor(decimalExponent * LOG2_10); // estimate of floor(log2 a)
        BigDecimal scaled;
        int k;
        while (true) {
            k = Math.min(63 - e, MAX_SCALE_BITS);
            scaled = timesPowerOfTwo(a, k);
            if (k == MAX_SCALE_BITS && scaled.compareTo(new BigDecimal(TWO_POW_64)) < 0) {
                break; // subnormal range: the quantum is fixed
            }
            if (scaled.compareTo(new BigDecimal(TWO_POW_63)) < 0) {
                e--;
            } else if (scaled.compareTo(new BigDecimal(TWO_POW_64)) >= 0) {
                e++;
            } else {
                break;
            }
        }
        BigInteger m = scaled.setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
        BigDecimal result = timesPowerOfTwo(new BigDecimal(m), -k).stripTrailingZeros();
        if (result.compareTo(LDBL_MAX) > 0) {
            return null;
        }
        return exact.signum() < 0 ? result.negate() : result;
    }

    /** {@code a + b} in long double arithmetic; null when either is infinite or the sum overflows. */
    static BigDecimal add(BigDecimal a, BigDecimal b) {
        if (a == null || b == null) {
            return null;
        }
        return round(a.add(b));
    }

    /** {@code ld2string(value, LD_STR_HUMAN)}: {@code "%.17Lf"}, trailing zeros and a bare point removed, no "-0". */
    static byte[] formatLongDouble(BigDecimal value) {
        String s = value.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        s = s.substring(0, end);
        if (s.equals("-0")) {
            s = "0";
        }
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
