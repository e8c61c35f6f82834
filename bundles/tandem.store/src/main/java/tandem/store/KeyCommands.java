package tandem.store;

import static tandem.store.Tx.NO_EXPIRY;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.rocksdb.RocksIterator;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.ScanCursors.Position;
import tandem.store.Tx.Rec;
import tandem.protocol.command.Glob;

/** The generic and server commands over keys, with Redis 7.0's argument checks, replies and error texts. */
final class KeyCommands {

    private static final int EXPIRE_NX = 1;
    private static final int EXPIRE_XX = 1 << 1;
    private static final int EXPIRE_GT = 1 << 2;
    private static final int EXPIRE_LT = 1 << 3;

    private KeyCommands() {
    }

    static void del(Tx tx, byte[][] a, Reply r) {
        long deleted = 0;
        for (int i = 1; i < a.length; i++) {
            Rec old = tx.meta(a[i]);
            if (old != null) {
                tx.delete(a[i], old);
                tx.event(KeyspaceEvents.GENERIC, "del", a[i]);
                deleted++;
            }
        }
        r.integer(deleted);
    }

    static void exists(Tx tx, byte[][] a, Reply r) {
        long found = 0;
        for (int i = 1; i < a.length; i++) {
            if (tx.meta(a[i]) != null) {
                found++;
            }
        }
        r.integer(found);
    }

    static void type(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.meta(a[1]);
        r.simple(rec == null ? "none" : typeName(rec));
    }

    /** Redis' name of a record's type, by its object type code. */
    static String typeName(Rec rec) {
        return switch (rec.type()) {
            case Tx.STRING -> "string";
            case Tx.HASH -> "hash";
            case Tx.LIST -> "list";
            case Tx.SET -> "set";
            case Tx.ZSET -> "zset";
            case Tx.STREAM -> "stream";
            default -> throw new IllegalStateException("a key record of unknown type " + rec.type());
        };
    }

    static void expire(Tx tx, byte[][] a, Reply r) {
        expireGeneric(tx, a, tx.nowMs, true, "expire", r);
    }

    static void pexpire(Tx tx, byte[][] a, Reply r) {
        expireGeneric(tx, a, tx.nowMs, false, "pexpire", r);
    }

    static void expireat(Tx tx, byte[][] a, Reply r) {
        expireGeneric(tx, a, 0, true, "expireat", r);
    }

    static void pexpireat(Tx tx, byte[][] a, Reply r) {
        expireGeneric(tx, a, 0, false, "pexpireat", r);
    }

    static void checkExpire(byte[][] a, long nowMs) {
        expireOptions(a, "expire");
        expireDeadline(a, nowMs, true, "expire");
    }

    static void checkPexpire(byte[][] a, long nowMs) {
        expireOptions(a, "pexpire");
        expireDeadline(a, nowMs, false, "pexpire");
    }

    static void checkExpireat(byte[][] a, long nowMs) {
        expireOptions(a, "expireat");
        expireDeadline(a, 0, true, "expireat");
    }

    static void checkPexpireat(byte[][] a, long nowMs) {
        expireOptions(a, "pexpireat");
        expireDeadline(a, 0, false, "pexpireat");
    }

    /** {@code parseExtendedExpireArgumentsOrReply}: the NX / XX / GT / LT flags. */
    private static int expireOptions(byte[][] a, String command) {
        int flags = 0;
        for (int j = 3; j < a.length; j++) {
            if (Args.is(a[j], "nx")) {
                flags |= EXPIRE_NX;
            } else if (Args.is(a[j], "xx")) {
                flags |= EXPIRE_XX;
            } else if (Args.is(a[j], "gt")) {
                flags |= EXPIRE_GT;
            } else if (Args.is(a[j], "lt")) {
                flags |= EXPIRE_LT;
            } else {
                throw new CommandError("ERR Unsupported option " + Args.text(a[j]));
            }
        }
        if ((flags & EXPIRE_NX) != 0 && (flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT)) != 0) {
            throw new CommandError("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if ((flags & EXPIRE_GT) != 0 && (flags & EXPIRE_LT) != 0) {
            throw new CommandError("ERR GT and LT options at the same time are not compatible");
        }
        return flags;
    }

    /**
     * The absolute deadline in ms: the number, scaled, plus {@code basetime}; the overflow checks of
     * {@code expireGenericCommand}. A later {@code basetime} only overflows sooner, so a check made with the
     * sequencing time holds at apply.
     */
    private static long expireDeadline(byte[][] a, long basetime, boolean seconds, String command) {
        long when = Numbers.parseLong(a[2]);
        if (seconds) {
            if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) {
                throw CommandError.expireTime(command);
            }
            when *= 1000;
        }
        if (when > Long.MAX_VALUE - basetime) {
            throw CommandError.expireTime(command);
        }
        return when + basetime;
    }

    /** A port of {@code expireGenericCommand}: options, then the number, then the key. */
    private static void expireGeneric(Tx tx, byte[][] a, long basetime, boolean seconds, String command, Reply r) {
        int flags = expireOptions(a, command);
        long when = expireDeadline(a, basetime, seconds, command);
        Rec old = tx.meta(a[1]);
        if (old == null) {
            r.integer(0);
            return;
        }
        long current = old.expiryMs();
        if ((flags & EXPIRE_NX) != 0 && current != NO_EXPIRY
                || (flags & EXPIRE_XX) != 0 && current == NO_EXPIRY
                || (flags & EXPIRE_GT) != 0 && (when <= current || current == NO_EXPIRY)
                || (flags & EXPIRE_LT) != 0 && current != NO_EXPIRY && when >= current) {
            r.integer(0);
            return;
        }
        if (when <= tx.nowMs) {
            tx.delete(a[1], old); // checkAlreadyExpired: the deadline has passed, the key goes now
            tx.event(KeyspaceEvents.GENERIC, "del", a[1]);
        } else {
            tx.setExpiry(a[1], old, when);
            tx.event(KeyspaceEvents.GENERIC, "expire", a[1]);
        }
        r.integer(1);
    }

    static void ttl(Tx tx, byte[][] a, Reply r) {
        ttlGeneric(tx, a, false, false, r);
    }

    static void pttl(Tx tx, byte[][] a, Reply r) {
        ttlGeneric(tx, a, true, false, r);
    }

    static void expiretime(Tx tx, byte[][] a, Reply r) {
        ttlGeneric(tx, a, false, true, r);
    }

    static void pexpiretime(Tx tx, byte[][] a, Reply r) {
        ttlGeneric(tx, a, true, true, r);
    }

    private static void ttlGeneric(Tx tx, byte[][] a, boolean ms, boolean absolute, Reply r) {
        Rec rec = tx.meta(a[1]);
        if (rec == null) {
            r.integer(-2);
            return;
        }
        if (!rec.hasExpiry()) {
            r.integer(-1);
            return;
        }
        long ttl = absolute ? rec.expiryMs() : rec.expiryMs() - tx.nowMs;
        if (ttl < 0) {
            ttl = 0;
        }
        // Redis' (ttl + 500) / 1000 in C: near 2^63 the sum wraps, and the compiled division reads it unsigned
        r.integer(ms ? ttl : Long.divideUnsigned(ttl + 500, 1000));
    }

    static void persist(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.meta(a[1]);
        if (old == null || !old.hasExpiry()) {
            r.integer(0);
            return;
        }
        tx.setExpiry(a[1], old, NO_EXPIRY);
        tx.event(KeyspaceEvents.GENERIC, "persist", a[1]);
        r.integer(1);
    }

    static void keys(Tx tx, byte[][] a, Reply r) {
        byte[] pattern = a[1];
        boolean all = Glob.isMatchAll(pattern);
        List<byte[]> out = new ArrayList<>();
        try (RocksIterator it = tx.keyIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] key = it.key();
                if ((all || Glob.matches(pattern, key, false)) && !Tx.decode(it.value()).expiredAt(tx.nowMs)) {
                    out.add(key);
                }
            }
        }
        r.array(out.size());
        out.forEach(r::bulk);
    }

    /** The COUNT / MATCH / TYPE options of SCAN and HSCAN ({@code scanGenericCommand}). */
    record ScanOptions(long count, byte[] pattern, byte[] type) {

        boolean matches(byte[] s) {
            return pattern == null || Glob.matches(pattern, s, false);
        }
    }

    static ScanOptions scanOptions(byte[][] a, int from, boolean keyspace) {
        long count = 10;
        byte[] pattern = null;
        byte[] type = null;
        int i = from;
        while (i < a.length) {
            int left = a.length - i;
            if (Args.is(a[i], "count") && left >= 2) {
                count = Numbers.parseLong(a[i + 1]);
                if (count < 1) {
                    throw new CommandError(CommandError.SYNTAX);
                }
                i += 2;
            } else if (Args.is(a[i], "match") && left >= 2) {
                pattern = Glob.isMatchAll(a[i + 1]) ? null : a[i + 1];
                i += 2;
            } else if (Args.is(a[i], "type") && keyspace && left >= 2) {
                type = a[i + 1];
                i += 2;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new ScanOptions(count, pattern, type);
    }

    /**
     * SCAN visits up to COUNT stored keys after the cursor's position, in key byte order, and returns those that
     * are live and pass MATCH and TYPE (so, as in Redis, a reply may hold fewer than COUNT keys, or none, before
     * the cursor comes back to 0). See {@link ScanCursors} for what a cursor stands for.
     */
    static void scan(Tx tx, byte[][] a, Reply r) {
        long cursor = Args.cursor(a[1]);
        ScanOptions o = scanOptions(a, 2, true);
        Position from = tx.cursors.find(cursor);
        if (from != null && from.owner() != null) {
            from = null; // an HSCAN cursor: start over
        }
        List<byte[]> out = new ArrayList<>();
        byte[] last = null;
        boolean more;
        try (RocksIterator it = tx.keyIterator()) {
            seekAfter(it, from == null ? null : from.last());
            long visited = 0;
            while (it.isValid() && visited < o.count()) {
                byte[] key = it.key();
                Rec rec = Tx.decode(it.value());
                last = key;
                visited++;
                if (!rec.expiredAt(tx.nowMs) && o.matches(key)
                        && (o.type() == null || Args.is(o.type(), typeName(rec)))) {
                    out.add(key);
                }
                it.next();
            }
            more = it.isValid();
        }
        long next = more ? tx.cursors.remember(new Position(null, last)) : 0;
        r.array(2);
        r.bulk(Args.ascii(Long.toUnsignedString(next)));
        r.array(out.size());
        out.forEach(r::bulk);
    }

    /**
     * SSCAN, HSCAN and ZSCAN over the element records under {@code prefix}: {@code whole} (a collection Redis keeps
     * compact) comes in one reply with cursor 0, as Redis returns it; otherwise COUNT records at a time in name byte
     * order, with cursors as SCAN's. {@code value} turns a record's value into the reply's (null: names alone).
     */
    static void scanElements(Tx tx, byte[][] a, long cursor, Rec rec, byte[] prefix, boolean whole,
            java.util.function.Function<byte[], byte[]> value, Reply r) {
        if (rec == null) {
            r.array(2);
            r.bulk(Args.ascii("0"));
            r.array(0);
            return;
        }
        ScanOptions o = scanOptions(a, 3, false);
        List<byte[][]> page;
        long next = 0;
        boolean values = value != null;
        if (whole) {
            page = tx.recordsAfter(prefix, null, Integer.MAX_VALUE, Long.MAX_VALUE, values);
        } else {
            Position from = tx.cursors.find(cursor);
            byte[] after = from != null && from.owner() != null && Arrays.equals(from.owner(), prefix)
                    ? from.last() : null;
            int count = (int) Math.min(o.count(), Integer.MAX_VALUE - 1);
            page = tx.recordsAfter(prefix, after, count + 1, Long.MAX_VALUE, values);
            if (page.size() > count) {
                page = page.subList(0, count);
                next = tx.cursors.remember(new Position(prefix, page.get(count - 1)[0]));
            }
        }
        List<byte[][]> out = new ArrayList<>();
        for (byte[][] pair : page) {
            if (o.matches(pair[0])) {
                out.add(pair);
            }
        }
        r.array(2);
        r.bulk(Args.ascii(Long.toUnsignedString(next)));
        r.array(out.size() * (values ? 2 : 1));
        for (byte[][] pair : out) {
            r.bulk(pair[0]);
            if (values) {
                r.bulk(value.apply(pair[1]));
            }
        }
    }

    private static void seekAfter(RocksIterator it, byte[] last) {
        if (last == null) {
            it.seekToFirst();
            return;
        }
        it.seek(last);
        if (it.isValid() && Arrays.equals(it.key(), last)) {
            it.next();
        }
    }

    /**
     * A live key chosen from the entry's time: a position drawn from a generator seeded with "now", then the first
     * live key at or after it (wrapping around). Deterministic, so that a RANDOMKEY inside a transaction gives the
     * same on every replica; not uniform (a key after a wide gap is chosen more often).
     */
    static void randomkey(Tx tx, byte[][] a, Reply r) {
        byte[] target = new byte[8];
        SplittableRandom random = new SplittableRandom(tx.nowMs);
        for (int i = 0; i < target.length; i++) {
            target[i] = (byte) random.nextInt(256);
        }
        try (RocksIterator it = tx.keyIterator()) {
            it.seek(target);
            byte[] found = firstLive(tx, it, null);
            if (found == null) {
                it.seekToFirst();
                found = firstLive(tx, it, target);
            }
            Replies.bulkOrNil(r, found);
        }
    }

    private static byte[] firstLive(Tx tx, RocksIterator it, byte[] before) {
        for (; it.isValid(); it.next()) {
            byte[] key = it.key();
            if (before != null && Arrays.compareUnsigned(key, before) >= 0) {
                return null;
            }
            if (!Tx.decode(it.value()).expiredAt(tx.nowMs)) {
                return key;
            }
        }
        return null;
    }

    static void rename(Tx tx, byte[][] a, Reply r) {
        renameGeneric(tx, a, false, r);
    }

    static void renamenx(Tx tx, byte[][] a, Reply r) {
        renameGeneric(tx, a, true, r);
    }

    private static void renameGeneric(Tx tx, byte[][] a, boolean nx, Reply r) {
        byte[] src = a[1];
        byte[] dst = a[2];
        Rec from = tx.lookup(src);
        if (from == null) {
            throw new CommandError("ERR no such key");
        }
        if (Arrays.equals(src, dst)) {
            if (nx) {
                r.integer(0);
            } else {
                r.simple("OK");
            }
            return;
        }
        Rec to = tx.lookup(dst);
        if (to != null) {
            if (nx) {
                r.integer(0);
                return;
            }
            tx.delete(dst, to);
        }
        copyValue(tx, src, from, tx.currentIndex, dst);
        tx.delete(src, from);
        tx.event(KeyspaceEvents.GENERIC, "rename_from", src);
        tx.event(KeyspaceEvents.GENERIC, "rename_to", dst);
        if (nx) {
            r.integer(1);
        } else {
            r.simple("OK");
        }
    }

    /**
     * Writes a copy of the live key {@code src} ({@code from}) of the current database at {@code dst} of database
     * {@code to}, where it is absent: value, deadline, encoding. The current database stays the current one.
     */
    private static void copyValue(Tx tx, byte[] src, Rec from, int to, byte[] dst) {
        int here = tx.currentIndex;
        if (from.hasFields()) {
            // every record under the key's prefix (a sorted set has two per member): the count is the key's;
            // a list's elements are named by position: the copy keeps them and the head
            tx.copyFields(src, to, dst);
            tx.select(to);
            tx.putCollection(dst, null, from.type(), from.fieldCount(), from.head(), from.expiryMs(), from.flags(),
                    from.isStream() ? from.value() : null);
        } else {
            tx.select(to);
            tx.putString(dst, null, from.value(), from.expiryMs(), from.flags());
        }
        tx.select(here);
    }

    /**
     * {@code getIntFromObjectOrReply} with {@code error} (null: Redis's own texts, a long beyond an int has one of
     * its own), then a database index within range.
     */
    private static int databaseIndex(byte[] arg, String error) {
        long index = Numbers.parseLong(arg, error == null ? CommandError.NOT_INTEGER : error);
        if (index < Integer.MIN_VALUE || index > Integer.MAX_VALUE) {
            throw new CommandError(error != null ? error
                    : "ERR value is out of range, value must between -2147483648 and 2147483647");
        }
        return checkedIndex(index);
    }

    private static int checkedIndex(long index) {
        if (index < 0 || index >= Databases.COUNT) {
            throw new CommandError("ERR DB index is out of range");
        }
        return (int) index;
    }

    static void checkMove(byte[][] a, long nowMs) {
        databaseIndex(a[2], null);
    }

    /** MOVE key db: to another database, where it must be absent; its deadline goes with it. */
    static void move(Tx tx, byte[][] a, Reply r) {
        int to = databaseIndex(a[2], null);
        int here = tx.currentIndex;
        if (to == here) {
            throw new CommandError("ERR source and destination objects are the same");
        }
        Rec from = tx.lookup(a[1]);
        if (from == null) {
            r.integer(0);
            return;
        }
        tx.select(to);
        boolean taken = tx.meta(a[1]) != null;
        tx.select(here);
        if (taken) {
            r.integer(0);
            return;
        }
        copyValue(tx, a[1], from, to, a[1]);
        tx.delete(a[1], from);
        tx.event(KeyspaceEvents.GENERIC, "move_from", a[1]);
        tx.select(to);
        tx.event(KeyspaceEvents.GENERIC, "move_to", a[1]);
        tx.select(here);
        r.integer(1);
    }

    static void checkSwapdb(byte[][] a, long nowMs) {
        swapIndexes(a);
    }

    private static int[] swapIndexes(byte[][] a) {
        // both parsed before either is checked against the range, as Redis's dbSwapDatabases
        long first = Numbers.parseLong(a[1], "ERR invalid first DB index");
        if (first < Integer.MIN_VALUE || first > Integer.MAX_VALUE) {
            throw new CommandError("ERR invalid first DB index");
        }
        long second = Numbers.parseLong(a[2], "ERR invalid second DB index");
        if (second < Integer.MIN_VALUE || second > Integer.MAX_VALUE) {
            throw new CommandError("ERR invalid second DB index");
        }
        return new int[] {checkedIndex(first), checkedIndex(second)};
    }

    /** SWAPDB index1 index2: each index names the other's database from now on, for every client. */
    static void swapdb(Tx tx, byte[][] a, Reply r) {
        int[] ids = swapIndexes(a);
        if (ids[0] != ids[1]) {
            tx.swap(ids[0], ids[1]);
        }
        r.simple("OK");
    }

    static void checkCopy(byte[][] a, long nowMs) {
        copyOptions(a);
    }

    /** COPY's options: REPLACE, and DB; the destination database's index (-1: the current one). */
    private record CopyOptions(boolean replace, int db) {
    }

    private static CopyOptions copyOptions(byte[][] a) {
        boolean replace = false;
        int db = -1;
        for (int j = 3; j < a.length; j++) {
            if (Args.is(a[j], "replace")) {
                replace = true;
            } else if (Args.is(a[j], "db") && j + 1 < a.length) {
                long index = Numbers.parseLong(a[++j]);
                if (index < Integer.MIN_VALUE || index > Integer.MAX_VALUE) {
                    throw new CommandError("ERR value is out of range, value must between -2147483648 and "
                            + "2147483647");
                }
                db = checkedIndex(index);
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new CopyOptions(replace, db);
    }

    /** COPY source destination [DB destination-db] [REPLACE]. */
    static void copy(Tx tx, byte[][] a, Reply r) {
        CopyOptions o = copyOptions(a);
        int here = tx.currentIndex;
        int to = o.db() < 0 ? here : o.db();
        if (to == here && Arrays.equals(a[1], a[2])) {
            throw new CommandError("ERR source and destination objects are the same");
        }
        Rec from = tx.lookup(a[1]);
        if (from == null) {
            tx.readMiss(a[1]); // copyCommand reads its source with lookupKeyRead
            r.integer(0);
            return;
        }
        tx.select(to);
        Rec existing = tx.lookup(a[2]);
        if (existing != null) {
            if (!o.replace()) {
                tx.select(here);
                r.integer(0);
                return;
            }
            tx.delete(a[2], existing);
        }
        tx.select(here);
        copyValue(tx, a[1], from, to, a[2]);
        tx.select(to);
        tx.event(KeyspaceEvents.GENERIC, "copy_to", a[2]);
        tx.select(here);
        r.integer(1);
    }

    /** DBSIZE counts the stored keys, expired ones not yet removed by a Tick included, as Redis counts its dict. */
    static void dbsize(Tx tx, byte[][] a, Reply r) {
        r.integer(tx.storedKeys());
    }

    static void checkFlush(byte[][] a, long nowMs) {
        if (a.length > 2 || a.length == 2 && !Args.is(a[1], "sync") && !Args.is(a[1], "async")) {
            throw new CommandError(CommandError.SYNTAX);
        }
    }

    /** FLUSHDB (the current database) and FLUSHALL (every database) [ASYNC|SYNC], in the apply's batch. */
    /**
     * Inside a transaction, where later commands must see the keyspace empty, every key is deleted through the
     * apply's batch, a chunk at a time so that the heap holds one chunk however many keys there are. A FLUSHALL
     * applied alone takes {@link RocksKeyspace}'s shorter way: range deletions.
     */
    static void flush(Tx tx, byte[][] a, Reply r) {
        checkFlush(a, tx.nowMs);
        if (Args.is(a[0], "flushall")) {
            int selected = tx.currentIndex;
            for (int index = 0; index < Databases.COUNT; index++) {
                tx.select(index);
                deleteAll(tx);
            }
            tx.select(selected);
        } else {
            deleteAll(tx);
        }
        tx.event(KeyspaceEvents.FLUSHED, "flush", new byte[0]);
        r.simple("OK");
    }

    /** Deletes every key of the current database, a chunk at a time. */
    private static void deleteAll(Tx tx) {
        byte[] after = null;
        while (true) {
            List<byte[]> keys = new ArrayList<>(Tx.CHUNK);
            List<Rec> recs = new ArrayList<>(Tx.CHUNK);
            long bytes = 0;
            try (RocksIterator it = tx.keyIterator()) {
                for (seekAfter(it, after); it.isValid() && keys.size() < Tx.CHUNK && bytes < Tx.CHUNK_BYTES;
                        it.next()) {
                    byte[] value = it.value();
                    keys.add(it.key());
                    recs.add(Tx.header(value)); // the type and deadline: not the value, which may be large
                    bytes += value.length;
                }
            }
            if (keys.isEmpty()) {
                break;
            }
            for (int i = 0; i < keys.size(); i++) {
                tx.delete(keys.get(i), recs.get(i));
            }
            after = keys.get(keys.size() - 1);
        }
    }
}
