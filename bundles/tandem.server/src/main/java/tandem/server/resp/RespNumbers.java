package tandem.server.resp;

import io.netty.buffer.ByteBuf;

/**
 * The lengths of the RESP framing ({@code *count}, {@code $length}) parsed in place, with the acceptance rules of
 * Redis' {@code string2ll}; arguments use {@link tandem.protocol.command.String2ll}, which needs no sentinel.
 */
public final class RespNumbers {

    /** Returned for anything {@code string2ll} rejects; no valid RESP length can equal it. */
    public static final long INVALID = Long.MIN_VALUE;

    private RespNumbers() {
    }

    /**
     * Parses bytes {@code [from, to)} of {@code buf}: an optional minus sign, then decimal digits, no leading zero
     * (except "0" itself), no plus sign, no blanks, at most 20 characters, within the range of a long.
     *
     * @return the value, or {@link #INVALID}
     */
    public static long parseLong(ByteBuf buf, int from, int to) {
        int length = to - from;
        if (length <= 0 || length > 20) {
            return INVALID;
        }
        int i = from;
        boolean negative = false;
        if (buf.getByte(i) == '-') {
            negative = true;
            i++;
            if (i == to) {
                return INVALID;
            }
        }
        if (buf.getByte(i) == '0') {
            return i + 1 == to && !negative ? 0 : INVALID;
        }
        long value = 0;
        for (; i < to; i++) {
            int digit = buf.getByte(i) - '0';
            if (digit < 0 || digit > 9) {
                return INVALID;
            }
            // accumulate as a negative number so that Long.MIN_VALUE itself stays representable
            if (value < (Long.MIN_VALUE + digit) / 10) {
                return INVALID;
            }
            value = value * 10 - digit;
        }
        if (negative) {
            return value == Long.MIN_VALUE ? INVALID : value;
        }
        return value == Long.MIN_VALUE ? INVALID : -value;
    }
}
