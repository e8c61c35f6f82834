package tandem.store;

import static tandem.store.Tx.NO_EXPIRY;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * The hash commands, with Redis 7.0's argument checks, replies and error texts. Fields are returned in field byte
 * order (Redis returns them in insertion or hash order: clients must not rely on either). Deleting the last field
 * of a hash deletes the key.
 */
final class HashCommands {

    /**
     * Redis' default {@code hash-max-listpack-entries}: a hash this small is scanned in one HSCAN call, cursor 0; a
     * larger one is a hashtable in Redis. A constant: CONFIG SET does not change it in Tandem.
     */
    static final int SMALL_HASH = 128;
    /** Redis' default {@code hash-max-listpack-value}: a longer field or value makes the hash a hashtable. */
    static final int LISTPACK_VALUE = 64;

    private HashCommands() {
    }

    static void checkHset(byte[][] a, long nowMs) {
        if (a.length % 2 == 1) {
            throw CommandError.arity("hset");
        }
    }

    static void checkHmset(byte[][] a, long nowMs) {
        if (a.length % 2 == 1) {
            throw CommandError.arity("hmset");
        }
    }

    static void checkHincrby(byte[][] a, long nowMs) {
        Numbers.parseLong(a[3]);
    }

    static void checkHincrbyfloat(byte[][] a, long nowMs) {
        floatIncrement(a[3]);
    }

    /** HINCRBYFLOAT's increment: a float, neither NaN nor infinite. */
    private static BigDecimal floatIncrement(byte[] arg) {
        BigDecimal by = Numbers.parseLongDouble(arg, CommandError.NOT_FLOAT);
        if (by == null) {
            throw new CommandError("ERR value is NaN or Infinity");
        }
        return by;
    }

    /**
     * The encoding flags of a hash that a write leaves with {@code count} fields, having given it {@code written}
     * (fields and values): Redis converts a listpack to a hashtable once it has more than {@value #SMALL_HASH} fields
     * or is given a field or value longer than {@value #LISTPACK_VALUE} bytes, and never converts it back.
     */
    private static int encoding(Rec old, long count, byte[]... written) {
        boolean table = old != null && old.has(Tx.ENC_RAW) || count > SMALL_HASH;
        for (byte[] w : written) {
            table |= w.length > LISTPACK_VALUE;
        }
        return table ? Tx.ENC_RAW : 0;
    }

    private static void putHash(Tx tx, byte[] key, Rec old, long count, byte[]... written) {
        tx.putHash(key, old, count, old == null ? NO_EXPIRY : old.expiryMs(), encoding(old, count, written));
    }

    static void hset(Tx tx, byte[][] a, Reply r) {
        checkHset(a, tx.nowMs);
        r.integer(put(tx, a));
    }

    /** HSET's effect with HMSET's reply. */
    static void hmset(Tx tx, byte[][] a, Reply r) {
        checkHmset(a, tx.nowMs);
        put(tx, a);
        r.simple("OK");
    }

    /** @return the fields added */
    private static long put(Tx tx, byte[][] a) {
        Rec old = tx.hash(a[1]);
        long count = old == null ? 0 : old.fieldCount();
        long added = 0;
        for (int i = 2; i < a.length; i += 2) {
            if (tx.field(a[1], a[i]) == null) {
                added++;
            }
            tx.putField(a[1], a[i], a[i + 1]);
        }
        // hashTypeTryConversion looks at every argument, those of fields that existed too
        putHash(tx, a[1], old, count + added, Arrays.copyOfRange(a, 2, a.length));
        tx.event(KeyspaceEvents.HASH, "hset", a[1]);
        return added;
    }

    static void hsetnx(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.hash(a[1]);
        if (old != null && tx.field(a[1], a[2]) != null) {
            r.integer(0);
            return;
        }
        tx.putField(a[1], a[2], a[3]);
        putHash(tx, a[1], old, (old == null ? 0 : old.fieldCount()) + 1, a[2], a[3]);
        tx.event(KeyspaceEvents.HASH, "hset", a[1]);
        r.integer(1);
    }

    static void hget(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.hash(a[1]);
        Replies.bulkOrNil(r, rec == null ? null : tx.field(a[1], a[2]));
    }

    static void hmget(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.hash(a[1]);
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            Replies.bulkOrNil(r, rec == null ? null : tx.field(a[1], a[i]));
        }
    }

    static void hdel(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.hash(a[1]);
        if (old == null) {
            r.integer(0);
            return;
        }
        long removed = 0;
        for (int i = 2; i < a.length; i++) {
            if (tx.field(a[1], a[i]) != null) {
                tx.deleteField(a[1], a[i]);
                removed++;
            }
        }
        if (removed > 0) {
            tx.putHash(a[1], old, old.fieldCount() - removed);
            tx.eventThenDelIfGone(KeyspaceEvents.HASH, "hdel", a[1]);
        }
        r.integer(removed);
    }

    static void hgetall(Tx tx, byte[][] a, Reply r) {
        List<byte[][]> fields = all(tx, a[1]);
        r.map(fields.size());
        for (byte[][] pair : fields) {
            r.bulk(pair[0]);
            r.bulk(pair[1]);
        }
    }

    /** HRANDFIELD key [count [WITHVALUES]]: drawn from {@link Choice}, as ZRANDMEMBER. */
    static void hrandfield(Tx tx, byte[][] a, Reply r) {
        Choice.Draw draw = Choice.Draw.of(a, "withvalues");
        Rec rec = tx.hash(a[1]);
        if (rec == null) {
            Choice.nothing(r, a.length >= 3);
            return;
        }
        Choice random = Choice.of(tx, a);
        byte[] prefix = Tx.fieldPrefix(a[1]);
        if (a.length == 2) {
            r.bulk(random.one(tx, a[1], prefix, rec.fieldCount()));
            return;
        }
        List<byte[]> fields = random.some(tx, prefix, rec.fieldCount(), draw.count());
        boolean nested = draw.with() && r.protocol() == 3; // [field, value] pairs, as Redis 7.0 sends them
        r.array(fields.size() * (draw.with() && !nested ? 2 : 1));
        for (byte[] f : fields) {
            if (nested) {
                r.array(2);
            }
            r.bulk(f);
            if (draw.with()) {
                r.bulk(tx.field(a[1], f));
            }
        }
    }

    static void hkeys(Tx tx, byte[][] a, Reply r) {
        List<byte[][]> fields = all(tx, a[1]);
        r.array(fields.size());
        fields.forEach(pair -> r.bulk(pair[0]));
    }

    static void hvals(Tx tx, byte[][] a, Reply r) {
        List<byte[][]> fields = all(tx, a[1]);
        r.array(fields.size());
        fields.forEach(pair -> r.bulk(pair[1]));
    }

    private static List<byte[][]> all(Tx tx, byte[] key) {
        Rec rec = tx.hash(key);
        return rec == null ? List.of() : tx.fields(key);
    }

    static void hlen(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.hash(a[1]);
        r.integer(rec == null ? 0 : rec.fieldCount());
    }

    static void hexists(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.hash(a[1]);
        r.integer(rec != null && tx.field(a[1], a[2]) != null ? 1 : 0);
    }

    static void hstrlen(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.hash(a[1]);
        byte[] v = rec == null ? null : tx.field(a[1], a[2]);
        r.integer(v == null ? 0 : v.length);
    }

    static void hincrby(Tx tx, byte[][] a, Reply r) {
        long by = Numbers.parseLong(a[3]);
        Rec old = tx.hash(a[1]);
        byte[] current = old == null ? null : tx.field(a[1], a[2]);
        long value = current == null ? 0 : Numbers.parseLong(current, "ERR hash value is not an integer");
        if ((by < 0 && value < 0 && by < Long.MIN_VALUE - value)
                || (by > 0 && value > 0 && by > Long.MAX_VALUE - value)) {
            throw new CommandError(CommandError.OVERFLOW);
        }
        long result = value + by;
        byte[] text = Numbers.bytes(result);
        tx.putField(a[1], a[2], text);
        putHash(tx, a[1], old, (old == null ? 0 : old.fieldCount()) + (current == null ? 1 : 0), a[2], text);
        tx.event(KeyspaceEvents.HASH, "hincrby", a[1]);
        r.integer(result);
    }

    static void hincrbyfloat(Tx tx, byte[][] a, Reply r) {
        BigDecimal by = floatIncrement(a[3]);
        Rec old = tx.hash(a[1]);
        byte[] current = old == null ? null : tx.field(a[1], a[2]);
        BigDecimal value = current == null ? BigDecimal.ZERO
                : Numbers.parseLongDouble(current, "ERR hash value is not a float");
        BigDecimal sum = Numbers.add(value, by);
        if (sum == null) {
            throw new CommandError(CommandError.NAN_OR_INFINITY);
        }
        byte[] text = Numbers.formatLongDouble(sum);
        tx.putField(a[1], a[2], text);
        putHash(tx, a[1], old, (old == null ? 0 : old.fieldCount()) + (current == null ? 1 : 0), a[2], text);
        tx.event(KeyspaceEvents.HASH, "hincrbyfloat", a[1]);
        r.bulk(text);
    }

    /**
     * HSCAN: a hash of at most {@value #SMALL_HASH} fields comes whole in one reply with cursor 0, as Redis does for
     * a listpack-encoded hash; a larger one is iterated COUNT fields at a time in field byte order, with cursors as
     * SCAN's.
     */
    static void hscan(Tx tx, byte[][] a, Reply r) {
        long cursor = Args.cursor(a[2]);
        Rec rec = tx.hash(a[1]);
        KeyCommands.scanElements(tx, a, cursor, rec, Tx.fieldPrefix(a[1]),
                rec != null && rec.fieldCount() <= SMALL_HASH, v -> v, r);
    }
}
