package tandem.store;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import tandem.api.store.BlockingWait;
import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * The pops that take from the first of several keys that holds something, for lists and sorted sets alike: LMPOP
 * and ZMPOP, and the blocking commands BLPOP, BRPOP, BLMPOP, BZPOPMIN, BZPOPMAX and BZMPOP ({@link ListCommands} and
 * {@link ZsetCommands} name them); with their options, their timeout and what a blocking command waits for.
 *
 * <p>The blocking commands as they apply: each serves at once when it can, as its non-blocking form, and otherwise
 * writes nothing and replies nil, which is also what it answers inside MULTI. The pipeline parks a client whose
 * blocking command replied nil outside a transaction and applies the command again when a write touches one of its
 * keys; its timeout runs on the pipeline's clock and is never journaled. Applied again, it is journaled under its
 * woken name ({@code blpop|woken}…, see {@link Commands}), whose handler passes over a key that now holds another
 * type, as Redis' blocked client does, instead of answering WRONGTYPE as a first try must.
 */
final class Pops {

    /** A type the pops take from, with the words of its ends in LMPOP / ZMPOP. */
    enum From {
        /** A list: from the head (LEFT) or the tail (RIGHT); an element is its value. */
        LIST(Tx.LIST, "left", "right") {
            @Override
            List<byte[][]> pop(Tx tx, byte[] key, Rec rec, boolean first, long count) {
                List<byte[][]> out = new ArrayList<>();
                for (byte[] e : Lists.pop(tx, key, rec, first, count)) {
                    out.add(new byte[][] {e});
                }
                tx.eventThenDelIfGone(KeyspaceEvents.LIST, first ? "lpop" : "rpop", key);
                return out;
            }
        },
        /** A sorted set: from the lowest score (MIN) or the highest (MAX); an element is its member and score. */
        ZSET(Tx.ZSET, "min", "max") {
            @Override
            List<byte[][]> pop(Tx tx, byte[] key, Rec rec, boolean first, long count) {
                List<byte[][]> out = new ArrayList<>();
                for (Zsets.Entry e : Zsets.pop(tx, key, rec, !first, count)) {
                    out.add(new byte[][] {e.member(), Doubles.format(e.score())});
                }
                tx.eventThenDelIfGone(KeyspaceEvents.ZSET, first ? "zpopmin" : "zpopmax", key);
                return out;
            }
        };

        private final byte type;
        private final String first;
        private final String last;

        From(byte type, String first, String last) {
            this.type = type;
            this.first = first;
            this.last = last;
        }

        /** Pops up to {@code count} elements from the first end or the last, in pop order, as replies show them. */
        abstract List<byte[][]> pop(Tx tx, byte[] key, Rec rec, boolean first, long count);

        /** Writes the parts of one popped element: a value, or a member and its score (a double in RESP3). */
        void write(Reply r, byte[][] element) {
            r.bulk(element[0]);
            if (element.length > 1) {
                r.doubleValue(element[1]);
            }
        }
    }

    private Pops() {
    }

    /**
     * The collection of type {@code from} at {@code key}, or null; WRONGTYPE for another type, except for a woken
     * blocking command, which passes over it as Redis' blocked client waits through it.
     */
    static Rec source(Tx tx, byte[] key, From from, boolean woken) {
        if (!woken) {
            return tx.typed(key, from.type);
        }
        Rec rec = tx.meta(key);
        return rec != null && rec.type() == from.type ? rec : null;
    }

    /**
     * BLPOP, BRPOP, BZPOPMIN, BZPOPMAX: {@code key [key ...] timeout}; one element from the first key that holds
     * one, as {@code [key, element...]}, or a nil array.
     */
    static void first(Tx tx, byte[][] a, From from, boolean first, boolean woken, Reply r) {
        timeoutMillis(a[a.length - 1]);
        for (int i = 1; i < a.length - 1; i++) {
            Rec rec = source(tx, a[i], from, woken);
            if (rec != null) {
                byte[][] element = from.pop(tx, a[i], rec, first, 1).get(0);
                r.array(1 + element.length);
                r.bulk(a[i]);
                from.write(r, element);
                return;
            }
        }
        r.nullArray();
    }

    /**
     * LMPOP and ZMPOP ({@code blocking}: BLMPOP and BZMPOP, whose timeout comes first):
     * {@code numkeys key [key ...] end [COUNT count]}; the elements from the first key that holds any, as
     * {@code [key, [element, ...]]}, or a nil array.
     */
    static void many(Tx tx, byte[][] a, From from, boolean blocking, boolean woken, Reply r) {
        if (blocking) {
            timeoutMillis(a[1]);
        }
        int numkeysAt = blocking ? 2 : 1;
        long[] o = options(a, numkeysAt, from);
        for (int i = numkeysAt + 1; i <= numkeysAt + o[0]; i++) {
            Rec rec = source(tx, a[i], from, woken);
            if (rec != null) {
                List<byte[][]> popped = from.pop(tx, a[i], rec, o[1] == 1, o[2]);
                r.array(2);
                r.bulk(a[i]);
                r.array(popped.size());
                for (byte[][] element : popped) {
                    if (element.length > 1) {
                        r.array(element.length);
                    }
                    from.write(r, element);
                }
                return;
            }
        }
        r.nullArray();
    }

    /** Checks BLPOP, BRPOP, BZPOPMIN and BZPOPMAX: the timeout, last. */
    static void checkFirst(byte[][] a) {
        timeoutMillis(a[a.length - 1]);
    }

    /** Checks LMPOP and ZMPOP ({@code blocking}: BLMPOP and BZMPOP). */
    static void checkMany(byte[][] a, From from, boolean blocking) {
        if (blocking) {
            timeoutMillis(a[1]);
        }
        options(a, blocking ? 2 : 1, from);
    }

    /**
     * {@code numkeys key... FIRST|LAST [COUNT count]}, with {@code numkeys} at {@code a[numkeysAt]}: returns
     * {numkeys, 1 for the first end or 0 for the last, count (1 when not given)}.
     */
    private static long[] options(byte[][] a, int numkeysAt, From from) {
        long numkeys = Numbers.parseLong(a[numkeysAt], "ERR numkeys should be greater than 0");
        if (numkeys < 1) {
            throw new CommandError("ERR numkeys should be greater than 0");
        }
        long whereAt = numkeysAt + numkeys + 1;
        if (whereAt >= a.length) {
            throw new CommandError(CommandError.SYNTAX);
        }
        byte[] where = a[(int) whereAt];
        if (!Args.is(where, from.first) && !Args.is(where, from.last)) {
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
        return new long[] {numkeys, Args.is(where, from.first) ? 1 : 0, count == -1 ? 1 : count};
    }

    /**
     * {@code getTimeoutFromObjectOrReply} in seconds: a long double, times 1000, truncated to whole milliseconds as
     * C's cast does (an infinity or a product beyond 64 bits becomes LLONG_MIN there: "negative"); 0 blocks for good.
     */
    static long timeoutMillis(byte[] arg) {
        BigDecimal v = Numbers.parseLongDouble(arg, "ERR timeout is not a float or out of range");
        BigDecimal product = v == null ? null : Numbers.round(v.multiply(BigDecimal.valueOf(1000)));
        if (product == null) {
            throw new CommandError("ERR timeout is negative");
        }
        BigInteger ms = product.setScale(0, RoundingMode.DOWN).toBigInteger();
        if (ms.signum() < 0 || ms.bitLength() > 63) {
            throw new CommandError("ERR timeout is negative");
        }
        return ms.longValue();
    }

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
            case "xread", "xreadgroup" -> {
                return StreamCommands.blockingWait(a);
            }
            default -> {
                return null;
            }
        }
    }
}
