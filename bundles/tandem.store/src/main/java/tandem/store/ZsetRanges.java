package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import tandem.store.Tx.Rec;
import tandem.store.Zsets.Entry;
import tandem.store.Zsets.Walk;

/**
 * The ranges of a sorted set — by index, by score and by lex — as the ZRANGE family, ZCOUNT, ZLEXCOUNT and the
 * ZREMRANGEBY commands name them ({@code zslParseRange}, {@code zslParseLexRange}, {@code zrangeGenericCommand}'s
 * parsing, with Redis 7.0's error texts), and the members a range selects.
 */
final class ZsetRanges {

    private static final String RANGE_NOT_FLOAT = "ERR min or max is not a float";
    private static final String LEX_NOT_VALID = "ERR min or max not valid string range item";

    private ZsetRanges() {
    }

    /** A score range: {@code zslParseRange}. */
    record ScoreRange(double min, boolean minex, double max, boolean maxex) {

        static ScoreRange parse(byte[] min, byte[] max) {
            boolean minex = min.length > 0 && min[0] == '(';
            boolean maxex = max.length > 0 && max[0] == '(';
            double lo = Doubles.parseBound(min, minex ? 1 : 0);
            double hi = Doubles.parseBound(max, maxex ? 1 : 0);
            if (Double.isNaN(lo) || Double.isNaN(hi)) {
                throw new CommandError(RANGE_NOT_FLOAT);
            }
            return new ScoreRange(lo, minex, hi, maxex);
        }

        boolean empty() {
            return min > max || min == max && (minex || maxex);
        }

        boolean aboveMin(double s) {
            return minex ? s > min : s >= min;
        }

        boolean belowMax(double s) {
            return maxex ? s < max : s <= max;
        }
    }

    /** A lex range: {@code zslParseLexRange}; a null bound is '-' (min) or '+' (max) as the flags say. */
    record LexRange(byte[] min, boolean minex, int minInf, byte[] max, boolean maxex, int maxInf) {

        static LexRange parse(byte[] min, byte[] max) {
            Object[] lo = item(min);
            Object[] hi = item(max);
            return new LexRange((byte[]) lo[0], (Boolean) lo[1], (Integer) lo[2], (byte[]) hi[0], (Boolean) hi[1],
                    (Integer) hi[2]);
        }

        /** {value, exclusive, infinity (-1 for '-', 1 for '+', 0 for a value)}. */
        private static Object[] item(byte[] c) {
            if (c.length == 0) {
                throw new CommandError(LEX_NOT_VALID);
            }
            boolean alone = c.length == 1 || c[1] == 0; // C compares c[1] with '\0'
            return switch (c[0]) {
                case '+' -> {
                    if (!alone) {
                        throw new CommandError(LEX_NOT_VALID);
                    }
                    yield new Object[] {null, true, 1};
                }
                case '-' -> {
                    if (!alone) {
                        throw new CommandError(LEX_NOT_VALID);
                    }
                    yield new Object[] {null, true, -1};
                }
                case '(' -> new Object[] {Arrays.copyOfRange(c, 1, c.length), true, 0};
                case '[' -> new Object[] {Arrays.copyOfRange(c, 1, c.length), false, 0};
                default -> throw new CommandError(LEX_NOT_VALID);
            };
        }

        /** {@code sdscmplex}: the shared min and max strings compare below and above everything. */
        private static int cmp(byte[] a, int aInf, byte[] b, int bInf) {
            if (aInf != 0 && aInf == bInf) {
                return 0;
            }
            if (aInf == -1 || bInf == 1) {
                return -1;
            }
            if (aInf == 1 || bInf == -1) {
                return 1;
            }
            return Arrays.compareUnsigned(a, b);
        }

        boolean empty() {
            int c = cmp(min, minInf, max, maxInf);
            return c > 0 || c == 0 && (minex || maxex);
        }

        boolean aboveMin(byte[] v) {
            int c = cmp(v, 0, min, minInf);
            return minex ? c > 0 : c >= 0;
        }

        boolean belowMax(byte[] v) {
            int c = cmp(v, 0, max, maxInf);
            return maxex ? c < 0 : c <= 0;
        }
    }

    enum By { RANK, SCORE, LEX }

    /** The parsed arguments of the ZRANGE family. */
    record RangeArgs(By by, boolean reverse, boolean withScores, long offset, long limit, long start,
            long end, ScoreRange scores, LexRange lex) {

        /** A whole range by index, lowest first (ZREMRANGEBYRANK). */
        static RangeArgs byRank(long start, long end) {
            return new RangeArgs(By.RANK, false, false, 0, -1, start, end, null, null);
        }

        /** A whole range by score, lowest first (ZCOUNT, ZREMRANGEBYSCORE). */
        static RangeArgs byScore(ScoreRange scores) {
            return new RangeArgs(By.SCORE, false, false, 0, -1, 0, 0, scores, null);
        }

        /** A whole range by lex, lowest first (ZLEXCOUNT, ZREMRANGEBYLEX). */
        static RangeArgs byLex(LexRange lex) {
            return new RangeArgs(By.LEX, false, false, 0, -1, 0, 0, null, lex);
        }
    }

    /**
     * A port of {@code zrangeGenericCommand}'s parsing: {@code keyAt} is the source key's index; {@code by} and
     * {@code reverse} are fixed by the command (null: chosen by the options, as ZRANGE and ZRANGESTORE do).
     */
    static RangeArgs parse(byte[][] a, int keyAt, boolean store, By by, Boolean reverse) {
        boolean withScores = false;
        long offset = 0;
        long limit = -1;
        boolean rev = reverse != null && reverse;
        for (int j = keyAt + 3; j < a.length; j++) {
            int left = a.length - j - 1;
            if (!store && Args.is(a[j], "withscores")) {
                withScores = true;
            } else if (Args.is(a[j], "limit") && left >= 2) {
                offset = Numbers.parseLong(a[j + 1]);
                limit = Numbers.parseLong(a[j + 2]);
                j += 2;
            } else if (reverse == null && Args.is(a[j], "rev")) {
                rev = true;
                reverse = true;
            } else if (by == null && Args.is(a[j], "bylex")) {
                by = By.LEX;
            } else if (by == null && Args.is(a[j], "byscore")) {
                by = By.SCORE;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        if (by == null) {
            by = By.RANK;
        }
        if (limit != -1 && by == By.RANK) {
            throw new CommandError("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
                    + "BYLEX");
        }
        if (withScores && by == By.LEX) {
            throw new CommandError("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        }
        int minAt = keyAt + 1;
        int maxAt = keyAt + 2;
        if (rev && by != By.RANK) {
            minAt = keyAt + 2;
            maxAt = keyAt + 1;
        }
        long start = 0;
        long end = 0;
        ScoreRange scores = null;
        LexRange lex = null;
        switch (by) {
            case RANK -> {
                start = Numbers.parseLong(a[minAt]);
                end = Numbers.parseLong(a[maxAt]);
            }
            case SCORE -> scores = ScoreRange.parse(a[minAt], a[maxAt]);
            case LEX -> lex = LexRange.parse(a[minAt], a[maxAt]);
        }
        return new RangeArgs(by, rev, withScores, offset, limit, start, end, scores, lex);
    }

    /** The members a parsed range selects from the sorted set at {@code key}, in reply order. */
    static List<Entry> select(Tx tx, byte[] key, Rec rec, RangeArgs o) {
        long llen = rec.fieldCount();
        if (o.by() == By.RANK) {
            long[] range = Args.indexRange(o.start(), o.end(), llen);
            return range == null ? List.of() : Zsets.byRank(tx, key, rec, range[0], range[1], o.reverse());
        }
        if (o.offset() > 0 && o.offset() >= llen) {
            return List.of();
        }
        List<Entry> out = new ArrayList<>();
        if (o.by() == By.SCORE ? o.scores().empty() : o.lex().empty()) {
            return out;
        }
        try (Walk w = new Walk(tx, key, o.reverse())) {
            Entry e;
            if (o.by() == By.SCORE) {
                ScoreRange s = o.scores();
                w.from(o.reverse() ? s.max() : s.min());
                e = w.next();
                // the first in range: skip the ties excluded by an open bound
                while (e != null && (o.reverse() ? !s.belowMax(e.score()) : !s.aboveMin(e.score()))) {
                    e = w.next();
                }
                if (e != null && !(o.reverse() ? s.aboveMin(e.score()) : s.belowMax(e.score()))) {
                    e = null;
                }
            } else {
                e = firstInLex(w, o.lex(), o.reverse(), tx, key, rec);
            }
            for (long skip = o.offset(); e != null && skip != 0; skip--) {
                e = w.next();
            }
            for (long n = o.limit(); e != null && n != 0; n--) {
                boolean in = o.by() == By.SCORE
                        ? (o.reverse() ? o.scores().aboveMin(e.score()) : o.scores().belowMax(e.score()))
                        : (o.reverse() ? o.lex().aboveMin(e.member()) : o.lex().belowMax(e.member()));
                if (!in) {
                    break;
                }
                out.add(e);
                e = w.next();
            }
        }
        return Zsets.withStoredScores(tx, key, out);
    }

    /**
     * {@code zzlFirstInLexRange} / {@code zzlLastInLexRange}: the first member from the walk's end that passes the
     * near bound, if it also passes the far one; after the check that the range overlaps the set at all.
     */
    private static Entry firstInLex(Walk w, LexRange lex, boolean reverse, Tx tx, byte[] key, Rec rec) {
        List<Entry> ends = Zsets.byRank(tx, key, rec, 0, 0, false);
        List<Entry> last = Zsets.byRank(tx, key, rec, 0, 0, true);
        if (!lex.aboveMin(last.get(0).member()) || !lex.belowMax(ends.get(0).member())) {
            return null;
        }
        for (Entry e = w.next(); e != null; e = w.next()) {
            if (reverse ? lex.belowMax(e.member()) : lex.aboveMin(e.member())) {
                return (reverse ? lex.aboveMin(e.member()) : lex.belowMax(e.member())) ? e : null;
            }
        }
        return null;
    }
}
