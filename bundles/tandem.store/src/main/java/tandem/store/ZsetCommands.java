package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

import org.rocksdb.RocksIterator;

import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * The sorted-set commands, with Redis 7.0's argument checks, replies and error texts; scores are read and printed
 * as Redis does ({@link Doubles}).
 *
 * <h2>Layout</h2>
 * Each member has two records in the {@code fields} family, under the key's prefix {@code [key_len u32 BE][key]}:
 * <pre>
 * [prefix][0x00][member]                      -&gt; [score: the double's bits, u64 BE]   (member to score)
 * [prefix][0x01][sortable score u64 BE][member] -&gt; empty                             (score order)
 * </pre>
 * The sortable score ({@link Doubles#sortable}) orders as the scores do, so the second family iterates in Redis'
 * order: score, then member bytes. ZADD, ZREM, ZSCORE and ZINCRBY touch a member's two records whatever the set's
 * size; a range by score or by lex seeks to its start and reads what it returns; ranks (ZRANK, a range by index)
 * count from the end nearer to them, so they read up to the rank's records. The count is in the key record.
 *
 * <p>Encoding (OBJECT ENCODING): "listpack" until the set has held more than {@value #MAX_LISTPACK} members or a
 * member longer than {@value #MAX_LISTPACK_VALUE} bytes, then "skiplist" for good ({@link Tx#ENC_RAW}); a store
 * command (ZUNIONSTORE…) makes a listpack of a result small enough. A listpack keeps {@code -0} as {@code 0}, a
 * skiplist keeps the sign, and so does Tandem.
 */
final class ZsetCommands {

    /** Redis' default {@code zset-max-listpack-entries}. */
    static final int MAX_LISTPACK = 128;
    /** Redis' default {@code zset-max-listpack-value}. */
    static final int MAX_LISTPACK_VALUE = 64;

    private static final byte MEMBER = 0;
    private static final byte ORDER = 1;
    private static final byte[] EMPTY = new byte[0];
    private static final String NOT_FLOAT = CommandError.NOT_FLOAT;
    private static final String RANGE_NOT_FLOAT = "ERR min or max is not a float";
    private static final String LEX_NOT_VALID = "ERR min or max not valid string range item";
    private static final String NAN = "ERR resulting score is not a number (NaN)";

    private ZsetCommands() {
    }

    static String encodingName(Rec rec) {
        return skiplist(rec) ? "skiplist" : "listpack";
    }

    private static boolean skiplist(Rec rec) {
        return rec != null && (rec.has(Tx.ENC_RAW) || rec.fieldCount() > MAX_LISTPACK);
    }

    // ---------------------------------------------------------------- storage

    /**
     * What is known in memory of one sorted set ({@link Tx#zsetMeta}): sortable lower and upper bounds of its live
     * members' scores (unsigned; 0 and -1 when unknown), which a pop from an end sets so that the next walk from that
     * end seeks past the deletions earlier pops left there (RocksDB keeps them until compaction) instead of stepping
     * over each; and its rank index, once a rank was asked of it.
     */
    static final class Meta {
        long lower;
        long upper = -1L;
        RankIndex rank;
    }

    private static Meta meta(Tx tx, byte[] key) {
        return tx.zsetMeta.isEmpty() ? null : tx.zsetMeta.get(java.nio.ByteBuffer.wrap(key));
    }

    private static Meta metaOrNew(Tx tx, byte[] key) {
        return tx.zsetMeta.computeIfAbsent(java.nio.ByteBuffer.wrap(key.clone()), k -> new Meta());
    }

    /** One member and its score. */
    record Entry(byte[] member, double score) {
    }

    static byte[] memberPrefix(byte[] key) {
        return Tx.concat(Tx.fieldPrefix(key), new byte[] {MEMBER});
    }

    static byte[] orderPrefix(byte[] key) {
        return Tx.concat(Tx.fieldPrefix(key), new byte[] {ORDER});
    }

    private static byte[] orderName(double score, byte[] member) {
        byte[] name = new byte[8 + member.length];
        Doubles.putSortable(name, 0, score);
        System.arraycopy(member, 0, name, 8, member.length);
        return name;
    }

    private static byte[] scoreBytes(double score) {
        long bits = Double.doubleToRawLongBits(score);
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) bits;
            bits >>>= 8;
        }
        return b;
    }

    private static double score(byte[] b) {
        long bits = 0;
        for (int i = 0; i < 8; i++) {
            bits = (bits << 8) | (b[i] & 0xff);
        }
        return Double.longBitsToDouble(bits);
    }

    /** The score of {@code member}, or null. */
    static Double score(Tx tx, byte[] key, byte[] member) {
        byte[] v = tx.record(memberPrefix(key), member);
        return v == null ? null : score(v);
    }

    /** Writes a member's two records, replacing those of its old score ({@code old}, or null for a new member). */
    static void put(Tx tx, byte[] key, byte[] member, double score, Double old, boolean listpack) {
        if (listpack && score == 0) {
            score = 0.0; // a listpack stores -0 as the integer 0
        }
        Meta meta = meta(tx, key);
        if (meta != null) {
            long s = Doubles.sortable(score);
            meta.lower = Long.compareUnsigned(s, meta.lower) < 0 ? s : meta.lower;
            meta.upper = Long.compareUnsigned(s, meta.upper) > 0 ? s : meta.upper;
        }
        if (old != null) {
            tx.deleteRecord(orderPrefix(key), orderName(old, member));
            if (meta != null && meta.rank != null) {
                meta.rank.removed(orderName(old, member));
            }
        }
        tx.putRecord(memberPrefix(key), member, scoreBytes(score));
        tx.putRecord(orderPrefix(key), orderName(score, member), EMPTY);
        if (meta != null && meta.rank != null) {
            meta.rank.added(tx, key, orderName(score, member));
        }
    }

    static void remove(Tx tx, byte[] key, byte[] member, double score) {
        tx.deleteRecord(memberPrefix(key), member);
        tx.deleteRecord(orderPrefix(key), orderName(score, member));
        Meta meta = meta(tx, key);
        if (meta != null && meta.rank != null) {
            meta.rank.removed(orderName(score, member));
        }
    }

    /** The rank index of a set large enough for one to pay, built now if need be; null for a smaller set. */
    private static RankIndex rankIndex(Tx tx, byte[] key, Rec rec) {
        if (rec.fieldCount() < RankIndex.minSize) {
            return null;
        }
        Meta meta = metaOrNew(tx, key);
        if (meta.rank == null) {
            meta.rank = RankIndex.build(tx, key);
        }
        return meta.rank;
    }

    /** After a pop from one end: every live member's score is on the far side of {@code last}'s (inclusive). */
    private static void bound(Tx tx, byte[] key, double last, boolean max) {
        Meta meta = metaOrNew(tx, key);
        if (max) {
            meta.upper = Doubles.sortable(last);
        } else {
            meta.lower = Doubles.sortable(last);
        }
    }

    /**
     * Walks the members in score order from the lowest ({@code reverse}: the highest). It reads an entry only when
     * asked for it, so that it never steps past the last one wanted onto what lies beyond.
     */
    static final class Walk implements AutoCloseable {
        private final RocksIterator it;
        private final byte[] prefix;
        private final boolean reverse;
        private boolean started;

        Walk(Tx tx, byte[] key, boolean reverse) {
            this.it = tx.fieldIterator();
            this.prefix = orderPrefix(key);
            this.reverse = reverse;
            Meta bounds = meta(tx, key);
            if (reverse) {
                if (bounds != null && bounds.upper != -1L) {
                    seekAtMost(bounds.upper); // past what earlier pops from this end deleted
                } else {
                    // no record is named [prefix][0x02]: the last one before it is the set's highest
                    it.seekForPrev(Tx.concat(Tx.fieldPrefix(key), new byte[] {ORDER + 1}));
                }
            } else {
                byte[] at = new byte[8];
                long lower = bounds == null ? 0 : bounds.lower;
                for (int i = 7; i >= 0; i--) {
                    at[i] = (byte) lower;
                    lower >>>= 8;
                }
                it.seek(bounds == null ? prefix : Tx.concat(prefix, at));
            }
        }

        /** Positions at the last order record whose sortable score is at most {@code s} (unsigned). */
        private void seekAtMost(long s) {
            if (s == -1L) {
                it.seekForPrev(Tx.concat(Arrays.copyOf(prefix, prefix.length - 1), new byte[] {ORDER + 1}));
                return;
            }
            long n = s + 1;
            byte[] next = Tx.concat(prefix, new byte[8]);
            for (int i = 7; i >= 0; i--) {
                next[prefix.length + i] = (byte) n;
                n >>>= 8;
            }
            it.seekForPrev(next);
            if (it.isValid() && Arrays.equals(it.key(), next)) {
                it.prev();
            }
        }

        /** Starts from the first member whose score is at least (reverse: at most) {@code score}. */
        Walk from(double score) {
            if (reverse) {
                seekAtMost(Doubles.sortable(score));
            } else {
                byte[] at = new byte[8];
                Doubles.putSortable(at, 0, score);
                it.seek(Tx.concat(prefix, at));
            }
            return this;
        }

        /** Positions the walk so that its next entry is the first whose order name is at least {@code name}. */
        Walk at(byte[] name) {
            it.seek(Tx.concat(prefix, name));
            started = false;
            return this;
        }

        /** The next entry's order name ({@code [sortable score][member]}), or null at the end. */
        byte[] nextName() {
            if (!advance()) {
                return null;
            }
            byte[] k = it.key();
            return Arrays.copyOfRange(k, prefix.length, k.length);
        }

        private boolean advance() {
            if (started) {
                if (reverse) {
                    it.prev();
                } else {
                    it.next();
                }
            }
            started = true;
            return it.isValid() && Tx.startsWith(it.key(), prefix);
        }

        /** The next member, or null at the end. */
        Entry next() {
            if (!advance()) {
                return null;
            }
            byte[] k = it.key();
            long bits = 0;
            for (int i = 0; i < 8; i++) {
                bits = (bits << 8) | (k[prefix.length + i] & 0xff);
            }
            return new Entry(Arrays.copyOfRange(k, prefix.length + 8, k.length), Doubles.fromSortable(bits));
        }

        @Override
        public void close() {
            it.close();
        }
    }

    /**
     * The members with their stored scores (the order family normalises -0: the member record has the sign) from
     * index {@code from} to {@code to}, inclusive, counted from the lowest (reverse: the highest).
     */
    static List<Entry> byRank(Tx tx, byte[] key, Rec rec, long from, long to, boolean reverse) {
        long n = rec.fieldCount();
        RankIndex index = Math.min(from, n - 1 - to) > RankIndex.span ? rankIndex(tx, key, rec) : null;
        if (index != null) {
            // deep in a large set: the index finds the first, then the walk reads what is returned
            long lo = reverse ? n - 1 - to : from;
            long hi = reverse ? n - 1 - from : to;
            List<Entry> out = new ArrayList<>();
            try (Walk w = index.walkFrom(tx, key, lo)) {
                for (long i = lo; i <= hi; i++) {
                    out.add(w.next());
                }
            }
            if (reverse) {
                java.util.Collections.reverse(out);
            }
            return withStoredScores(tx, key, out);
        }
        // read from the nearer end
        boolean flip = from > n - 1 - to;
        long a = flip ? n - 1 - to : from;
        long b = flip ? n - 1 - from : to;
        List<Entry> out = new ArrayList<>();
        try (Walk w = new Walk(tx, key, reverse != flip)) {
            for (long i = 0; i < a; i++) {
                w.next();
            }
            for (long i = a; i <= b; i++) {
                out.add(w.next());
            }
        }
        if (flip) {
            java.util.Collections.reverse(out);
        }
        return withStoredScores(tx, key, out);
    }

    /** The entries with the scores of their member records (which keep a skiplist's -0). */
    private static List<Entry> withStoredScores(Tx tx, byte[] key, List<Entry> entries) {
        List<Entry> out = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            out.add(e.score() == 0 ? new Entry(e.member(), score(tx, key, e.member())) : e);
        }
        return out;
    }

    /** Every member, lowest score first. */
    static List<Entry> all(Tx tx, byte[] key) {
        List<Entry> out = new ArrayList<>();
        try (Walk w = new Walk(tx, key, false)) {
            for (Entry e = w.next(); e != null; e = w.next()) {
                out.add(e);
            }
        }
        return withStoredScores(tx, key, out);
    }

    private static Rec zset(Tx tx, byte[] key) {
        return tx.typed(key, Tx.ZSET);
    }

    /**
     * Replaces whatever {@code key} holds with a sorted set of {@code entries} (any order), as the store commands
     * do: an empty result deletes the key; the deadline goes; a result small enough is a listpack.
     */
    private static void store(Tx tx, byte[] key, List<Entry> entries) {
        Rec old = tx.meta(key);
        if (old != null) {
            tx.delete(key, old);
        }
        if (entries.isEmpty()) {
            return;
        }
        boolean listpack = entries.size() <= MAX_LISTPACK;
        for (Entry e : entries) {
            listpack &= e.member().length <= MAX_LISTPACK_VALUE;
        }
        for (Entry e : entries) {
            put(tx, key, e.member(), e.score(), null, listpack);
        }
        tx.putCollection(key, null, Tx.ZSET, entries.size(), Tx.NO_EXPIRY, listpack ? 0 : Tx.ENC_RAW);
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
        boolean listpack = !skiplist(rec);
        long count = rec == null ? 0 : rec.fieldCount();
        long added = 0;
        long updated = 0;
        long processed = 0;
        double last = 0;
        for (int j = 0; j < o.scores().length; j++) {
            double score = o.scores()[j];
            byte[] member = a[o.scoreAt() + 1 + j * 2];
            Double current = count == 0 ? null : score(tx, a[1], member);
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
                    put(tx, a[1], member, score, current, listpack);
                    updated++;
                }
            } else if ((flags & XX) == 0) {
                if (count + 1 > MAX_LISTPACK || member.length > MAX_LISTPACK_VALUE) {
                    listpack = false;
                }
                put(tx, a[1], member, score, null, listpack);
                count++;
                added++;
                processed++;
                last = score;
            }
        }
        if (added > 0) { // an update changes neither the count nor the encoding
            tx.putElements(a[1], rec, Tx.ZSET, count, 0, listpack ? 0 : Tx.ENC_RAW);
        }
        if (incr) {
            if (processed > 0) {
                r.bulk(Doubles.format(last));
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
            Double s = score(tx, a[1], a[i]);
            if (s != null) {
                remove(tx, a[1], a[i], s);
                removed++;
            }
        }
        if (removed > 0) {
            tx.putElements(a[1], rec, Tx.ZSET, rec.fieldCount() - removed, 0, rec.flags());
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
        Double s = rec == null ? null : score(tx, a[1], a[2]);
        if (s == null) {
            r.nullBulk();
        } else {
            r.bulk(Doubles.format(s));
        }
    }

    static void zmscore(Tx tx, byte[][] a, Reply r) {
        Rec rec = zset(tx, a[1]);
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            Double s = rec == null ? null : score(tx, a[1], a[i]);
            if (s == null) {
                r.nullBulk();
            } else {
                r.bulk(Doubles.format(s));
            }
        }
    }

    static void zrank(Tx tx, byte[][] a, Reply r) {
        rank(tx, a, false, r);
    }

    static void zrevrank(Tx tx, byte[][] a, Reply r) {
        rank(tx, a, true, r);
    }

    /** The rank is counted from the end nearer to the member: up to half the set's order records are read. */
    private static void rank(Tx tx, byte[][] a, boolean reverse, Reply r) {
        Rec rec = zset(tx, a[1]);
        Double s = rec == null ? null : score(tx, a[1], a[2]);
        if (s == null) {
            r.nullBulk();
            return;
        }
        RankIndex index = rankIndex(tx, a[1], rec);
        if (index != null) {
            long rank = index.rank(tx, a[1], orderName(s, a[2]));
            r.integer(reverse ? rec.fieldCount() - 1 - rank : rank);
            return;
        }
        long below = 0;
        long above = 0;
        // count both ways at once, one record at a time, until one walk reaches the member
        try (Walk up = new Walk(tx, a[1], false); Walk down = new Walk(tx, a[1], true)) {
            while (true) {
                Entry e = up.next();
                if (Arrays.equals(e.member(), a[2])) {
                    long rank = below;
                    r.integer(reverse ? rec.fieldCount() - 1 - rank : rank);
                    return;
                }
                below++;
                Entry f = down.next();
                if (Arrays.equals(f.member(), a[2])) {
                    long rank = rec.fieldCount() - 1 - above;
                    r.integer(reverse ? rec.fieldCount() - 1 - rank : rank);
                    return;
                }
                above++;
            }
        }
    }

    // ---------------------------------------------------------------- ranges

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

    private enum By { RANK, SCORE, LEX }

    /** The parsed arguments of the ZRANGE family. */
    private record RangeArgs(By by, boolean reverse, boolean withScores, long offset, long limit, long start,
            long end, ScoreRange scores, LexRange lex) {
    }

    /**
     * A port of {@code zrangeGenericCommand}'s parsing: {@code keyAt} is the source key's index; {@code by} and
     * {@code reverse} are fixed by the command (null: chosen by the options, as ZRANGE and ZRANGESTORE do).
     */
    private static RangeArgs rangeArgs(byte[][] a, int keyAt, boolean store, By by, Boolean reverse) {
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
    private static List<Entry> select(Tx tx, byte[] key, Rec rec, RangeArgs o) {
        long llen = rec.fieldCount();
        if (o.by() == By.RANK) {
            long start = o.start();
            long end = o.end();
            if (start < 0) {
                start += llen;
            }
            if (end < 0) {
                end += llen;
            }
            if (start < 0) {
                start = 0;
            }
            if (start > end || start >= llen) {
                return List.of();
            }
            if (end >= llen) {
                end = llen - 1;
            }
            return byRank(tx, key, rec, start, end, o.reverse());
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
        return withStoredScores(tx, key, out);
    }

    /**
     * {@code zzlFirstInLexRange} / {@code zzlLastInLexRange}: the first member from the walk's end that passes the
     * near bound, if it also passes the far one; after the check that the range overlaps the set at all.
     */
    private static Entry firstInLex(Walk w, LexRange lex, boolean reverse, Tx tx, byte[] key, Rec rec) {
        List<Entry> ends = byRank(tx, key, rec, 0, 0, false);
        List<Entry> last = byRank(tx, key, rec, 0, 0, true);
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

    private static void reply(Reply r, List<Entry> entries, boolean withScores) {
        r.array(entries.size() * (withScores ? 2 : 1));
        for (Entry e : entries) {
            r.bulk(e.member());
            if (withScores) {
                r.bulk(Doubles.format(e.score()));
            }
        }
    }

    private static void range(Tx tx, byte[][] a, By by, Boolean reverse, Reply r) {
        RangeArgs o = rangeArgs(a, 1, false, by, reverse);
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            r.array(0);
            return;
        }
        reply(r, select(tx, a[1], rec, o), o.withScores());
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
        rangeArgs(a, 2, true, null, null);
    }

    /** ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]. */
    static void zrangestore(Tx tx, byte[][] a, Reply r) {
        RangeArgs o = rangeArgs(a, 2, true, null, null);
        Rec rec = zset(tx, a[2]);
        List<Entry> result = rec == null ? List.of() : select(tx, a[2], rec, o);
        store(tx, a[1], result);
        r.integer(result.size());
    }

    static void zcount(Tx tx, byte[][] a, Reply r) {
        ScoreRange s = ScoreRange.parse(a[2], a[3]);
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        r.integer(select(tx, a[1], rec, new RangeArgs(By.SCORE, false, false, 0, -1, 0, 0, s, null)).size());
    }

    static void zlexcount(Tx tx, byte[][] a, Reply r) {
        LexRange lex = LexRange.parse(a[2], a[3]);
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        r.integer(select(tx, a[1], rec, new RangeArgs(By.LEX, false, false, 0, -1, 0, 0, null, lex)).size());
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
        long start = Numbers.parseLong(a[2]);
        long end = Numbers.parseLong(a[3]);
        removeRange(tx, a, new RangeArgs(By.RANK, false, false, 0, -1, start, end, null, null), r);
    }

    static void zremrangebyscore(Tx tx, byte[][] a, Reply r) {
        removeRange(tx, a, new RangeArgs(By.SCORE, false, false, 0, -1, 0, 0, ScoreRange.parse(a[2], a[3]), null),
                r);
    }

    static void zremrangebylex(Tx tx, byte[][] a, Reply r) {
        removeRange(tx, a, new RangeArgs(By.LEX, false, false, 0, -1, 0, 0, null, LexRange.parse(a[2], a[3])), r);
    }

    private static void removeRange(Tx tx, byte[][] a, RangeArgs o, Reply r) {
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        List<Entry> gone = select(tx, a[1], rec, o);
        for (Entry e : gone) {
            remove(tx, a[1], e.member(), e.score());
        }
        if (!gone.isEmpty()) {
            tx.putElements(a[1], rec, Tx.ZSET, rec.fieldCount() - gone.size(), 0, rec.flags());
        }
        r.integer(gone.size());
    }

    // ---------------------------------------------------------------- pops

    static void checkZpop(byte[][] a, long nowMs) {
        if (a.length > 3) {
            throw new CommandError(CommandError.SYNTAX);
        }
        if (a.length == 3) {
            ListCommands.positive(a[2], CommandError.MUST_BE_POSITIVE);
        }
    }

    static void zpopmin(Tx tx, byte[][] a, Reply r) {
        zpop(tx, a, false, r);
    }

    static void zpopmax(Tx tx, byte[][] a, Reply r) {
        zpop(tx, a, true, r);
    }

    private static void zpop(Tx tx, byte[][] a, boolean max, Reply r) {
        checkZpop(a, tx.nowMs);
        long count = a.length == 3 ? ListCommands.positive(a[2], CommandError.MUST_BE_POSITIVE) : 1;
        Rec rec = zset(tx, a[1]);
        if (rec == null || count == 0) {
            r.array(0);
            return;
        }
        reply(r, pop(tx, a[1], rec, max, count), true);
    }

    private static List<Entry> pop(Tx tx, byte[] key, Rec rec, boolean max, long count) {
        List<Entry> popped = byRank(tx, key, rec, 0, Math.min(count, rec.fieldCount()) - 1, max);
        for (Entry e : popped) {
            remove(tx, key, e.member(), e.score());
        }
        bound(tx, key, popped.get(popped.size() - 1).score(), max);
        tx.putElements(key, rec, Tx.ZSET, rec.fieldCount() - popped.size(), 0, rec.flags());
        return popped;
    }

    static void checkZmpop(byte[][] a, long nowMs) {
        zmpopOptions(a, 1);
    }

    /** ZMPOP numkeys key... MIN|MAX [COUNT count]: {numkeys, MAX ? 1 : 0, count}. */
    private static long[] zmpopOptions(byte[][] a, int numkeysAt) {
        return ListCommands.mpopOptions(a, numkeysAt, "max", "min");
    }

    /** ZMPOP: replies [key, [[member, score], ...]] from the first non-empty sorted set, or nil. */
    static void zmpop(Tx tx, byte[][] a, Reply r) {
        mpop(tx, a, zmpopOptions(a, 1), 2, false, r);
    }

    /** The sorted set at {@code key}, or null; for a woken blocking command also null for another type. */
    private static Rec source(Tx tx, byte[] key, boolean woken) {
        if (!woken) {
            return zset(tx, key);
        }
        Rec rec = tx.meta(key);
        return rec != null && rec.isZset() ? rec : null;
    }

    private static void mpop(Tx tx, byte[][] a, long[] o, int firstKey, boolean woken, Reply r) {
        for (int i = firstKey; i < firstKey + o[0]; i++) {
            Rec rec = source(tx, a[i], woken);
            if (rec != null) {
                List<Entry> popped = pop(tx, a[i], rec, o[1] == 1, o[2]);
                r.array(2);
                r.bulk(a[i]);
                r.array(popped.size());
                for (Entry e : popped) {
                    r.array(2);
                    r.bulk(e.member());
                    r.bulk(Doubles.format(e.score()));
                }
                return;
            }
        }
        r.nullArray();
    }

    // ---------------------------------------------------------------- ZRANDMEMBER

    /** ZRANDMEMBER key [count [WITHSCORES]]: drawn from {@link Choice}, as SRANDMEMBER. */
    static void zrandmember(Tx tx, byte[][] a, Reply r) {
        long count = 0;
        boolean withScores = false;
        if (a.length >= 3) {
            count = Choice.count(a[2]);
            if (a.length > 4 || a.length == 4 && !Args.is(a[3], "withscores")) {
                throw new CommandError(CommandError.SYNTAX);
            }
            if (a.length == 4) {
                withScores = true;
                if (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2) {
                    throw new CommandError("ERR value is out of range");
                }
            }
            Choice.checkRepeated(count);
        }
        Rec rec = zset(tx, a[1]);
        if (rec == null) {
            if (a.length >= 3) {
                r.array(0);
            } else {
                r.nullBulk();
            }
            return;
        }
        Choice random = Choice.of(tx, a);
        byte[] prefix = memberPrefix(a[1]);
        List<byte[]> members;
        if (a.length == 2) {
            r.bulk(random.one(tx, prefix, rec.fieldCount()));
            return;
        } else if (count >= 0) {
            members = random.distinct(tx, prefix, rec.fieldCount(), count);
        } else {
            members = random.repeated(tx, prefix, rec.fieldCount(), -count);
        }
        r.array(members.size() * (withScores ? 2 : 1));
        for (byte[] m : members) {
            r.bulk(m);
            if (withScores) {
                r.bulk(Doubles.format(score(tx, a[1], m)));
            }
        }
    }

    // ---------------------------------------------------------------- union, intersection, difference

    private enum Op { UNION, INTER, DIFF }

    private enum Aggregate { SUM, MIN, MAX }

    /** A source of a set operation: a sorted set, a set (every score 1) or nothing; with its weight. */
    private record Source(byte[] key, Rec rec, double weight) {

        long size() {
            return rec == null ? 0 : rec.fieldCount();
        }

        Double score(Tx tx, byte[] member) {
            if (rec == null) {
                return null;
            }
            if (rec.isSet()) {
                return SetCommands.isMember(tx, key, member) ? 1.0 : null;
            }
            return ZsetCommands.score(tx, key, member);
        }

        List<Entry> entries(Tx tx) {
            if (rec == null) {
                return List.of();
            }
            if (rec.isSet()) {
                List<Entry> out = new ArrayList<>();
                for (byte[] m : SetCommands.members(tx, key)) {
                    out.add(new Entry(m, 1.0));
                }
                return out;
            }
            return all(tx, key);
        }
    }

    /** The parsed arguments of the set operations. */
    private record SetOp(List<Source> sources, Aggregate aggregate, boolean withScores, long limit) {
    }

    /** A port of {@code zunionInterDiffGenericCommand}'s parsing; sources are looked up (WRONGTYPE) first. */
    private static SetOp setOp(Tx tx, byte[][] a, int numkeysAt, Op op, boolean store, boolean cardinality,
            String fullName) {
        long setnum = Numbers.parseLong(a[numkeysAt]);
        if (setnum < 1) {
            throw new CommandError("ERR at least 1 input key is needed for '" + fullName + "' command");
        }
        if (setnum > a.length - (numkeysAt + 1)) {
            throw new CommandError(CommandError.SYNTAX);
        }
        List<Source> sources = new ArrayList<>();
        int j = numkeysAt + 1;
        for (int i = 0; i < setnum; i++, j++) {
            Rec rec = tx == null ? null : tx.meta(a[j]);
            if (rec != null && !rec.isZset() && !rec.isSet()) {
                throw new CommandError(CommandError.WRONGTYPE);
            }
            sources.add(new Source(a[j], rec, 1.0));
        }
        Aggregate aggregate = Aggregate.SUM;
        boolean withScores = false;
        long limit = 0;
        int remaining = a.length - j;
        while (remaining > 0) {
            if (op != Op.DIFF && !cardinality && remaining >= setnum + 1 && Args.is(a[j], "weights")) {
                j++;
                remaining--;
                for (int i = 0; i < setnum; i++, j++, remaining--) {
                    Source s = sources.get(i);
                    sources.set(i, new Source(s.key(), s.rec(), Doubles.parse(a[j],
                            "ERR weight value is not a float")));
                }
            } else if (op != Op.DIFF && !cardinality && remaining >= 2 && Args.is(a[j], "aggregate")) {
                j++;
                remaining--;
                if (Args.is(a[j], "sum")) {
                    aggregate = Aggregate.SUM;
                } else if (Args.is(a[j], "min")) {
                    aggregate = Aggregate.MIN;
                } else if (Args.is(a[j], "max")) {
                    aggregate = Aggregate.MAX;
                } else {
                    throw new CommandError(CommandError.SYNTAX);
                }
                j++;
                remaining--;
            } else if (remaining >= 1 && !store && !cardinality && Args.is(a[j], "withscores")) {
                j++;
                remaining--;
                withScores = true;
            } else if (cardinality && remaining >= 2 && Args.is(a[j], "limit")) {
                j++;
                remaining--;
                limit = ListCommands.positive(a[j], "ERR LIMIT can't be negative");
                j++;
                remaining--;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new SetOp(sources, aggregate, withScores, limit);
    }

    private static double aggregate(Aggregate how, double target, double value) {
        return switch (how) {
            case SUM -> {
                double sum = target + value;
                yield Double.isNaN(sum) ? 0.0 : sum;
            }
            case MIN -> value < target ? value : target;
            case MAX -> value > target ? value : target;
        };
    }

    /** The result of a set operation, sorted by score then member, stopping at {@code limit} (0: all). */
    private static List<Entry> compute(Tx tx, SetOp o, Op op, long limit) {
        List<Source> sources = new ArrayList<>(o.sources());
        List<Entry> out = new ArrayList<>();
        switch (op) {
            case INTER -> {
                sources.sort(Comparator.comparingLong(Source::size));
                if (sources.get(0).size() == 0) {
                    return out;
                }
                for (Entry e : sources.get(0).entries(tx)) {
                    double score = weighted(sources.get(0), e.score());
                    boolean all = true;
                    for (int i = 1; i < sources.size() && all; i++) {
                        Double s = sources.get(i).score(tx, e.member());
                        if (s == null) {
                            all = false;
                        } else {
                            score = aggregate(o.aggregate(), score, weighted(sources.get(i), s));
                        }
                    }
                    if (all) {
                        out.add(new Entry(e.member(), score));
                        if (limit > 0 && out.size() >= limit) {
                            break;
                        }
                    }
                }
            }
            case UNION -> {
                sources.sort(Comparator.comparingLong(Source::size));
                TreeMap<byte[], Double> acc = new TreeMap<>(Arrays::compareUnsigned);
                for (Source s : sources) {
                    for (Entry e : s.entries(tx)) {
                        double score = weighted(s, e.score());
                        acc.merge(e.member(), score, (x, y) -> aggregate(o.aggregate(), x, y));
                    }
                }
                acc.forEach((m, s) -> out.add(new Entry(m, s)));
            }
            case DIFF -> {
                Source first = sources.get(0);
                for (Entry e : first.entries(tx)) {
                    boolean keep = true;
                    for (int i = 1; i < sources.size() && keep; i++) {
                        keep = sources.get(i).score(tx, e.member()) == null;
                    }
                    if (keep) {
                        out.add(e);
                    }
                }
            }
        }
        out.sort(Comparator.comparingDouble(Entry::score).thenComparing(Entry::member, Arrays::compareUnsigned));
        return out;
    }

    private static double weighted(Source s, double score) {
        double v = s.weight() * score;
        return Double.isNaN(v) ? 0.0 : v;
    }

    private static void setOpReply(Tx tx, byte[][] a, Op op, String name, Reply r) {
        SetOp o = setOp(tx, a, 1, op, false, false, name);
        reply(r, compute(tx, o, op, 0), o.withScores());
    }

    private static void setOpStore(Tx tx, byte[][] a, Op op, String name, Reply r) {
        SetOp o = setOp(tx, a, 2, op, true, false, name);
        List<Entry> result = compute(tx, o, op, 0);
        store(tx, a[1], result);
        r.integer(result.size());
    }

    static void checkZunionstore(byte[][] a, long nowMs) {
        setOp(null, a, 2, Op.UNION, true, false, "zunionstore");
    }

    static void checkZinterstore(byte[][] a, long nowMs) {
        setOp(null, a, 2, Op.INTER, true, false, "zinterstore");
    }

    static void checkZdiffstore(byte[][] a, long nowMs) {
        setOp(null, a, 2, Op.DIFF, true, false, "zdiffstore");
    }

    static void zunion(Tx tx, byte[][] a, Reply r) {
        setOpReply(tx, a, Op.UNION, "zunion", r);
    }

    static void zinter(Tx tx, byte[][] a, Reply r) {
        setOpReply(tx, a, Op.INTER, "zinter", r);
    }

    static void zdiff(Tx tx, byte[][] a, Reply r) {
        setOpReply(tx, a, Op.DIFF, "zdiff", r);
    }

    static void zunionstore(Tx tx, byte[][] a, Reply r) {
        setOpStore(tx, a, Op.UNION, "zunionstore", r);
    }

    static void zinterstore(Tx tx, byte[][] a, Reply r) {
        setOpStore(tx, a, Op.INTER, "zinterstore", r);
    }

    static void zdiffstore(Tx tx, byte[][] a, Reply r) {
        setOpStore(tx, a, Op.DIFF, "zdiffstore", r);
    }

    static void zintercard(Tx tx, byte[][] a, Reply r) {
        SetOp o = setOp(tx, a, 1, Op.INTER, false, true, "zintercard");
        r.integer(compute(tx, o, Op.INTER, o.limit()).size());
    }

    // ---------------------------------------------------------------- ZSCAN

    /** ZSCAN: a listpack comes whole with cursor 0, as in Redis; a skiplist is iterated COUNT members at a time. */
    static void zscan(Tx tx, byte[][] a, Reply r) {
        long cursor = Args.cursor(a[2]);
        Rec rec = zset(tx, a[1]);
        if (rec != null && !skiplist(rec)) {
            // a listpack comes whole, in its order (score, then member), as Redis sends it
            KeyCommands.ScanOptions o = KeyCommands.scanOptions(a, 3, false);
            List<Entry> out = new ArrayList<>();
            for (Entry e : all(tx, a[1])) {
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
        KeyCommands.scanElements(tx, a, cursor, rec, memberPrefix(a[1]), false, v -> Doubles.format(score(v)), r);
    }

    // ---------------------------------------------------------------- blocking forms (see ListCommands)

    static void checkBlockingZpop(byte[][] a, long nowMs) {
        ListCommands.timeoutMillis(a[a.length - 1]);
    }

    static void bzpopmin(Tx tx, byte[][] a, Reply r) {
        blockingZpop(tx, a, false, false, r);
    }

    static void bzpopmax(Tx tx, byte[][] a, Reply r) {
        blockingZpop(tx, a, true, false, r);
    }

    static void bzpopminWoken(Tx tx, byte[][] a, Reply r) {
        blockingZpop(tx, a, false, true, r);
    }

    static void bzpopmaxWoken(Tx tx, byte[][] a, Reply r) {
        blockingZpop(tx, a, true, true, r);
    }

    /** BZPOPMIN / BZPOPMAX key [key ...] timeout: [key, member, score] from the first non-empty sorted set. */
    private static void blockingZpop(Tx tx, byte[][] a, boolean max, boolean woken, Reply r) {
        ListCommands.timeoutMillis(a[a.length - 1]);
        for (int i = 1; i < a.length - 1; i++) {
            Rec rec = source(tx, a[i], woken);
            if (rec != null) {
                Entry e = pop(tx, a[i], rec, max, 1).get(0);
                r.array(3);
                r.bulk(a[i]);
                r.bulk(e.member());
                r.bulk(Doubles.format(e.score()));
                return;
            }
        }
        r.nullArray();
    }

    static void checkBzmpop(byte[][] a, long nowMs) {
        ListCommands.timeoutMillis(a[1]);
        zmpopOptions(a, 2);
    }

    /** BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]. */
    static void bzmpop(Tx tx, byte[][] a, Reply r) {
        ListCommands.timeoutMillis(a[1]);
        mpop(tx, a, zmpopOptions(a, 2), 3, false, r);
    }

    static void bzmpopWoken(Tx tx, byte[][] a, Reply r) {
        ListCommands.timeoutMillis(a[1]);
        mpop(tx, a, zmpopOptions(a, 2), 3, true, r);
    }
}
