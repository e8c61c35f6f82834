package tandem.protocol.command;

/**
 * Redis' {@code string2ll}, the one rule for every integer argument: an optional minus sign, then decimal digits, no
 * leading zero (except "0" itself), no plus sign, no blanks, at most 20 characters, within the range of a long
 * ({@link Long#MIN_VALUE} included).
 */
public final class String2ll {

    private String2ll() {
    }

    /**
     * @return the value of {@code s}
     * @throws NumberFormatException when {@code string2ll} would refuse {@code s}; callers answer with their own
     *                               Redis error text
     */
    public static long parse(byte[] s) {
        int len = s.length;
        if (len == 0 || len >= 21) {
            throw new NumberFormatException();
        }
        if (len == 1 && s[0] == '0') {
            return 0;
        }
        int i = 0;
        boolean negative = false;
        if (s[0] == '-') {
            negative = true;
            i++;
            if (i == len) {
                throw new NumberFormatException();
            }
        }
        if (s[i] < '1' || s[i] > '9') {
            throw new NumberFormatException();
        }
        long v = 0; // accumulated as a negative number so that Long.MIN_VALUE fits
        for (; i < len; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
                throw new NumberFormatException();
            }
            v = v * 10 - d;
        }
        if (!negative) {
            if (v == Long.MIN_VALUE) {
                throw new NumberFormatException();
            }
            return -v;
        }
        return v;
    }
}
