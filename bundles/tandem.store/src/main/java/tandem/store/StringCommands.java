package tandem.store;

import static tandem.store.Tx.NO_EXPIRY;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/** The string commands, with Redis 7.0's argument checks, replies and error texts. */
final class StringCommands {

    /**
     * Redis' default {@code proto-max-bulk-len}: the largest string a journaled write may build when it is applied.
     * A constant, so that every node decides alike.
     */
    static final long MAX_STRING = 512L * 1024 * 1024;

    /**
     * The largest string a write may build on this node, decided before it is sequenced: {@link #MAX_STRING}, or a
     * quarter of the heap when that is less, so that one command cannot exhaust the heap (values live in RocksDB;
     * only the one being built is on the heap, a few times over). A refusal on the primary only, never at apply.
     */
    static final long MAX_BUILD = Math.min(MAX_STRING, Runtime.getRuntime().maxMemory() / 4);

    // the flags of Redis' parseExtendedStringArgumentsOrReply
    private static final int NX = 1;
    private static final int XX = 1 << 1;
    private static final int GET = 1 << 2;
    private static final int KEEPTTL = 1 << 3;
    private static final int PERSIST = 1 << 4;
    private static final int EX = 1 << 5;
    private static final int PX = 1 << 6;
    private static final int EXAT = 1 << 7;
    private static final int PXAT = 1 << 8;
    private static final int ANY_EXPIRE = EX | PX | EXAT | PXAT;

    private StringCommands() {
    }

    /** The options of SET (from index 3) or GETEX (from index 2), and the expire argument when one was given. */
    private record Options(int flags, byte[] expire) {

        boolean has(int flag) {
            return (flags & flag) != 0;
        }
    }

    /** A port of {@code parseExtendedStringArgumentsOrReply}: the same accepted combinations, in the same order. */
    private static Options options(byte[][] a, boolean set) {
        int flags = 0;
        byte[] expire = null;
        for (int j = set ? 3 : 2; j < a.length; j++) {
            byte[] opt = a[j];
            boolean hasNext = j < a.length - 1;
            if (Args.is(opt, "nx") && (flags & XX) == 0 && set) {
                flags |= NX;
            } else if (Args.is(opt, "xx") && (flags & NX) == 0 && set) {
                flags |= XX;
            } else if (Args.is(opt, "get") && set) {
                flags |= GET;
            } else if (Args.is(opt, "keepttl") && (flags & (PERSIST | ANY_EXPIRE)) == 0 && set) {
                flags |= KEEPTTL;
            } else if (Args.is(opt, "persist") && !set && (flags & (ANY_EXPIRE | KEEPTTL)) == 0) {
                flags |= PERSIST;
            } else if (Args.is(opt, "ex") && (flags & (KEEPTTL | PERSIST | EXAT | PX | PXAT)) == 0 && hasNext) {
                flags |= EX;
                expire = a[++j];
            } else if (Args.is(opt, "px") && (flags & (KEEPTTL | PERSIST | EX | EXAT | PXAT)) == 0 && hasNext) {
                flags |= PX;
                expire = a[++j];
            } else if (Args.is(opt, "exat") && (flags & (KEEPTTL | PERSIST | EX | PX | PXAT)) == 0 && hasNext) {
                flags |= EXAT;
                expire = a[++j];
            } else if (Args.is(opt, "pxat") && (flags & (KEEPTTL | PERSIST | EX | EXAT | PX)) == 0 && hasNext) {
                flags |= PXAT;
                expire = a[++j];
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        return new Options(flags, expire);
    }

    /** {@code getExpireMillisecondsOrReply}: the absolute deadline in ms, or the 'invalid expire time' error. */
    private static long deadline(long nowMs, Options o, String command) {
        long ms = Numbers.parseLong(o.expire());
        boolean seconds = o.has(EX) || o.has(EXAT);
        if (ms <= 0 || (seconds && ms > Long.MAX_VALUE / 1000)) {
            throw CommandError.expireTime(command);
        }
        if (seconds) {
            ms *= 1000;
        }
        if (o.has(EX) || o.has(PX)) {
            ms += nowMs; // may wrap, as in C: caught just below
        }
        if (ms <= 0) {
            throw CommandError.expireTime(command);
        }
        return ms;
    }

    // ---- checks before sequencing (see Commands.Check): the argument errors Redis raises before it looks at a key

    /** @return the options parsed, which the apply of the same command takes ({@link Tx#parsed}) */
    static Options checkSet(byte[][] a, long nowMs) {
        Options o = options(a, true);
        if (o.expire() != null) {
            deadline(nowMs, o, "set");
        }
        return o;
    }

    static void checkSetex(byte[][] a, long nowMs) {
        deadline(nowMs, new Options(EX, a[2]), "setex");
    }

    static void checkPsetex(byte[][] a, long nowMs) {
        deadline(nowMs, new Options(PX, a[2]), "psetex");
    }

    /** GETEX looks at the key before its expire time: only the option syntax is certain. */
    static void checkGetex(byte[][] a, long nowMs) {
        options(a, false);
    }

    static void checkMset(byte[][] a, long nowMs) {
        if (a.length % 2 == 0) {
            throw CommandError.arity(Args.lower(a[0]));
        }
    }

    static void checkIncrby(byte[][] a, long nowMs) {
        Numbers.parseLong(a[2]);
    }

    static void checkDecrby(byte[][] a, long nowMs) {
        decrement(a[2]);
    }

    /** Redis parses the increment after the stored value, but an invalid or infinite one fails whatever is stored. */
    static void checkIncrbyfloat(byte[][] a, long nowMs) {
        if (Numbers.parseLongDouble(a[2], CommandError.NOT_FLOAT) == null) {
            throw new CommandError(CommandError.NAN_OR_INFINITY);
        }
    }

    static void checkSetrange(byte[][] a, long nowMs) {
        long offset = rangeOffset(a[2]);
        if (a[3].length > 0) {
            checkLength(MAX_BUILD, offset, a[3].length);
        }
    }

    /** SETRANGE's offset: an integer, not negative. */
    private static long rangeOffset(byte[] arg) {
        long offset = Numbers.parseLong(arg);
        if (offset < 0) {
            throw new CommandError("ERR offset is out of range");
        }
        return offset;
    }

    /**
     * {@code checkStringLength(size, append)}: a string of {@code size + append} bytes must not exceed
     * {@code bound}; written so that the sum cannot overflow (both are non-negative).
     */
    static void checkLength(long bound, long size, long append) {
        if (size > bound - append) {
            throw new CommandError(CommandError.TOO_LONG);
        }
    }

    /** The bound a handler checks a string it builds against: {@link #MAX_BUILD} while a refused write is answered. */
    static long maxString(Tx tx) {
        return tx.refusing ? MAX_BUILD : MAX_STRING;
    }

    static void get(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.string(a[1]);
        bulkOrNull(r, old);
    }

    static void set(Tx tx, byte[][] a, Reply r) {
        Options o = tx.parsed instanceof Options parsed ? parsed : options(a, true);
        setGeneric(tx, a[1], a[2], o, "set", r, false);
    }

    static void setex(Tx tx, byte[][] a, Reply r) {
        setGeneric(tx, a[1], a[3], new Options(EX, a[2]), "setex", r, false);
    }

    static void psetex(Tx tx, byte[][] a, Reply r) {
        setGeneric(tx, a[1], a[3], new Options(PX, a[2]), "psetex", r, false);
    }

    static void setnx(Tx tx, byte[][] a, Reply r) {
        setGeneric(tx, a[1], a[2], new Options(NX, null), "setnx", r, true);
    }

    /** {@code setGenericCommand}; {@code integerReply}: SETNX's :1 / :0 instead of +OK / nil. */
    private static void setGeneric(Tx tx, byte[] key, byte[] value, Options o, String command, Reply r,
            boolean integerReply) {
        long when = o.expire() == null ? NO_EXPIRY : deadline(tx.nowMs, o, command);
        Rec old = o.has(GET) ? tx.string(key) : tx.meta(key); // the old value matters only to GET
        boolean found = old != null;
        if (!found && o.has(GET)) {
            tx.readMiss(key); // getGenericCommand
        }
        if ((o.has(NX) && found) || (o.has(XX) && !found)) {
            if (o.has(GET)) {
                bulkOrNull(r, old);
            } else if (integerReply) {
                r.integer(0);
            } else {
                r.nullBulk();
            }
            return;
        }
        long expiry = o.expire() != null ? when : o.has(KEEPTTL) && found ? old.expiryMs() : NO_EXPIRY;
        tx.putString(key, old, value, expiry);
        tx.event(KeyspaceEvents.STRING, "set", key);
        if (o.expire() != null) {
            tx.event(KeyspaceEvents.GENERIC, "expire", key);
        }
        if (o.has(GET)) {
            bulkOrNull(r, old);
        } else if (integerReply) {
            r.integer(1);
        } else {
            r.simple("OK");
        }
    }

    static void getset(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.string(a[1]);
        if (old == null) {
            tx.readMiss(a[1]);
        }
        tx.putString(a[1], old, a[2], NO_EXPIRY);
        tx.event(KeyspaceEvents.STRING, "set", a[1]);
        bulkOrNull(r, old);
    }

    static void getdel(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.string(a[1]);
        if (old == null) {
            tx.readMiss(a[1]);
        }
        bulkOrNull(r, old);
        if (old != null) {
            tx.delete(a[1], old);
            tx.event(KeyspaceEvents.GENERIC, "del", a[1]);
        }
    }

    static void getex(Tx tx, byte[][] a, Reply r) {
        Options o = options(a, false);
        Rec old = tx.string(a[1]);
        if (old == null) {
            tx.readMiss(a[1]);
            r.nullBulk();
            return;
        }
        long when = o.expire() == null ? NO_EXPIRY : deadline(tx.nowMs, o, "getex");
        r.bulk(old.value());
        if ((o.has(EXAT) || o.has(PXAT)) && when <= tx.nowMs) {
            tx.delete(a[1], old);
            tx.event(KeyspaceEvents.GENERIC, "del", a[1]);
        } else if (o.expire() != null) {
            tx.setExpiry(a[1], old, when);
            tx.event(KeyspaceEvents.GENERIC, "expire", a[1]);
        } else if (o.has(PERSIST) && old.hasExpiry()) {
            tx.setExpiry(a[1], old, NO_EXPIRY);
            tx.event(KeyspaceEvents.GENERIC, "persist", a[1]);
        }
    }

    static void mget(Tx tx, byte[][] a, Reply r) {
        r.array(a.length - 1);
        for (int i = 1; i < a.length; i++) {
            Rec rec = tx.lookup(a[i]);
            if (rec == null || !rec.isString()) {
                r.nullBulk();
            } else {
                r.bulk(rec.value());
            }
        }
    }

    static void mset(Tx tx, byte[][] a, Reply r) {
        checkMset(a, tx.nowMs);
        for (int i = 1; i < a.length; i += 2) {
            tx.putString(a[i], tx.lookup(a[i]), a[i + 1], NO_EXPIRY);
            tx.event(KeyspaceEvents.STRING, "set", a[i]);
        }
        r.simple("OK");
    }

    static void msetnx(Tx tx, byte[][] a, Reply r) {
        checkMset(a, tx.nowMs);
        for (int i = 1; i < a.length; i += 2) {
            if (tx.lookup(a[i]) != null) {
                r.integer(0);
                return;
            }
        }
        for (int i = 1; i < a.length; i += 2) {
            tx.putString(a[i], tx.lookup(a[i]), a[i + 1], NO_EXPIRY);
            tx.event(KeyspaceEvents.STRING, "set", a[i]);
        }
        r.integer(1);
    }

    static void append(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.string(a[1]);
        byte[] add = a[2];
        if (old == null) {
            tx.putString(a[1], null, add, NO_EXPIRY);
            tx.event(KeyspaceEvents.STRING, "append", a[1]);
            r.integer(add.length);
            return;
        }
        checkLength(maxString(tx), old.value().length, add.length);
        long total = (long) old.value().length + add.length;
        byte[] value = Arrays.copyOf(old.value(), (int) total);
        System.arraycopy(add, 0, value, old.value().length, add.length);
        tx.putString(a[1], old, value, old.expiryMs(), Tx.ENC_RAW); // grown in place: Redis unshares it as raw
        tx.event(KeyspaceEvents.STRING, "append", a[1]);
        r.integer(total);
    }

    static void strlen(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.string(a[1]);
        r.integer(old == null ? 0 : old.value().length);
    }

    static void incr(Tx tx, byte[][] a, Reply r) {
        incrDecr(tx, a[1], 1, r);
    }

    static void decr(Tx tx, byte[][] a, Reply r) {
        incrDecr(tx, a[1], -1, r);
    }

    static void incrby(Tx tx, byte[][] a, Reply r) {
        incrDecr(tx, a[1], Numbers.parseLong(a[2]), r);
    }

    static void decrby(Tx tx, byte[][] a, Reply r) {
        incrDecr(tx, a[1], -decrement(a[2]), r);
    }

    private static long decrement(byte[] arg) {
        long by = Numbers.parseLong(arg);
        if (by == Long.MIN_VALUE) {
            throw new CommandError("ERR decrement would overflow");
        }
        return by;
    }

    private static void incrDecr(Tx tx, byte[] key, long by, Reply r) {
        Rec old = tx.string(key);
        long value = old == null ? 0 : Numbers.parseLong(old.value());
        if ((by < 0 && value < 0 && by < Long.MIN_VALUE - value)
                || (by > 0 && value > 0 && by > Long.MAX_VALUE - value)) {
            throw new CommandError(CommandError.OVERFLOW);
        }
        long result = value + by;
        tx.putString(key, old, Numbers.bytes(result), old == null ? NO_EXPIRY : old.expiryMs());
        tx.event(KeyspaceEvents.STRING, "incrby", key);
        r.integer(result);
    }

    static void incrbyfloat(Tx tx, byte[][] a, Reply r) {
        Rec old = tx.string(a[1]);
        BigDecimal value = old == null ? BigDecimal.ZERO : Numbers.parseLongDouble(old.value(), CommandError.NOT_FLOAT);
        BigDecimal by = Numbers.parseLongDouble(a[2], CommandError.NOT_FLOAT);
        BigDecimal sum = Numbers.add(value, by);
        if (sum == null) {
            throw new CommandError(CommandError.NAN_OR_INFINITY);
        }
        byte[] text = Numbers.formatLongDouble(sum);
        tx.putString(a[1], old, text, old == null ? NO_EXPIRY : old.expiryMs(), Tx.ENC_PLAIN);
        tx.event(KeyspaceEvents.STRING, "incrbyfloat", a[1]);
        r.bulk(text);
    }

    static void getrange(Tx tx, byte[][] a, Reply r) {
        long start = Numbers.parseLong(a[2]);
        long end = Numbers.parseLong(a[3]);
        Rec old = tx.string(a[1]);
        if (old == null) {
            r.bulk(new byte[0]);
            return;
        }
        byte[] s = old.value();
        long len = s.length;
        if (start < 0 && end < 0 && start > end) {
            r.bulk(new byte[0]);
            return;
        }
        if (start < 0) {
            start = len + start;
        }
        if (end < 0) {
            end = len + end;
        }
        if (start < 0) {
            start = 0;
        }
        if (end < 0) {
            end = 0;
        }
        if (end >= len) {
            end = len - 1;
        }
        if (start > end || len == 0) {
            r.bulk(new byte[0]);
        } else {
            r.bulk(Arrays.copyOfRange(s, (int) start, (int) end + 1));
        }
    }

    static void setrange(Tx tx, byte[][] a, Reply r) {
        long offset = rangeOffset(a[2]);
        byte[] value = a[3];
        Rec old = tx.string(a[1]);
        byte[] current = old == null ? new byte[0] : old.value();
        if (value.length == 0) {
            r.integer(current.length);
            return;
        }
        checkLength(maxString(tx), offset, value.length);
        int size = (int) Math.max(current.length, offset + value.length);
        byte[] next = Arrays.copyOf(current, size);
        System.arraycopy(value, 0, next, (int) offset, value.length);
        tx.putString(a[1], old, next, old == null ? NO_EXPIRY : old.expiryMs(), Tx.ENC_RAW);
        tx.event(KeyspaceEvents.STRING, "setrange", a[1]);
        r.integer(size);
    }

    /** Redis' bound on LCS' table of {@code (len1 + 1) * (len2 + 1)} 4-byte cells: proto-max-bulk-len bytes. */
    static final long LCS_MAX_CELLS = MAX_STRING / 4;

    /**
     * Tandem keeps one bit per cell (the way back), not Redis' 4-byte lengths, so the largest table Redis accepts
     * takes 16 MiB here. The table may take at most a sixteenth of the heap, which binds only on a heap under about
     * 270 MB: there a smaller table is refused, with Redis' message. LEN alone needs no table.
     */
    static final long LCS_MAX_PATH_BITS = Runtime.getRuntime().maxMemory() / 2;

    private static final String LCS_TOO_BIG = "ERR Insufficient memory, transient memory for LCS exceeds "
            + "proto-max-bulk-len";

    /** LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the keys first, then the options, as Redis. */
    static void lcs(Tx tx, byte[][] a, Reply r) {
        Rec ra = tx.lookup(a[1]);
        Rec rb = tx.lookup(a[2]);
        if (ra != null && !ra.isString() || rb != null && !rb.isString()) {
            throw new CommandError("ERR The specified keys must contain string values");
        }
        byte[] x = ra == null ? new byte[0] : ra.value();
        byte[] y = rb == null ? new byte[0] : rb.value();
        boolean getLen = false;
        boolean getIdx = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < a.length; j++) {
            boolean more = j < a.length - 1;
            if (Args.is(a[j], "idx")) {
                getIdx = true;
            } else if (Args.is(a[j], "len")) {
                getLen = true;
            } else if (Args.is(a[j], "withmatchlen")) {
                withMatchLen = true;
            } else if (Args.is(a[j], "minmatchlen") && more) {
                minMatchLen = Math.max(0, Numbers.parseLong(a[++j]));
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
        }
        if (getLen && getIdx) {
            throw new CommandError("ERR If you want both the length and indexes, please just use IDX.");
        }
        boolean path = getIdx || !getLen;
        if ((x.length + 1L) * (y.length + 1L) > LCS_MAX_CELLS
                || path && (long) x.length * y.length > LCS_MAX_PATH_BITS) {
            throw new CommandError(LCS_TOO_BIG);
        }
        long[] back = path ? new long[(int) (((long) x.length * y.length + 63) >>> 6)] : null;
        int length = lcsTable(x, y, back);
        if (!path) {
            r.integer(length);
            return;
        }
        // Redis' walk back from the end: a match goes diagonally, else towards the longer sub-LCS (up on a tie)
        byte[] result = new byte[length];
        List<long[]> ranges = new ArrayList<>();
        int alen = x.length;
        int i = alen;
        int j = y.length;
        int idx = length;
        int aStart = alen; // alen: no range open
        int aEnd = 0;
        int bStart = 0;
        int bEnd = 0;
        while (i > 0 && j > 0) {
            boolean emit = false;
            if (x[i - 1] == y[j - 1]) {
                result[--idx] = x[i - 1];
                if (aStart == alen) {
                    aStart = i - 1;
                    aEnd = i - 1;
                    bStart = j - 1;
                    bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--;
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) {
                    emit = true;
                }
                i--;
                j--;
            } else {
                long cell = (long) (i - 1) * y.length + (j - 1);
                if ((back[(int) (cell >>> 6)] & (1L << cell)) != 0) {
                    i--;
                } else {
                    j--;
                }
                if (aStart != alen) {
                    emit = true;
                }
            }
            if (emit) {
                long matchLen = aEnd - aStart + 1;
                if (getIdx && (minMatchLen == 0 || matchLen >= minMatchLen)) {
                    ranges.add(new long[] {aStart, aEnd, bStart, bEnd, matchLen});
                }
                aStart = alen;
            }
        }
        if (!getIdx) {
            r.bulk(result);
            return;
        }
        r.map(2);
        r.bulk(Args.ascii("matches"));
        r.array(ranges.size());
        for (long[] range : ranges) {
            r.array(withMatchLen ? 3 : 2);
            r.array(2);
            r.integer(range[0]);
            r.integer(range[1]);
            r.array(2);
            r.integer(range[2]);
            r.integer(range[3]);
            if (withMatchLen) {
                r.integer(range[4]);
            }
        }
        r.bulk(Args.ascii("len"));
        r.integer(length);
    }

    /**
     * The length of the LCS of {@code x} and {@code y}, with two rows over the shorter one. When {@code back} is given,
     * sets in it, for each cell {@code (i, j)} (1-based, bit {@code (i - 1) * y.length + j - 1}) where the bytes
     * differ, whether {@code LCS(i - 1, j) > LCS(i, j - 1)}: the way Redis' walk back takes.
     */
    private static int lcsTable(byte[] x, byte[] y, long[] back) {
        boolean xInner = x.length <= y.length;
        byte[] inner = xInner ? x : y;
        byte[] outer = xInner ? y : x;
        int[] prev = new int[inner.length + 1];
        int[] cur = new int[inner.length + 1];
        for (int o = 1; o <= outer.length; o++) {
            byte c = outer[o - 1];
            for (int k = 1; k <= inner.length; k++) {
                if (inner[k - 1] == c) {
                    cur[k] = prev[k - 1] + 1;
                    continue;
                }
                int before = prev[k]; // LCS(o - 1, k)
                int beside = cur[k - 1]; // LCS(o, k - 1)
                cur[k] = Math.max(before, beside);
                if (back != null && (xInner ? beside > before : before > beside)) {
                    long cell = xInner ? (long) (k - 1) * y.length + (o - 1) : (long) (o - 1) * y.length + (k - 1);
                    back[(int) (cell >>> 6)] |= 1L << cell;
                }
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[inner.length];
    }

    private static void bulkOrNull(Reply r, Rec rec) {
        Replies.bulkOrNil(r, rec == null ? null : rec.value());
    }
}
