package tandem.store;

import java.nio.charset.StandardCharsets;

/**
 * A stream entry ID: two unsigned 64-bit numbers, milliseconds and a sequence, ordered as one 128-bit number.
 *
 * <p>Stored as 16 bytes, {@code [ms u64 BE][seq u64 BE]}, so that the byte order of stored IDs is their order (Redis
 * keys its radix tree the same way). Both halves are unsigned: every comparison and every printed form treats them
 * so, as Redis's {@code uint64_t} does.
 */
record StreamId(long ms, long seq) implements Comparable<StreamId> {

    static final StreamId MIN = new StreamId(0, 0);
    static final StreamId MAX = new StreamId(-1L, -1L);
    static final int BYTES = 16;
    static final String INVALID = "ERR Invalid stream ID specified as stream command argument";

    @Override
    public int compareTo(StreamId o) {
        int c = Long.compareUnsigned(ms, o.ms);
        return c != 0 ? c : Long.compareUnsigned(seq, o.seq);
    }

    boolean isZero() {
        return ms == 0 && seq == 0;
    }

    boolean isMax() {
        return ms == -1L && seq == -1L;
    }

    /** {@code streamIncrID}: the next ID, or null past the last one (Redis wraps to 0-0 and fails). */
    StreamId next() {
        if (seq != -1L) {
            return new StreamId(ms, seq + 1);
        }
        return ms == -1L ? null : new StreamId(ms + 1, 0);
    }

    /** {@code streamDecrID}: the previous ID, or null before 0-0. */
    StreamId previous() {
        if (seq != 0) {
            return new StreamId(ms, seq - 1);
        }
        return ms == 0 ? null : new StreamId(ms - 1, -1L);
    }

    byte[] encode() {
        byte[] b = new byte[BYTES];
        put(b, 0);
        return b;
    }

    void put(byte[] b, int at) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (ms >>> (56 - 8 * i));
            b[at + 8 + i] = (byte) (seq >>> (56 - 8 * i));
        }
    }

    static StreamId decode(byte[] b, int at) {
        long ms = 0;
        long seq = 0;
        for (int i = 0; i < 8; i++) {
            ms = (ms << 8) | (b[at + i] & 0xff);
            seq = (seq << 8) | (b[at + 8 + i] & 0xff);
        }
        return new StreamId(ms, seq);
    }

    /** {@code "%U-%U"}: both halves unsigned. */
    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }

    byte[] bytes() {
        return toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** An ID as a client wrote it, and whether its sequence was given ({@code <ms>-*} leaves it to XADD). */
    record Parsed(StreamId id, boolean seqGiven) {
    }

    /**
     * {@code streamGenericParseIDOrReply}: {@code -} and {@code +} (refused when {@code strict}), {@code <ms>} (the
     * sequence is {@code missingSeq}) or {@code <ms>-<seq>}, and with {@code allowAutoSeq} {@code <ms>-*}.
     *
     * @return the ID, or null when the argument is not one
     */
    static Parsed parse(byte[] arg, long missingSeq, boolean strict, boolean allowAutoSeq) {
        if (arg.length > 127) {
            return null; // larger than Redis's parsing buffer
        }
        String s = Args.text(arg); // a C string: it ends at the first NUL
        if (strict && s.length() == 1 && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            return null;
        }
        if (s.equals("-")) {
            return new Parsed(MIN, true);
        }
        if (s.equals("+")) {
            return new Parsed(MAX, true);
        }
        int dash = s.indexOf('-');
        Long ms = string2ull(dash < 0 ? s : s.substring(0, dash));
        if (ms == null) {
            return null;
        }
        if (dash < 0) {
            return new Parsed(new StreamId(ms, missingSeq), true);
        }
        String tail = s.substring(dash + 1);
        if (allowAutoSeq && tail.equals("*")) {
            return new Parsed(new StreamId(ms, 0), false);
        }
        Long seq = string2ull(tail);
        return seq == null ? null : new Parsed(new StreamId(ms, seq), true);
    }

    /** As {@link #parse}, throwing Redis's error when the argument is not an ID. */
    static StreamId parseOrError(byte[] arg, long missingSeq, boolean strict) {
        Parsed p = parse(arg, missingSeq, strict, false);
        if (p == null) {
            throw new CommandError(INVALID);
        }
        return p.id();
    }

    /**
     * Redis's {@code string2ull}: {@code string2ll} when it takes the whole text (a negative value is refused), else
     * glibc's {@code strtoull} in base 10 over the whole text: leading white space, a sign (a minus negates modulo
     * 2^64), at least one digit, no overflow, nothing after.
     *
     * @return the value, or null
     */
    static Long string2ull(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        try {
            long v = tandem.protocol.command.String2ll.parse(b);
            return v < 0 ? null : v;
        } catch (NumberFormatException e) {
            // not string2ll's form: strtoull's below
        }
        int i = 0;
        int n = b.length;
        while (i < n && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r'))) {
            i++;
        }
        boolean negative = false;
        if (i < n && (b[i] == '+' || b[i] == '-')) {
            negative = b[i] == '-';
            i++;
        }
        int digits = i;
        long v = 0;
        for (; i < n && b[i] >= '0' && b[i] <= '9'; i++) {
            int d = b[i] - '0';
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                return null; // ERANGE
            }
            v = v * 10 + d;
        }
        if (i == digits || i != n || n == 0) {
            return null;
        }
        return negative ? -v : v;
    }
}
