package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.rocksdb.RocksIterator;

import tandem.api.store.BlockingWait;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * The list commands, with Redis 7.0's argument checks, replies and error texts.
 *
 * <h2>Layout</h2>
 * Each element is a record of its own in the {@code fields} family, named by its position:
 * <pre>
 * [key_len u32 BE][key][position i64 BE, sign bit flipped]  -&gt; element
 * </pre>
 * The key record holds the element count and the position of the first element (the head); the elements occupy
 * the positions {@code head .. head + count - 1} without gaps. Flipping the sign bit makes byte order position order
 * for negative positions too, so LPUSH takes {@code head - 1} and RPUSH {@code head + count}: a push or a pop at
 * either end writes one element record and the key record, whatever the length, and LINDEX, LSET and a page of LRANGE
 * read only what they return. LINSERT and LREM move the elements after the change (Redis' are O(n) too); LTRIM deletes
 * what it trims. Deleting the last element deletes the key.
 */
final class ListCommands {

    private static final String NO_SUCH_KEY = "ERR no such key";

    private ListCommands() {
    }

    // ---------------------------------------------------------------- storage

    /** The record name of position {@code pos}: big-endian with the sign bit flipped, so byte order is position order. */
    static byte[] name(long pos) {
        long u = pos ^ Long.MIN_VALUE;
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) u;
            u >>>= 8;
        }
        return b;
    }

    /** The element at index {@code i} (0 = head) of a list, which must exist. */
    private static byte[] get(Tx tx, byte[] key, Rec rec, long i) {
        byte[] v = tx.record(Tx.fieldPrefix(key), name(rec.head() + i));
        if (v == null) {
            throw new IllegalStateException("list " + Args.text(key) + " lacks its element " + i);
        }
        return v;
    }

    /** The elements at indexes {@code from..to} (inclusive, within the list), head to tail. */
    static List<byte[]> range(Tx tx, byte[] key, Rec rec, long from, long to) {
        if (from == to) {
            List<byte[]> one = new ArrayList<>(1);
            one.add(get(tx, key, rec, from)); // a point read: cheaper than an iterator (every LPOP/RPOP of one)
            return one;
        }
        byte[] prefix = Tx.fieldPrefix(key);
        List<byte[]> out = new ArrayList<>((int) Math.min(to - from + 1, 1024));
        try (RocksIterator it = tx.fieldIterator()) {
            it.seek(Tx.concat(prefix, name(rec.head() + from)));
            for (long i = from; i <= to; i++) {
                if (i > from) {
                    // not past the last: beyond the tail lie the deletions of earlier pops, each a step to skip
                    it.next();
                }
                if (!it.isValid() || !Tx.startsWith(it.key(), prefix)) {
                    throw new IllegalStateException("list " + Args.text(key) + " lacks its element " + i);
                }
                out.add(it.value());
            }
        }
        return out;
    }

    /** Every element, head to tail. */
    static List<byte[]> all(Tx tx, byte[] key, Rec rec) {
        return rec == null ? List.of() : range(tx, key, rec, 0, rec.fieldCount() - 1);
    }

    /** Pushes {@code elements} one by one at the head or the tail; returns the list's new record. */
    static Rec push(Tx tx, byte[] key, Rec rec, boolean head, List<byte[]> elements) {
        byte[] prefix = Tx.fieldPrefix(key);
        long first = rec == null ? 0 : rec.head();
        long count = rec == null ? 0 : rec.fieldCount();
        for (byte[] e : elements) {
            if (head) {
                tx.putRecord(prefix, name(--first), e);
            } else {
                tx.putRecord(prefix, name(first + count), e);
            }
            count++;
        }
        tx.putElements(key, rec, Tx.LIST, count, first, 0);
        return tx.meta(key);
    }

    /** Pops up to {@code n} elements from the head or the tail, in pop order; deletes the key when it empties. */
    static List<byte[]> pop(Tx tx, byte[] key, Rec rec, boolean head, long n) {
        long count = rec.fieldCount();
        long k = Math.min(n, count);
        List<byte[]> out = head ? range(tx, key, rec, 0, k - 1) : range(tx, key, rec, count - k, count - 1);
        if (!head) {
            java.util.Collections.reverse(out);
        }
        byte[] prefix = Tx.fieldPrefix(key);
        for (long i = 0; i < k; i++) {
            tx.deleteRecord(prefix, name(head ? rec.head() + i : rec.head() + count - 1 - i));
        }
        tx.putElements(key, rec, Tx.LIST, count - k, head ? rec.head() + k : rec.head(), 0);
        return out;
    }

    /**
     * Replaces the elements from index {@code from} to the end with {@code tail}: what LINSERT and LREM move.
     * Deletes the key when nothing is left.
     */
    private static void rewrite(Tx tx, byte[] key, Rec rec, long from, List<byte[]> tail) {
        byte[] prefix = Tx.fieldPrefix(key);
        long count = from + tail.size();
        for (int i = 0; i < tail.size(); i++) {
            tx.putRecord(prefix, name(rec.head() + from + i), tail.get(i));
        }
        for (long i = count; i < rec.fieldCount(); i++) {
            tx.deleteRecord(prefix, name(rec.head() + i));
        }
        tx.putElements(key, rec, Tx.LIST, count, rec.head(), 0);
    }

    private static Rec list(Tx tx, byte[] key) {
        return tx.typed(key, Tx.LIST);
    }

    // ---------------------------------------------------------------- push and pop

    static void lpush(Tx tx, byte[][] a, Reply r) {
        pushGeneric(tx, a, true, false, r);
    }

    static void rpush(Tx tx, byte[][] a, Reply r) {
        pushGeneric(tx, a, false, false, r);
    }

    static void lpushx(Tx tx, byte[][] a, Reply r) {
        pushGeneric(tx, a, true, true, r);
    }

    static void rpushx(Tx tx, byte[][] a, Reply r) {
        pushGeneric(tx, a, false, true, r);
    }

    private static void pushGeneric(Tx tx, byte[][] a, boolean head, boolean onlyExisting, Reply r) {
        Rec rec = list(tx, a[1]);
        if (rec == null && onlyExisting) {
            r.integer(0);
            return;
        }
        Rec after = push(tx, a[1], rec, head, Arrays.asList(a).subList(2, a.length));
        r.integer(after.fieldCount());
    }

    static void checkPop(byte[][] a, long nowMs) {
        if (a.length == 3) {
            positive(a[2], CommandError.MUST_BE_POSITIVE);
        }
    }

    static void lpop(Tx tx, byte[][] a, Reply r) {
        popGeneric(tx, a, true, r);
    }

    static void rpop(Tx tx, byte[][] a, Reply r) {
        popGeneric(tx, a, false, r);
    }

    /** LPOP / RPOP key [count]: without a count one element or nil; with one an array, nil for a missing key. */
    private static void popGeneric(Tx tx, byte[][] a, boolean head, Reply r) {
        if (a.length > 3) {
            throw CommandError.arity(Args.lower(a[0]));
        }
        boolean hasCount = a.length == 3;
        long count = hasCount ? positive(a[2], CommandError.MUST_BE_POSITIVE) : 1;
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            if (hasCount) {
                r.nullArray();
            } else {
                r.nullBulk();
            }
            return;
        }
        if (hasCount && count == 0) {
            r.array(0);
            return;
        }
        List<byte[]> popped = pop(tx, a[1], rec, head, count);
        if (hasCount) {
            SetCommands.bulks(r, popped);
        } else {
            r.bulk(popped.get(0));
        }
    }

    // ---------------------------------------------------------------- reads by index

    static void llen(Tx tx, byte[][] a, Reply r) {
        Rec rec = list(tx, a[1]);
        r.integer(rec == null ? 0 : rec.fieldCount());
    }

    static void lrange(Tx tx, byte[][] a, Reply r) {
        long start = Numbers.parseLong(a[2]);
        long end = Numbers.parseLong(a[3]);
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            r.array(0);
            return;
        }
        long llen = rec.fieldCount();
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
            r.array(0);
            return;
        }
        if (end >= llen) {
            end = llen - 1;
        }
        SetCommands.bulks(r, range(tx, a[1], rec, start, end));
    }

    static void lindex(Tx tx, byte[][] a, Reply r) {
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            r.nullBulk();
            return;
        }
        long index = Numbers.parseLong(a[2]);
        long i = index < 0 ? rec.fieldCount() + index : index;
        if (i < 0 || i >= rec.fieldCount()) {
            r.nullBulk();
        } else {
            r.bulk(get(tx, a[1], rec, i));
        }
    }

    static void checkLset(byte[][] a, long nowMs) {
        Numbers.parseLong(a[2]);
    }

    static void lset(Tx tx, byte[][] a, Reply r) {
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            throw new CommandError(NO_SUCH_KEY);
        }
        long index = Numbers.parseLong(a[2]);
        long i = index < 0 ? rec.fieldCount() + index : index;
        if (i < 0 || i >= rec.fieldCount()) {
            throw new CommandError("ERR index out of range");
        }
        tx.putRecord(Tx.fieldPrefix(a[1]), name(rec.head() + i), a[3]);
        r.simple("OK");
    }

    // ---------------------------------------------------------------- edits in the middle

    static void checkLinsert(byte[][] a, long nowMs) {
        if (!Args.is(a[2], "before") && !Args.is(a[2], "after")) {
            throw new CommandError(CommandError.SYNTAX);
        }
    }

    static void linsert(Tx tx, byte[][] a, Reply r) {
        checkLinsert(a, tx.nowMs);
        boolean after = Args.is(a[2], "after");
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        List<byte[]> elements = all(tx, a[1], rec);
        int pivot = -1;
        for (int i = 0; i < elements.size(); i++) {
            if (Arrays.equals(elements.get(i), a[3])) {
                pivot = i;
                break;
            }
        }
        if (pivot < 0) {
            r.integer(-1);
            return;
        }
        int at = after ? pivot + 1 : pivot;
        List<byte[]> tail = new ArrayList<>(elements.size() - at + 1);
        tail.add(a[4]);
        tail.addAll(elements.subList(at, elements.size()));
        rewrite(tx, a[1], rec, at, tail);
        r.integer(rec.fieldCount() + 1);
    }

    static void checkLrem(byte[][] a, long nowMs) {
        Numbers.parseLong(a[2]);
    }

    /** LREM key count element: count > 0 from the head, < 0 from the tail, 0 every match. */
    static void lrem(Tx tx, byte[][] a, Reply r) {
        long toRemove = Numbers.parseLong(a[2]);
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        List<byte[]> elements = all(tx, a[1], rec);
        int n = elements.size();
        boolean[] removed = new boolean[n];
        long limit = toRemove == 0 ? Long.MAX_VALUE : toRemove == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(toRemove);
        long count = 0;
        int first = n;
        for (int k = 0; k < n && count < limit; k++) {
            int i = toRemove < 0 ? n - 1 - k : k;
            if (Arrays.equals(elements.get(i), a[3])) {
                removed[i] = true;
                count++;
                first = Math.min(first, i);
            }
        }
        if (count > 0) {
            List<byte[]> tail = new ArrayList<>();
            for (int i = first; i < n; i++) {
                if (!removed[i]) {
                    tail.add(elements.get(i));
                }
            }
            rewrite(tx, a[1], rec, first, tail);
        }
        r.integer(count);
    }

    static void checkLtrim(byte[][] a, long nowMs) {
        Numbers.parseLong(a[2]);
        Numbers.parseLong(a[3]);
    }

    static void ltrim(Tx tx, byte[][] a, Reply r) {
        long start = Numbers.parseLong(a[2]);
        long end = Numbers.parseLong(a[3]);
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            r.simple("OK");
            return;
        }
        long llen = rec.fieldCount();
        if (start < 0) {
            start += llen;
        }
        if (end < 0) {
            end += llen;
        }
        if (start < 0) {
            start = 0;
        }
        long ltrim;
        long rtrim;
        if (start > end || start >= llen) {
            ltrim = llen;
            rtrim = 0;
        } else {
            if (end >= llen) {
                end = llen - 1;
            }
            ltrim = start;
            rtrim = llen - end - 1;
        }
        byte[] prefix = Tx.fieldPrefix(a[1]);
        for (long i = 0; i < ltrim; i++) {
            tx.deleteRecord(prefix, name(rec.head() + i));
        }
        for (long i = 0; i < rtrim; i++) {
            tx.deleteRecord(prefix, name(rec.head() + llen - 1 - i));
        }
        tx.putElements(a[1], rec, Tx.LIST, llen - ltrim - rtrim, rec.head() + ltrim, 0);
        r.simple("OK");
    }

    // ---------------------------------------------------------------- LPOS

    /** LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]. */
    static void lpos(Tx tx, byte[][] a, Reply r) {
        long rank = 1;
        long count = -1;
        long maxlen = 0;
        for (int j = 3; j < a.length; j++) {
            boolean more = j + 1 < a.length;
            if (Args.is(a[j], "rank") && more) {
                rank = Numbers.parseLong(a[++j]);
                if (rank == 0) {
                    throw new CommandError("ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                            + "second ... or use negative to start from the end of the list");
                }
            } else if (Args.is(a[j], "count") && more) {
                count = positive(a[++j], "ERR COUNT can't be negative");
            } else if (Args.is(a[j], "maxlen") && more) {
                maxlen = positive(a[++j], "ERR MAXLEN can't be negative");
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        boolean fromTail = rank < 0;
        // as Redis' C: -LONG_MIN stays LONG_MIN, which every match count reaches (so the first match from the tail)
        rank = rank > 0 ? rank : -rank;
        Rec rec = list(tx, a[1]);
        if (rec == null) {
            if (count != -1) {
                r.array(0);
            } else {
                r.nullBulk();
            }
            return;
        }
        long llen = rec.fieldCount();
        List<Long> found = new ArrayList<>();
        long matches = 0;
        byte[] prefix = Tx.fieldPrefix(a[1]);
        try (RocksIterator it = tx.fieldIterator()) {
            if (fromTail) {
                it.seekForPrev(Tx.concat(prefix, name(rec.head() + llen - 1)));
            } else {
                it.seek(Tx.concat(prefix, name(rec.head())));
            }
            for (long index = 0; index < llen && (maxlen == 0 || index < maxlen); index++) {
                if (Arrays.equals(it.value(), a[2])) {
                    matches++;
                    if (matches >= rank) {
                        found.add(fromTail ? llen - index - 1 : index);
                        if (count == -1 || count != 0 && matches - rank + 1 >= count) {
                            break;
                        }
                    }
                }
                if (index + 1 < llen) { // never past the ends, where earlier pops' deletions lie
                    if (fromTail) {
                        it.prev();
                    } else {
                        it.next();
                    }
                }
            }
        }
        if (count != -1) {
            r.array(found.size());
            found.forEach(r::integer);
        } else if (found.isEmpty()) {
            r.nullBulk();
        } else {
            r.integer(found.get(0));
        }
    }

    /** {@code getPositiveLongFromObjectOrReply} with a message: the message for a bad number and a negative one. */
    static long positive(byte[] arg, String error) {
        long n = Numbers.parseLong(arg, error);
        if (n < 0) {
            throw new CommandError(error);
        }
        return n;
    }

    // ---------------------------------------------------------------- moves

    /** LEFT or RIGHT: true for LEFT (the head); a syntax error otherwise. */
    static boolean side(byte[] arg) {
        if (Args.is(arg, "left")) {
            return true;
        }
        if (Args.is(arg, "right")) {
            return false;
        }
        throw new CommandError(CommandError.SYNTAX);
    }

    static void checkLmove(byte[][] a, long nowMs) {
        side(a[3]);
        side(a[4]);
    }

    static void lmove(Tx tx, byte[][] a, Reply r) {
        move(tx, a[1], a[2], side(a[3]), side(a[4]), false, r);
    }

    static void rpoplpush(Tx tx, byte[][] a, Reply r) {
        move(tx, a[1], a[2], false, true, false, r);
    }

    /**
     * The list at {@code key}, or null; for a woken blocking command (see below) also null when the key holds
     * another type, which Redis' blocked client waits through, where a first try answers WRONGTYPE.
     */
    private static Rec source(Tx tx, byte[] key, boolean woken) {
        if (!woken) {
            return list(tx, key);
        }
        Rec rec = tx.meta(key);
        return rec != null && rec.isList() ? rec : null;
    }

    private static void move(Tx tx, byte[] src, byte[] dst, boolean fromHead, boolean toHead, boolean woken,
            Reply r) {
        Rec from = source(tx, src, woken);
        if (from == null) {
            r.nullBulk();
            return;
        }
        Rec to = list(tx, dst);
        byte[] value = pop(tx, src, from, fromHead, 1).get(0);
        // the same list: push onto what the pop left (the record it rewrote, or none when it emptied it)
        push(tx, dst, Arrays.equals(src, dst) ? tx.meta(dst) : to, toHead, List.of(value));
        r.bulk(value);
    }

    static void checkLmpop(byte[][] a, long nowMs) {
        mpopOptions(a, 1);
    }

    /**
     * The options of LMPOP and ZMPOP (and their blocking forms): {@code numkeys key... ONE|OTHER [COUNT count]},
     * with {@code numkeys} at {@code a[numkeysAt]}; returns {numkeys, 1 for {@code one} or 0 for {@code other},
     * count (1 when not given)}.
     */
    static long[] mpopOptions(byte[][] a, int numkeysAt, String one, String other) {
        long numkeys = Numbers.parseLong(a[numkeysAt], "ERR numkeys should be greater than 0");
        if (numkeys < 1) {
            throw new CommandError("ERR numkeys should be greater than 0");
        }
        long whereAt = numkeysAt + numkeys + 1;
        if (whereAt >= a.length) {
            throw new CommandError(CommandError.SYNTAX);
        }
        byte[] where = a[(int) whereAt];
        if (!Args.is(where, one) && !Args.is(where, other)) {
            throw new CommandError(CommandError.SYNTAX);
        }
        long count = -1;
        for (int j = (int) whereAt + 1; j < a.length; j++) {
            if (count == -1 && Args.is(a[j], "count") && j + 1 < a.length) {
                count = Numbers.parseLong(a[++j], "ERR count should be greater than 0");
                if (count < 1) {
                    throw new CommandError("ERR count should be greater than 0");
                }
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new long[] {numkeys, Args.is(where, one) ? 1 : 0, count == -1 ? 1 : count};
    }

    private static long[] mpopOptions(byte[][] a, int numkeysAt) {
        return mpopOptions(a, numkeysAt, "left", "right");
    }

    /** LMPOP: pops from the first non-empty list of the keys; replies [key, [elements]], or nil when all are empty. */
    static void lmpop(Tx tx, byte[][] a, Reply r) {
        mpop(tx, a, mpopOptions(a, 1), 2, false, r);
    }

    /** Pops as {@code o} says from the first non-empty list of the keys from {@code a[firstKey]}. */
    private static void mpop(Tx tx, byte[][] a, long[] o, int firstKey, boolean woken, Reply r) {
        for (int i = firstKey; i < firstKey + o[0]; i++) {
            Rec rec = source(tx, a[i], woken);
            if (rec != null) {
                List<byte[]> popped = pop(tx, a[i], rec, o[1] == 1, o[2]);
                r.array(2);
                r.bulk(a[i]);
                SetCommands.bulks(r, popped);
                return;
            }
        }
        r.nullArray();
    }

    // ---------------------------------------------------------------- blocking forms

    /**
     * {@code getTimeoutFromObjectOrReply} in seconds: a long double, times 1000, truncated to whole milliseconds as
     * C's cast does (an infinity or a product beyond 64 bits becomes LLONG_MIN there: "negative"); 0 blocks for good.
     */
    static long timeoutMillis(byte[] arg) {
        java.math.BigDecimal v = Numbers.parseLongDouble(arg, "ERR timeout is not a float or out of range");
        java.math.BigDecimal product = v == null ? null : Numbers.round(v.multiply(java.math.BigDecimal.valueOf(1000)));
        if (product == null) {
            throw new CommandError("ERR timeout is negative");
        }
        java.math.BigInteger ms = product.setScale(0, java.math.RoundingMode.DOWN).toBigInteger();
        if (ms.signum() < 0 || ms.bitLength() > 63) {
            throw new CommandError("ERR timeout is negative");
        }
        return ms.longValue();
    }

    /*
     * The blocking commands as they apply: each serves at once when it can, as its non-blocking form, and otherwise
     * writes nothing and replies nil, which is also what it answers inside MULTI. The pipeline parks a client whose
     * blocking command replied nil outside a transaction and applies the command again when a write touches one of
     * its keys; its timeout runs on the pipeline's clock and is never journaled. Applied again, it is journaled
     * under its woken name ({@code blpop|woken}…, see Commands), whose handler passes over a key that now holds
     * another type, as Redis' blocked client does, instead of answering WRONGTYPE as a first try must.
     */

    /**
     * What a blocking command (list or sorted set) that its check accepted waits for: its keys (a BLMOVE's and a
     * BRPOPLPUSH's source alone) and its timeout as {@link #timeoutMillis} reads it; null for any other command.
     */
    static BlockingWait blockingWait(byte[][] a) {
        List<byte[]> keys = new ArrayList<>();
        switch (Args.lower(a[0])) {
            case "blpop", "brpop", "bzpopmin", "bzpopmax" -> {
                keys.addAll(Arrays.asList(a).subList(1, a.length - 1));
                return new BlockingWait(keys, timeoutMillis(a[a.length - 1]));
            }
            case "blmove", "brpoplpush" -> {
                keys.add(a[1]);
                return new BlockingWait(keys, timeoutMillis(a[a.length - 1]));
            }
            case "blmpop", "bzmpop" -> {
                long numkeys = Numbers.parseLong(a[2]);
                keys.addAll(Arrays.asList(a).subList(3, (int) (3 + numkeys)));
                return new BlockingWait(keys, timeoutMillis(a[1]));
            }
            default -> {
                return null;
            }
        }
    }

    static void checkBlockingPop(byte[][] a, long nowMs) {
        timeoutMillis(a[a.length - 1]);
    }

    static void blpop(Tx tx, byte[][] a, Reply r) {
        blockingPop(tx, a, true, false, r);
    }

    static void brpop(Tx tx, byte[][] a, Reply r) {
        blockingPop(tx, a, false, false, r);
    }

    static void blpopWoken(Tx tx, byte[][] a, Reply r) {
        blockingPop(tx, a, true, true, r);
    }

    static void brpopWoken(Tx tx, byte[][] a, Reply r) {
        blockingPop(tx, a, false, true, r);
    }

    /** BLPOP / BRPOP key [key ...] timeout: [key, element] from the first non-empty list. */
    private static void blockingPop(Tx tx, byte[][] a, boolean head, boolean woken, Reply r) {
        timeoutMillis(a[a.length - 1]);
        for (int i = 1; i < a.length - 1; i++) {
            Rec rec = source(tx, a[i], woken);
            if (rec != null) {
                byte[] v = pop(tx, a[i], rec, head, 1).get(0);
                r.array(2);
                r.bulk(a[i]);
                r.bulk(v);
                return;
            }
        }
        r.nullArray();
    }

    static void checkBlmove(byte[][] a, long nowMs) {
        side(a[3]);
        side(a[4]);
        timeoutMillis(a[5]);
    }

    static void blmove(Tx tx, byte[][] a, Reply r) {
        checkBlmove(a, tx.nowMs);
        move(tx, a[1], a[2], side(a[3]), side(a[4]), false, r);
    }

    static void blmoveWoken(Tx tx, byte[][] a, Reply r) {
        checkBlmove(a, tx.nowMs);
        move(tx, a[1], a[2], side(a[3]), side(a[4]), true, r);
    }

    static void checkBrpoplpush(byte[][] a, long nowMs) {
        timeoutMillis(a[3]);
    }

    static void brpoplpush(Tx tx, byte[][] a, Reply r) {
        timeoutMillis(a[3]);
        move(tx, a[1], a[2], false, true, false, r);
    }

    static void brpoplpushWoken(Tx tx, byte[][] a, Reply r) {
        timeoutMillis(a[3]);
        move(tx, a[1], a[2], false, true, true, r);
    }

    static void checkBlmpop(byte[][] a, long nowMs) {
        timeoutMillis(a[1]);
        mpopOptions(a, 2);
    }

    /** BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]. */
    static void blmpop(Tx tx, byte[][] a, Reply r) {
        timeoutMillis(a[1]);
        mpop(tx, a, mpopOptions(a, 2), 3, false, r);
    }

    static void blmpopWoken(Tx tx, byte[][] a, Reply r) {
        timeoutMillis(a[1]);
        mpop(tx, a, mpopOptions(a, 2), 3, true, r);
    }
}
