package tandem.store;

import java.util.ArrayList;
import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Pops.From;
import tandem.store.Tx.Rec;
import tandem.store.ZsetRanges.By;
import tandem.store.ZsetRanges.LexRange;
import tandem.store.ZsetRanges.RangeArgs;
import tandem.store.ZsetRanges.ScoreRange;
import tandem.store.Zsets.Entry;

/**
 * The sorted-set commands, with Redis 7.0's argument checks, replies and error texts, over the records {@link Zsets}
 * keeps; scores are read and printed as Redis does ({@link Doubles}). Ranges are parsed and selected by
 * {@link ZsetRanges}, the multi-key and blocking pops are {@link Pops}', and ZUNION and its kin are
 * {@link ZsetAlgebra}'s.
 */
final class ZsetCommands {

    private static final String NOT_FLOAT = CommandError.NOT_FLOAT;
    private static final String NAN = "ERR resulting score is not a number (NaN)";

    private ZsetCommands() {
    }

    private static Rec zset(Tx tx, byte[] key) {
        return Zsets.zset(tx, key);
    }

    /**
     * Replies the entries: each member, and its score {@code withScores}; a flat array in RESP2, an array of
     * [member, score] pairs in RESP3, as Redis 7.0 sends them.
     */
    static void reply(Reply r, List<Entry> entries, boolean withScores) {
        reply(r, entries, withScores, withScores && r.protocol() == 3);
    }

    /** {@link #reply(Reply, List, boolean)}, each entry a pair of its own when {@code nested}. */
    static void reply(Reply r, List<Entry> entries, boolean withScores, boolean nested) {
        r.array(entries.size() * (withScores && !nested ? 2 : 1));
        for (Entry e : entries) {
            if (nested) {
                r.array(2);
            }
            r.bulk(e.member());
            if (withScores) {
                r.doubleValue(Doubles.format(e.score()));
            }
        }
    }

    // ---------------------------------------------------------------- ZADD, ZINCRBY, ZREM

    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GT = 4;
    private static final int LT = 8;
    private static final int INCR = 16;
    private static final int CH = 32;

    /** ZADD's options, the index of its first score, and its scores. */
    private record Zadd(int flags, int scoreAt, double[] scores) {
    }

    private static Zadd zaddOptions(byte[][] a, int flags) {
        int at = 2;
        for (; at < a.length; at++) {
            if (Args.is(a[at], "nx")) {
                flags |= NX;
            } else if (Args.is(a[at], "xx")) {
                flags |= XX;
            } else if (Args.is(a[at], "ch")) {
                flags |= CH;
            } else if (Args.is(a[at], "incr")) {
                flags |= INCR;
            } else if (Args.is(a[at], "gt")) {
                flags |= GT;
            } else if (Args.is(a[at], "lt")) {
                flags |= LT;
            } else {
                break;
            }
        }
        int elements = a.length - at;
        if (elements % 2 != 0 || elements == 0) {
            throw new CommandError(CommandError.SYNTAX);
        }
        elements /= 2;
        if ((flags & NX) != 0 && (flags & XX) != 0) {
            throw new CommandError("ERR XX and NX options at the same time are not compatible");
        }
        if ((flags & GT) != 0 && (flags & NX) != 0 || (flags & LT) != 0 && (flags & NX) != 0
                || (flags & GT) != 0 && (flags & LT) != 0) {
            throw new CommandError("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if ((flags & INCR) != 0 && elements > 1) {
            throw new CommandError("ERR INCR option supports a single increment-element pair");
        }
        double[] scores = new double[elements];
        for (int j = 0; j < elements; j++) {
            scores[j] = Doubles.parse(a[at + j * 2], NOT_FLOAT);
        }
        return new Zadd(flags, at, scores);
    }

    static void checkZadd(byte[][] a, long nowMs) {
        zaddOptions(a, 0);
    }

    static void checkZincrby(byte[][] a, long nowMs) {
        zaddOptions(a, INCR);
    }

    static void zadd(Tx tx, byte[][] a, Reply r) {
        zaddGeneric(tx, a, 0, r);
    }

    static void zincrby(Tx tx, byte[][] a, Reply r) {
        zaddGeneric(tx, a, INCR, r);
    }

    /** A port of {@code zaddGenericCommand} and {@code zsetAdd}. */
    private static void zaddGeneric(Tx tx, byte[][] a, int flags, Reply r) {
        Zadd o = zaddOptions(a, flags);
        flags = o.flags();
        boolean incr = (flags & INCR) != 0;
        Rec rec = zset(tx, a[1]);
        if (rec == null && (flags & XX) != 0) {
            if (incr) {
                r.nullBulk();
            } else {
                r.integer(0);
            }
            return;
        }
        boolean listpack = !Zsets.skiplist(rec);
        long count = rec == null ? 0 : rec.fieldCount();
        long added = 0;
        long updated = 0;
        long processed = 0;
        double last = 0;
        for (int j = 0; j < o.scores().length; j++) {
            double score = o.scores()[j];
            byte[] member = a[o.scoreAt() + 1 + j * 2];
            Double current = count == 0 ? null : Zsets.score(tx, a[1], member);
            if (current != null) {
                if ((flags & NX) != 0) {
                    continue;
                }
                if (incr) {
                    score += current;
                    if (Double.isNaN(score)) {
                        throw new CommandError(NAN);
                    }
                }
                if ((flags & LT) != 0 && score >= current || (flags & GT) != 0 && score <= current) {
                    continue;
                }
                last = score;
                processed++;
                if (score != current) {
                    Zsets.put(tx, a[1], member, score, current, listpack);
                    updated++;
                }
            } else if ((flags & XX) == 0) {
                if (count + 1 > Zsets.MAX_LISTPACK || member.length > Zsets.MAX_LISTPACK_VALUE) {
                    listpack = false;
                }
                Zsets.put(tx, a[1], member, score, null, listpack);
                count++;
                added++;
                processed++;
                last = score;
            }
        }
        if (added > 0) { // an update changes neither the count nor the encoding
            tx.putElements(a[1], rec, Tx.ZSET, count, 0, listpack ? 0 : Tx.ENC_RAW);
        }
        if (added > 0 || updated > 0) {
            tx.event(KeyspaceEvents.ZSET, incr ? "zincr" : "zadd", a[1]);
        }
        if (incr) {
            if (processed > 0) {
                r.doubleValue(Doubles.format(last));
            } else {
                r.nullBulk();
            }
        } else {
            r.integer((flags & CH) != 0 ? added + updated : added);
        }
    }

    static void zrem(Tx tx, byte[][] a, Reply r) {
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        long removed = 0;
        for (int i = 2; i < a.length; i++) {
            Double s = Zsets.score(tx, a[1], a[i]);
            if (s != null) {
                Zsets.remove(tx, a[1], a[i], s);
                removed++;
            }
        }
        if (removed > 0) {
            tx.putElements(a[1], rec, Tx.ZSET, rec.fieldCount() - removed, 0, rec.flags());
            tx.eventThenDelIfGone(KeyspaceEvents.ZSET, "zrem", a[1]);
        }
        r.integer(removed);
    }

    // ---------------------------------------------------------------- single-member reads

    static void zcard(Tx tx, byte[][] a, Reply r) {
        Rec rec = zset(tx, a[1]);
        r.integer(rec == null ? 0 : rec.fieldCount());
    }

    static void zscore(Tx tx, byte[][] a, Reply r) {
        Rec rec = zset(tx, a[1]);
        Replies.doubleOrNil(r, formattedScore(tx, a[1], rec, a[2]));
    }

    static void zmscore(Tx tx, byte[][] a, Reply r) {
        Rec rec = zset(tx, a[1]);
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            Replies.doubleOrNil(r, formattedScore(tx, a[1], rec, a[i]));
        }
    }

    /** The score of {@code member} in the sorted set {@code rec} (null: none) as replies print it, or null. */
    private static byte[] formattedScore(Tx tx, byte[] key, Rec rec, byte[] member) {
        Double s = rec == null ? null : Zsets.score(tx, key, member);
        return s == null ? null : Doubles.format(s);
    }

    static void zrank(Tx tx, byte[][] a, Reply r) {
        rank(tx, a, false, r);
    }

    static void zrevrank(Tx tx, byte[][] a, Reply r) {
        rank(tx, a, true, r);
    }

    /** ZRANK / ZREVRANK key member. */
    private static void rank(Tx tx, byte[][] a, boolean reverse, Reply r) {
        Rec rec = zset(tx, a[1]);
        Double s = rec == null ? null : Zsets.score(tx, a[1], a[2]);
        if (s == null) {
            r.nullBulk();
            return;
        }
        long rank = Zsets.rank(tx, a[1], rec, a[2], s);
        r.integer(reverse ? rec.fieldCount() - 1 - rank : rank);
    }

    // ---------------------------------------------------------------- ranges (see ZsetRanges)

    private static void range(Tx tx, byte[][] a, By by, Boolean reverse, Reply r) {
        RangeArgs o = ZsetRanges.parse(a, 1, false, by, reverse);
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            r.array(0);
            return;
        }
        reply(r, ZsetRanges.select(tx, a[1], rec, o), o.withScores());
    }

    static void zrange(Tx tx, byte[][] a, Reply r) {
        range(tx, a, null, null, r);
    }

    static void zrevrange(Tx tx, byte[][] a, Reply r) {
        range(tx, a, By.RANK, true, r);
    }

    static void zrangebyscore(Tx tx, byte[][] a, Reply r) {
        range(tx, a, By.SCORE, false, r);
    }

    static void zrevrangebyscore(Tx tx, byte[][] a, Reply r) {
        range(tx, a, By.SCORE, true, r);
    }

    static void zrangebylex(Tx tx, byte[][] a, Reply r) {
        range(tx, a, By.LEX, false, r);
    }

    static void zrevrangebylex(Tx tx, byte[][] a, Reply r) {
        range(tx, a, By.LEX, true, r);
    }

    static void checkZrangestore(byte[][] a, long nowMs) {
        ZsetRanges.parse(a, 2, true, null, null);
    }

    /** ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]. */
    static void zrangestore(Tx tx, byte[][] a, Reply r) {
        RangeArgs o = ZsetRanges.parse(a, 2, true, null, null);
        Rec rec = zset(tx, a[2]);
        if (rec == null) {
            tx.readMiss(a[2]);
        }
        List<Entry> result = rec == null ? List.of() : ZsetRanges.select(tx, a[2], rec, o);
        Zsets.store(tx, a[1], result, "zrangestore");
        r.integer(result.size());
    }

    static void zcount(Tx tx, byte[][] a, Reply r) {
        count(tx, a, RangeArgs.byScore(ScoreRange.parse(a[2], a[3])), r);
    }

    static void zlexcount(Tx tx, byte[][] a, Reply r) {
        count(tx, a, RangeArgs.byLex(LexRange.parse(a[2], a[3])), r);
    }

    private static void count(Tx tx, byte[][] a, RangeArgs o, Reply r) {
        Rec rec = zset(tx, a[1]);
        r.integer(rec == null ? 0 : ZsetRanges.select(tx, a[1], rec, o).size());
    }

    // ---------------------------------------------------------------- removal by range

    static void checkZremrangebyrank(byte[][] a, long nowMs) {
        Numbers.parseLong(a[2]);
        Numbers.parseLong(a[3]);
    }

    static void checkZremrangebyscore(byte[][] a, long nowMs) {
        ScoreRange.parse(a[2], a[3]);
    }

    static void checkZremrangebylex(byte[][] a, long nowMs) {
        LexRange.parse(a[2], a[3]);
    }

    static void zremrangebyrank(Tx tx, byte[][] a, Reply r) {
        removeRange(tx, a, "zremrangebyrank", RangeArgs.byRank(Numbers.parseLong(a[2]), Numbers.parseLong(a[3])), r);
    }

    static void zremrangebyscore(Tx tx, byte[][] a, Reply r) {
        removeRange(tx, a, "zremrangebyscore", RangeArgs.byScore(ScoreRange.parse(a[2], a[3])), r);
    }

    static void zremrangebylex(Tx tx, byte[][] a, Reply r) {
        removeRange(tx, a, "zremrangebylex", RangeArgs.byLex(LexRange.parse(a[2], a[3])), r);
    }

    private static void removeRange(Tx tx, byte[][] a, String event, RangeArgs o, Reply r) {
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        List<Entry> gone = ZsetRanges.select(tx, a[1], rec, o);
        for (Entry e : gone) {
            Zsets.remove(tx, a[1], e.member(), e.score());
        }
        if (!gone.isEmpty()) {
            tx.putElements(a[1], rec, Tx.ZSET, rec.fieldCount() - gone.size(), 0, rec.flags());
            tx.eventThenDelIfGone(KeyspaceEvents.ZSET, event, a[1]);
        }
        r.integer(gone.size());
    }

    // ---------------------------------------------------------------- pops

    static void checkZpop(byte[][] a, long nowMs) {
        Numbers.optionalCount(a, 1);
    }

    static void zpopmin(Tx tx, byte[][] a, Reply r) {
        zpop(tx, a, false, r);
    }

    static void zpopmax(Tx tx, byte[][] a, Reply r) {
        zpop(tx, a, true, r);
    }

    private static void zpop(Tx tx, byte[][] a, boolean max, Reply r) {
        long count = Numbers.optionalCount(a, 1);
        Rec rec = zset(tx, a[1]);
        if (rec == null || count == 0) {
            r.array(0);
            return;
        }
        // without a count, one pair, flat in RESP3 too
        List<Entry> popped = Zsets.pop(tx, a[1], rec, max, count);
        tx.eventThenDelIfGone(KeyspaceEvents.ZSET, max ? "zpopmax" : "zpopmin", a[1]);
        reply(r, popped, true, a.length == 3 && r.protocol() == 3);
    }

    static void checkZmpop(byte[][] a, long nowMs) {
        Pops.checkMany(a, From.ZSET, false);
    }

    /** ZMPOP: replies [key, [[member, score], ...]] from the first non-empty sorted set, or nil. */
    static void zmpop(Tx tx, byte[][] a, Reply r) {
        Pops.many(tx, a, From.ZSET, false, false, r);
    }

    // ---------------------------------------------------------------- ZRANDMEMBER

    /** ZRANDMEMBER key [count [WITHSCORES]]: drawn from {@link Choice}, as SRANDMEMBER. */
    static void zrandmember(Tx tx, byte[][] a, Reply r) {
        Choice.Draw draw = Choice.Draw.of(a, "withscores");
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            Choice.nothing(r, a.length >= 3);
            return;
        }
        Choice random = Choice.of(tx, a);
        byte[] prefix = Zsets.memberPrefix(a[1]);
        if (a.length == 2) {
            r.bulk(random.one(tx, a[1], prefix, rec.fieldCount()));
            return;
        }
        List<byte[]> members = random.some(tx, prefix, rec.fieldCount(), draw.count());
        boolean nested = draw.with() && r.protocol() == 3;
        r.array(members.size() * (draw.with() && !nested ? 2 : 1));
        for (byte[] m : members) {
            if (nested) {
                r.array(2);
            }
            r.bulk(m);
            if (draw.with()) {
                r.doubleValue(Doubles.format(Zsets.score(tx, a[1], m)));
            }
        }
    }

    // ---------------------------------------------------------------- ZSCAN

    /** ZSCAN: a listpack comes whole with cursor 0, as in Redis; a skiplist is iterated COUNT members at a time. */
    static void zscan(Tx tx, byte[][] a, Reply r) {
        long cursor = Args.cursor(a[2]);
        Rec rec = zset(tx, a[1]);
        if (rec != null && !Zsets.skiplist(rec)) {
            // a listpack comes whole, in its order (score, then member), as Redis sends it
            KeyCommands.ScanOptions o = KeyCommands.scanOptions(a, 3, false);
            List<Entry> out = new ArrayList<>();
            for (Entry e : Zsets.all(tx, a[1])) {
                if (o.matches(e.member())) {
                    out.add(e);
                }
            }
            r.array(2);
            r.bulk(Args.ascii("0"));
            r.array(out.size() * 2);
            for (Entry e : out) {
                r.bulk(e.member());
                r.bulk(Doubles.formatListpack(e.score()));
            }
            return;
        }
        byte[] prefix = Zsets.memberPrefix(a[1]);
        KeyCommands.scanElements(tx, a, cursor, rec, prefix, false, v -> Doubles.format(Zsets.score(v)), r);
    }

    // ---------------------------------------------------------------- blocking forms (see Pops)

    static void checkBlockingZpop(byte[][] a, long nowMs) {
        Pops.checkFirst(a);
    }

    static void bzpopmin(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.ZSET, true, false, r);
    }

    static void bzpopmax(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.ZSET, false, false, r);
    }

    static void bzpopminWoken(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.ZSET, true, true, r);
    }

    static void bzpopmaxWoken(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.ZSET, false, true, r);
    }

    static void checkBzmpop(byte[][] a, long nowMs) {
        Pops.checkMany(a, From.ZSET, true);
    }

    /** BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]. */
    static void bzmpop(Tx tx, byte[][] a, Reply r) {
        Pops.many(tx, a, From.ZSET, true, false, r);
    }

    static void bzmpopWoken(Tx tx, byte[][] a, Reply r) {
        Pops.many(tx, a, From.ZSET, true, true, r);
    }
}
