package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.rocksdb.RocksIterator;

import tandem.api.store.KeyspaceEvents;
import tandem.store.Tx.Rec;

/**
 * How a sorted set is stored, and the reads and writes its commands ({@link ZsetCommands}, {@link ZsetRanges},
 * {@link ZsetAlgebra}) are made of.
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
 * count from the end nearer to them, or use the set's {@link RankIndex} once it is large. The count is in the key
 * record. A pop leaves in the key's {@link Memo} that its end of the order is empty up to the next member, so that
 * the next walk from that end seeks past the deletions pops left there.
 *
 * <p>Encoding (OBJECT ENCODING): "listpack" until the set has held more than {@value #MAX_LISTPACK} members or a
 * member longer than {@value #MAX_LISTPACK_VALUE} bytes, then "skiplist" for good ({@link Tx#ENC_RAW}); a store
 * command (ZUNIONSTORE…) makes a listpack of a result small enough. A listpack keeps {@code -0} as {@code 0}, a
 * skiplist keeps the sign, and so does Tandem.
 */
final class Zsets {

    /** Redis' default {@code zset-max-listpack-entries}. */
    static final int MAX_LISTPACK = 128;
    /** Redis' default {@code zset-max-listpack-value}. */
    static final int MAX_LISTPACK_VALUE = 64;

    private static final byte MEMBER = 0;
    private static final byte ORDER = 1;
    private static final byte[] EMPTY = new byte[0];

    private Zsets() {
    }

    /** One member and its score. */
    record Entry(byte[] member, double score) {
    }

    /** The live sorted set at {@code key}, or null; WRONGTYPE when it holds another type. */
    static Rec zset(Tx tx, byte[] key) {
        return tx.typed(key, Tx.ZSET);
    }

    static String encodingName(Rec rec) {
        return skiplist(rec) ? "skiplist" : "listpack";
    }

    static boolean skiplist(Rec rec) {
        return rec != null && (rec.has(Tx.ENC_RAW) || rec.fieldCount() > MAX_LISTPACK);
    }

    // ---------------------------------------------------------------- records

    static byte[] memberPrefix(byte[] key) {
        return Tx.concat(Tx.fieldPrefix(key), new byte[] {MEMBER});
    }

    static byte[] orderPrefix(byte[] key) {
        return Tx.concat(Tx.fieldPrefix(key), new byte[] {ORDER});
    }

    /** A member's name in the score order: {@code [sortable score][member]}. */
    static byte[] orderName(double score, byte[] member) {
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

    /** The score a member record holds. */
    static double score(byte[] b) {
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
        RankIndex rank = rankIndexIfBuilt(tx, key);
        if (old != null) {
            tx.deleteRecord(orderPrefix(key), orderName(old, member));
            if (rank != null) {
                rank.removed(orderName(old, member));
            }
        }
        tx.putRecord(memberPrefix(key), member, scoreBytes(score));
        tx.putRecord(orderPrefix(key), orderName(score, member), EMPTY);
        if (rank != null) {
            rank.added(tx, key, orderName(score, member));
        }
    }

    static void remove(Tx tx, byte[] key, byte[] member, double score) {
        tx.deleteRecord(memberPrefix(key), member);
        tx.deleteRecord(orderPrefix(key), orderName(score, member));
        RankIndex rank = rankIndexIfBuilt(tx, key);
        if (rank != null) {
            rank.removed(orderName(score, member));
        }
    }

    /**
     * Replaces whatever {@code key} holds with a sorted set of {@code entries} (any order), as the store commands
     * do: an empty result deletes the key; the deadline goes; a result small enough is a listpack. Raises
     * {@code event}, or {@code del} when an empty result deleted the key.
     */
    static void store(Tx tx, byte[] key, List<Entry> entries, String event) {
        Rec old = tx.meta(key);
        if (old != null) {
            tx.delete(key, old);
        }
        if (entries.isEmpty()) {
            if (old != null) {
                tx.event(KeyspaceEvents.GENERIC, "del", key);
            }
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
        if (old != null) {
            tx.unraise(KeyspaceEvents.NEW, key); // Redis overwrites the key in place
        }
        tx.event(KeyspaceEvents.ZSET, event, key);
    }

    /**
     * Pops up to {@code count} members from the lowest end ({@code max}: the highest), in pop order; the key's
     * {@link Memo} learns that nothing is left beyond them. Deletes the key when it empties.
     */
    static List<Entry> pop(Tx tx, byte[] key, Rec rec, boolean max, long count) {
        tx.memoOrNew(key); // the walk notes the end it found, which the deletions then extend
        List<Entry> popped = byRank(tx, key, rec, 0, Math.min(count, rec.fieldCount()) - 1, max);
        for (Entry e : popped) {
            remove(tx, key, e.member(), e.score());
        }
        tx.putElements(key, rec, Tx.ZSET, rec.fieldCount() - popped.size(), 0, rec.flags());
        return popped;
    }

    // ---------------------------------------------------------------- ranks

    private static RankIndex rankIndexIfBuilt(Tx tx, byte[] key) {
        Memo memo = tx.memo(key);
        return memo == null ? null : memo.rank;
    }

    /** The rank index of a set large enough for one to pay, built now if need be; null for a smaller set. */
    private static RankIndex rankIndex(Tx tx, byte[] key, Rec rec) {
        if (rec.fieldCount() < RankIndex.minSize) {
            return null;
        }
        Memo memo = tx.memoOrNew(key);
        if (memo.rank == null) {
            memo.rank = RankIndex.build(tx, key);
        }
        return memo.rank;
    }

    /**
     * The rank (0 = lowest) of a live member with score {@code score}: from the rank index in a large set, else
     * counted from the end nearer to the member (up to half the set's order records are read).
     */
    static long rank(Tx tx, byte[] key, Rec rec, byte[] member, double score) {
        RankIndex index = rankIndex(tx, key, rec);
        if (index != null) {
            return index.rank(tx, key, orderName(score, member));
        }
        long below = 0;
        long above = 0;
        // count both ways at once, one record at a time, until one walk reaches the member
        try (Walk up = new Walk(tx, key, false); Walk down = new Walk(tx, key, true)) {
            while (true) {
                if (Arrays.equals(up.next().member(), member)) {
                    return below;
                }
                below++;
                if (Arrays.equals(down.next().member(), member)) {
                    return rec.fieldCount() - 1 - above;
                }
                above++;
            }
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
                Collections.reverse(out);
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
            Collections.reverse(out);
        }
        return withStoredScores(tx, key, out);
    }

    /** The entries with the scores of their member records (which keep a skiplist's -0). */
    static List<Entry> withStoredScores(Tx tx, byte[] key, List<Entry> entries) {
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

    // ---------------------------------------------------------------- walks

    /**
     * Walks the members in score order from the lowest ({@code reverse}: the highest), from past what the key's
     * {@link Memo} knows is empty at that end, and tells it what it finds there. It reads an entry only when asked
     * for it, so that it never steps past the last one wanted onto what lies beyond.
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
            Memo memo = tx.memo(key);
            if (reverse) {
                // no record is named [prefix][0x02]: the last one before it is the set's highest
                byte[] end = Tx.concat(Tx.fieldPrefix(key), new byte[] {ORDER + 1});
                it.seekForPrev(memo == null ? end : memo.backFrom(prefix, end));
                if (memo != null && it.isValid() && Tx.startsWith(it.key(), prefix)) {
                    memo.none(prefix, Memo.successor(it.key()), Memo.successor(end));
                }
            } else {
                it.seek(memo == null ? prefix : memo.from(prefix, prefix));
                if (memo != null && it.isValid() && Tx.startsWith(it.key(), prefix)) {
                    memo.none(prefix, prefix, it.key());
                }
            }
        }

        /** Starts from the first member whose score is at least (reverse: at most) {@code score}. */
        Walk from(double score) {
            if (reverse) {
                long n = Doubles.sortable(score);
                if (n == -1L) {
                    it.seekForPrev(Tx.concat(Arrays.copyOf(prefix, prefix.length - 1), new byte[] {ORDER + 1}));
                    return this;
                }
                // the last record before the next score up
                byte[] next = Tx.concat(prefix, new byte[8]);
                n++;
                for (int i = 7; i >= 0; i--) {
                    next[prefix.length + i] = (byte) n;
                    n >>>= 8;
                }
                it.seekForPrev(next);
                if (it.isValid() && Arrays.equals(it.key(), next)) {
                    it.prev();
                }
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
}
