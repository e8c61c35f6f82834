package tandem.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Pops.From;
import tandem.store.Tx.Rec;

/**
 * The list commands, with Redis 7.0's argument checks, replies and error texts, over the records {@link Lists}
 * keeps; the multi-key and blocking pops are {@link Pops}'.
 */
final class ListCommands {

    private static final String NO_SUCH_KEY = "ERR no such key";

    private ListCommands() {
    }

    private static Rec list(Tx tx, byte[] key) {
        return Lists.list(tx, key);
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
        Rec after = Lists.push(tx, a[1], rec, head, Arrays.asList(a).subList(2, a.length));
        r.integer(after.fieldCount());
        tx.event(KeyspaceEvents.LIST, head ? "lpush" : "rpush", a[1]);
    }

    static void checkPop(byte[][] a, long nowMs) {
        if (a.length == 3) {
            Numbers.positive(a[2], CommandError.MUST_BE_POSITIVE);
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
        long count = hasCount ? Numbers.positive(a[2], CommandError.MUST_BE_POSITIVE) : 1;
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
        List<byte[]> popped = Lists.pop(tx, a[1], rec, head, count);
        tx.eventThenDelIfGone(KeyspaceEvents.LIST, head ? "lpop" : "rpop", a[1]);
        if (hasCount) {
            Replies.bulks(r, popped);
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
        long[] range = Args.indexRange(start, end, rec.fieldCount());
        if (range == null) {
            r.array(0);
            return;
        }
        Replies.bulks(r, Lists.range(tx, a[1], rec, range[0], range[1]));
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
            r.bulk(Lists.get(tx, a[1], rec, i));
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
        Lists.set(tx, a[1], rec, i, a[3]);
        tx.event(KeyspaceEvents.LIST, "lset", a[1]);
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
        List<byte[]> elements = Lists.all(tx, a[1], rec);
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
        Lists.rewrite(tx, a[1], rec, at, tail);
        tx.event(KeyspaceEvents.LIST, "linsert", a[1]);
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
        List<byte[]> elements = Lists.all(tx, a[1], rec);
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
            Lists.rewrite(tx, a[1], rec, first, tail);
            tx.eventThenDelIfGone(KeyspaceEvents.LIST, "lrem", a[1]);
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
        long[] kept = Args.indexRange(start, end, llen);
        if (kept == null) {
            Lists.trim(tx, a[1], rec, llen, 0);
        } else {
            Lists.trim(tx, a[1], rec, kept[0], llen - kept[1] - 1);
        }
        tx.eventThenDelIfGone(KeyspaceEvents.LIST, "ltrim", a[1]);
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
                count = Numbers.positive(a[++j], "ERR COUNT can't be negative");
            } else if (Args.is(a[j], "maxlen") && more) {
                maxlen = Numbers.positive(a[++j], "ERR MAXLEN can't be negative");
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
        long first = rank;
        long wanted = count;
        Lists.walk(tx, a[1], rec, 0, maxlen == 0 ? llen : maxlen, fromTail, new Lists.Visit() {
            private long matches;

            @Override
            public boolean element(long index, byte[] value) {
                if (Arrays.equals(value, a[2])) {
                    matches++;
                    if (matches >= first) {
                        found.add(fromTail ? llen - index - 1 : index);
                        return wanted != -1 && (wanted == 0 || matches - first + 1 < wanted);
                    }
                }
                return true;
            }
        });
        if (count != -1) {
            r.array(found.size());
            found.forEach(r::integer);
        } else if (found.isEmpty()) {
            r.nullBulk();
        } else {
            r.integer(found.get(0));
        }
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

    private static void move(Tx tx, byte[] src, byte[] dst, boolean fromHead, boolean toHead, boolean woken,
            Reply r) {
        Rec from = Pops.source(tx, src, From.LIST, woken);
        if (from == null) {
            r.nullBulk();
            return;
        }
        Rec to = list(tx, dst);
        byte[] value = Lists.pop(tx, src, from, fromHead, 1).get(0);
        // the same list: push onto what the pop left (the record it rewrote, or none when it emptied it)
        boolean same = Arrays.equals(src, dst);
        Lists.push(tx, dst, same ? tx.meta(dst) : to, toHead, List.of(value));
        if (same) {
            tx.unraise(KeyspaceEvents.NEW, dst); // Redis pushes onto the list it popped: it never left
        }
        // lmoveGenericCommand: the push's event, then the pop's
        tx.event(KeyspaceEvents.LIST, toHead ? "lpush" : "rpush", dst);
        tx.eventThenDelIfGone(KeyspaceEvents.LIST, fromHead ? "lpop" : "rpop", src);
        r.bulk(value);
    }

    static void checkLmpop(byte[][] a, long nowMs) {
        Pops.checkMany(a, From.LIST, false);
    }

    /** LMPOP: pops from the first non-empty list of the keys; replies [key, [elements]], or nil when all are empty. */
    static void lmpop(Tx tx, byte[][] a, Reply r) {
        Pops.many(tx, a, From.LIST, false, false, r);
    }

    // ---------------------------------------------------------------- blocking forms (see Pops)

    static void checkBlockingPop(byte[][] a, long nowMs) {
        Pops.checkFirst(a);
    }

    static void blpop(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.LIST, true, false, r);
    }

    static void brpop(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.LIST, false, false, r);
    }

    static void blpopWoken(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.LIST, true, true, r);
    }

    static void brpopWoken(Tx tx, byte[][] a, Reply r) {
        Pops.first(tx, a, From.LIST, false, true, r);
    }

    static void checkBlmove(byte[][] a, long nowMs) {
        side(a[3]);
        side(a[4]);
        Pops.timeoutMillis(a[5]);
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
        Pops.timeoutMillis(a[3]);
    }

    static void brpoplpush(Tx tx, byte[][] a, Reply r) {
        checkBrpoplpush(a, tx.nowMs);
        move(tx, a[1], a[2], false, true, false, r);
    }

    static void brpoplpushWoken(Tx tx, byte[][] a, Reply r) {
        checkBrpoplpush(a, tx.nowMs);
        move(tx, a[1], a[2], false, true, true, r);
    }

    static void checkBlmpop(byte[][] a, long nowMs) {
        Pops.checkMany(a, From.LIST, true);
    }

    /** BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]. */
    static void blmpop(Tx tx, byte[][] a, Reply r) {
        Pops.many(tx, a, From.LIST, true, false, r);
    }

    static void blmpopWoken(Tx tx, byte[][] a, Reply r) {
        Pops.many(tx, a, From.LIST, true, true, r);
    }
}
