package tandem.store;

import static tandem.store.StringCommands.MAX_BUILD;
import static tandem.store.StringCommands.MAX_STRING;
import static tandem.store.StringCommands.checkLength;
import static tandem.store.StringCommands.maxString;
import static tandem.store.Tx.NO_EXPIRY;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.api.store.Reply;
import tandem.store.Tx.Rec;

/**
 * The bitmap commands (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO), ported from Redis 7.0's
 * {@code bitops.c} with its argument order, replies and error texts.
 *
 * <p>Bit numbering is Redis': bit 0 is the most significant bit of byte 0 (not {@link java.util.BitSet}'s order).
 * A string built or changed by these commands is stored with {@link Tx#ENC_RAW}: Redis unshares it as a raw string.
 */
final class BitCommands {

    private static final String BIT_OFFSET = "ERR bit offset is not an integer or out of range";
    private static final String BIT_VALUE = "ERR bit is not an integer or out of range";
    private static final String BITFIELD_TYPE =
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    /** Eight bytes at a time for BITCOUNT (the order does not matter to a count). */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private BitCommands() {
    }

    /**
     * {@code getBitOffsetFromArgument}: a bit offset, not negative, within a string of
     * {@link StringCommands#MAX_STRING} bytes. With {@code hash} (BITFIELD), {@code #n} means n times {@code bits};
     * the product wraps as it does in C.
     */
    static long bitOffset(byte[] arg, boolean hash, int bits) {
        boolean usehash = hash && bits > 0 && arg.length > 0 && arg[0] == '#';
        long offset = Numbers.parseLong(usehash ? Arrays.copyOfRange(arg, 1, arg.length) : arg, BIT_OFFSET);
        if (usehash) {
            offset *= bits;
        }
        if (offset < 0 || (offset >> 3) >= MAX_STRING) {
            throw new CommandError(BIT_OFFSET);
        }
        return offset;
    }

    /**
     * A string that must reach bit {@code maxBit} has {@code maxBit / 8 + 1} bytes: it must fit in {@code bound}
     * ({@link StringCommands#MAX_BUILD} before sequencing and in refusals, {@link StringCommands#MAX_STRING} at apply,
     * which {@link #bitOffset} already guarantees).
     */
    private static void checkBits(long bound, long maxBit) {
        checkLength(bound, maxBit >> 3, 1);
    }

    // ---------------------------------------------------------------- SETBIT, GETBIT

    static void checkSetbit(byte[][] a, long nowMs) {
        long offset = bitOffset(a[2], false, 0);
        bitValue(a[3]);
        checkBits(MAX_BUILD, offset);
    }

    private static int bitValue(byte[] arg) {
        long on = Numbers.parseLong(arg, BIT_VALUE);
        if ((on & ~1L) != 0) {
            throw new CommandError(BIT_VALUE);
        }
        return (int) on;
    }

    static void setbit(Tx tx, byte[][] a, Reply r) {
        long offset = bitOffset(a[2], false, 0);
        int on = bitValue(a[3]);
        checkBits(maxString(tx), offset);
        Rec old = tx.string(a[1]);
        byte[] value = grown(old, offset);
        int index = (int) (offset >> 3);
        int shift = 7 - (int) (offset & 7);
        int previous = (value[index] >> shift) & 1;
        value[index] = (byte) ((value[index] & ~(1 << shift)) | (on << shift));
        // written even when nothing changed: Redis unshares the value as a raw string whatever the outcome
        tx.putString(a[1], old, value, old == null ? NO_EXPIRY : old.expiryMs(), Tx.ENC_RAW);
        if (old == null || value.length > old.value().length || previous != on) {
            tx.event(KeyspaceEvents.STRING, "setbit", a[1]); // Redis 7.0: only when the string changed
        }
        r.integer(previous);
    }

    /** {@code lookupStringForBitCommand}: a copy of the value, zero-padded so that {@code maxBit} exists. */
    private static byte[] grown(Rec old, long maxBit) {
        int size = (int) (maxBit >> 3) + 1;
        if (old == null) {
            return new byte[size];
        }
        return Arrays.copyOf(old.value(), Math.max(size, old.value().length));
    }

    static void getbit(Tx tx, byte[][] a, Reply r) {
        long offset = bitOffset(a[2], false, 0);
        Rec rec = tx.string(a[1]);
        long index = offset >> 3;
        if (rec == null || index >= rec.value().length) {
            r.integer(0);
            return;
        }
        r.integer((rec.value()[(int) index] >> (7 - (int) (offset & 7))) & 1);
    }

    // ---------------------------------------------------------------- BITCOUNT, BITPOS

    /** BITCOUNT key [start end [BYTE|BIT]]: the key is looked at before any argument, as in Redis. */
    static void bitcount(Tx tx, byte[][] a, Reply r) {
        Rec rec = tx.string(a[1]);
        if (rec == null) {
            r.integer(0);
            return;
        }
        byte[] p = rec.value();
        long start;
        long end;
        int firstMask = 0;
        int lastMask = 0;
        if (a.length == 4 || a.length == 5) {
            long total = p.length;
            start = Numbers.parseLong(a[2]);
            end = Numbers.parseLong(a[3]);
            if (start < 0 && end < 0 && start > end) {
                r.integer(0);
                return;
            }
            ByteRange range = ByteRange.of(start, end, total, a.length == 5 && unitIsBit(a[4]));
            start = range.start();
            end = range.end();
            firstMask = range.firstMask();
            lastMask = range.lastMask();
        } else if (a.length == 2) {
            start = 0;
            end = p.length - 1;
        } else {
            throw new CommandError(CommandError.SYNTAX);
        }
        if (start > end) {
            r.integer(0);
            return;
        }
        long count = popcount(p, (int) start, (int) end);
        // the bits of the edge bytes outside a BIT range were counted: take them off
        if (firstMask != 0) {
            count -= Integer.bitCount(p[(int) start] & firstMask);
        }
        if (lastMask != 0) {
            count -= Integer.bitCount(p[(int) end] & lastMask);
        }
        r.integer(count);
    }

    /**
     * The bytes a BITCOUNT or BITPOS range covers: {@code start} and {@code end} clamped to the string ({@code bytes}
     * long) as Redis clamps them, in bits when {@code isBit}; then the masks of the bits of the first and last byte
     * that lie outside such a bit range (0 for a byte range).
     */
    private record ByteRange(long start, long end, int firstMask, int lastMask) {

        static ByteRange of(long start, long end, long bytes, boolean isBit) {
            long total = isBit ? bytes << 3 : bytes;
            long s = clampStart(start, total);
            long e = clampEnd(end, total);
            if (isBit && s <= e) {
                return new ByteRange(s >> 3, e >> 3, ~((1 << (8 - (s & 7))) - 1) & 0xff, (1 << (7 - (e & 7))) - 1);
            }
            return new ByteRange(s, e, 0, 0);
        }
    }

    /** BYTE or BIT (case-insensitive), else a syntax error. */
    private static boolean unitIsBit(byte[] arg) {
        if (Args.is(arg, "bit")) {
            return true;
        }
        if (Args.is(arg, "byte")) {
            return false;
        }
        throw new CommandError(CommandError.SYNTAX);
    }

    private static long clampStart(long start, long total) {
        if (start < 0) {
            start = total + start;
        }
        return Math.max(start, 0);
    }

    /** A negative end counts from the end; the result lies in [-1, total - 1] (-1: an empty string). */
    private static long clampEnd(long end, long total) {
        if (end < 0) {
            end = total + end;
        }
        if (end < 0) {
            end = 0;
        }
        return end >= total ? total - 1 : end;
    }

    /** The set bits of {@code p[from..to]}, both inclusive. */
    private static long popcount(byte[] p, int from, int to) {
        long bits = 0;
        int i = from;
        for (; i + 8 <= to + 1; i += 8) {
            bits += Long.bitCount((long) LONGS.get(p, i));
        }
        for (; i <= to; i++) {
            bits += Integer.bitCount(p[i] & 0xff);
        }
        return bits;
    }

    /**
     * {@code redisBitpos}: the position, from {@code p[from]}, of the first bit equal to {@code bit} among
     * {@code count} bytes; when there is none, -1 looking for a 1 and {@code count * 8} looking for a 0 (the string
     * is taken as zero-padded on the right).
     */
    private static long firstBit(byte[] p, int from, long count, int bit) {
        int skip = bit == 1 ? 0 : 0xff;
        for (int i = 0; i < count; i++) {
            int b = p[from + i] & 0xff;
            if (b != skip) {
                int word = bit == 1 ? b : ~b & 0xff;
                return i * 8L + Integer.numberOfLeadingZeros(word) - 24;
            }
        }
        return bit == 1 ? -1 : count * 8;
    }

    /** BITPOS key bit [start [end [BYTE|BIT]]]: the bit argument first, then the key, then the range. */
    static void bitpos(Tx tx, byte[][] a, Reply r) {
        long bitArg = Numbers.parseLong(a[2]);
        if (bitArg != 0 && bitArg != 1) {
            throw new CommandError("ERR The bit argument must be 1 or 0.");
        }
        int bit = (int) bitArg;
        Rec rec = tx.string(a[1]);
        if (rec == null) {
            // a missing key is an infinite run of zeros
            r.integer(bit == 1 ? -1 : 0);
            return;
        }
        byte[] p = rec.value();
        long start;
        long end;
        boolean endGiven = false;
        int firstMask = 0;
        int lastMask = 0;
        if (a.length >= 4 && a.length <= 6) {
            long total = p.length;
            start = Numbers.parseLong(a[3]);
            boolean isBit = a.length == 6 && unitIsBit(a[5]);
            if (a.length >= 5) {
                end = Numbers.parseLong(a[4]);
                endGiven = true;
            } else {
                end = isBit ? (total << 3) + 7 : total - 1;
            }
            ByteRange range = ByteRange.of(start, end, total, isBit);
            start = range.start();
            end = range.end();
            firstMask = range.firstMask();
            lastMask = range.lastMask();
        } else if (a.length == 3) {
            start = 0;
            end = p.length - 1;
        } else {
            throw new CommandError(CommandError.SYNTAX);
        }
        if (start > end) {
            r.integer(-1); // an empty range holds neither a 0 nor a 1
            return;
        }
        long bytes = end - start + 1;
        long pos = -1;
        boolean found = false;
        if (firstMask != 0) {
            // the first byte alone, its bits before the range forced to the value not looked for
            int b = p[(int) start] & 0xff;
            int first = bit == 1 ? b & ~firstMask : b | firstMask;
            if (lastMask != 0 && bytes == 1) {
                first = bit == 1 ? first & ~lastMask : first | lastMask;
            }
            pos = firstBit(new byte[] {(byte) first}, 0, 1, bit);
            found = bytes == 1 || (pos != -1 && pos != 8);
            if (!found) {
                start++;
                bytes--;
            }
        }
        if (!found) {
            long whole = bytes - (lastMask != 0 ? 1 : 0); // a partial last byte is looked at apart
            if (whole > 0) {
                pos = firstBit(p, (int) start, whole, bit);
                found = bytes == whole || (pos != -1 && pos != whole << 3);
                if (!found) {
                    start += whole;
                    bytes -= whole;
                }
            }
            if (!found) {
                int b = p[(int) end] & 0xff;
                int last = bit == 1 ? b & ~lastMask : b | lastMask;
                pos = firstBit(new byte[] {(byte) last}, 0, 1, bit);
            }
        }
        // with an explicit end the string is not zero-padded: a 0 just past the range is no answer
        if (endGiven && bit == 0 && pos == bytes << 3) {
            r.integer(-1);
            return;
        }
        r.integer(pos == -1 ? -1 : pos + (start << 3));
    }

    // ---------------------------------------------------------------- BITOP

    private static final int AND = 0;
    private static final int OR = 1;
    private static final int XOR = 2;
    private static final int NOT = 3;

    private static int bitopOperation(byte[][] a) {
        int op;
        if (Args.is(a[1], "and")) {
            op = AND;
        } else if (Args.is(a[1], "or")) {
            op = OR;
        } else if (Args.is(a[1], "xor")) {
            op = XOR;
        } else if (Args.is(a[1], "not")) {
            op = NOT;
        } else {
            throw new CommandError(CommandError.SYNTAX);
        }
        if (op == NOT && a.length != 4) {
            throw new CommandError("ERR BITOP NOT must be called with a single source key.");
        }
        return op;
    }

    static void checkBitop(byte[][] a, long nowMs) {
        bitopOperation(a);
    }

    /**
     * BITOP op destkey key [key...]: missing keys are empty strings; the result is as long as the longest source
     * (shorter ones are zero-padded); an empty result deletes the destination.
     */
    static void bitop(Tx tx, byte[][] a, Reply r) {
        int op = bitopOperation(a);
        byte[] dest = a[2];
        int n = a.length - 3;
        byte[][] src = new byte[n][];
        int maxLength = 0;
        for (int j = 0; j < n; j++) {
            Rec rec = tx.string(a[j + 3]);
            if (rec == null) {
                tx.readMiss(a[j + 3]);
            }
            src[j] = rec == null ? new byte[0] : rec.value();
            maxLength = Math.max(maxLength, src[j].length);
        }
        if (maxLength == 0) {
            Rec old = tx.lookup(dest);
            if (old != null) {
                tx.delete(dest, old);
                tx.event(KeyspaceEvents.GENERIC, "del", dest);
            }
            r.integer(0);
            return;
        }
        checkLength(maxString(tx), maxLength, 0);
        byte[] result = Arrays.copyOf(src[0], maxLength);
        if (op == NOT) {
            for (int i = 0; i < maxLength; i++) {
                result[i] = (byte) ~result[i];
            }
        }
        for (int j = 1; j < n; j++) {
            byte[] s = src[j];
            if (op == AND) {
                for (int i = 0; i < maxLength; i++) {
                    result[i] &= i < s.length ? s[i] : 0;
                }
            } else {
                int len = s.length; // OR and XOR with the zero padding change nothing
                for (int i = 0; i < len; i++) {
                    result[i] = (byte) (op == OR ? result[i] | s[i] : result[i] ^ s[i]);
                }
            }
        }
        tx.putString(dest, tx.lookup(dest), result, NO_EXPIRY, Tx.ENC_RAW);
        tx.event(KeyspaceEvents.STRING, "set", dest);
        r.integer(maxLength);
    }

    // ---------------------------------------------------------------- BITFIELD, BITFIELD_RO

    private static final int GET = 0;
    private static final int SET = 1;
    private static final int INCRBY = 2;

    private static final int WRAP = 0;
    private static final int SAT = 1;
    private static final int FAIL = 2;

    /** One operation of a BITFIELD: {@code value} is SET's value or INCRBY's increment. */
    private record Op(int code, long offset, long value, int overflow, int bits, boolean signed) {
    }

    /** The parsed operations; {@code highestBit} is the last bit a write reaches (meaningful unless read-only). */
    private record Ops(List<Op> ops, boolean readOnly, long highestBit) {
    }

    /** Redis parses the whole list, each error in its place, before it looks at the key. */
    private static Ops bitfieldOps(byte[][] a) {
        List<Op> ops = new ArrayList<>();
        int overflow = WRAP;
        boolean readOnly = true;
        long highest = 0;
        for (int j = 2; j < a.length; j++) {
            int remaining = a.length - j - 1;
            byte[] sub = a[j];
            int code;
            if (Args.is(sub, "get") && remaining >= 2) {
                code = GET;
            } else if (Args.is(sub, "set") && remaining >= 3) {
                code = SET;
            } else if (Args.is(sub, "incrby") && remaining >= 3) {
                code = INCRBY;
            } else if (Args.is(sub, "overflow") && remaining >= 1) {
                byte[] type = a[++j];
                if (Args.is(type, "wrap")) {
                    overflow = WRAP;
                } else if (Args.is(type, "sat")) {
                    overflow = SAT;
                } else if (Args.is(type, "fail")) {
                    overflow = FAIL;
                } else {
                    throw new CommandError("ERR Invalid OVERFLOW type specified");
                }
                continue;
            } else {
                throw new CommandError(CommandError.SYNTAX);
            }
            byte[] type = a[j + 1];
            boolean signed = bitfieldSign(type);
            int bits = bitfieldBits(type, signed);
            long offset = bitOffset(a[j + 2], true, bits);
            long value = 0;
            if (code != GET) {
                readOnly = false;
                highest = Math.max(highest, offset + bits - 1);
                value = Numbers.parseLong(a[j + 3]);
            }
            ops.add(new Op(code, offset, value, overflow, bits, signed));
            j += code == GET ? 2 : 3;
        }
        return new Ops(ops, readOnly, highest);
    }

    private static boolean bitfieldSign(byte[] type) {
        if (type.length > 0 && type[0] == 'i') {
            return true;
        }
        if (type.length > 0 && type[0] == 'u') {
            return false;
        }
        throw new CommandError(BITFIELD_TYPE);
    }

    /** The width after the sign letter, read as a C string (up to a NUL): 1..64 signed, 1..63 unsigned. */
    private static int bitfieldBits(byte[] type, boolean signed) {
        int end = 1;
        while (end < type.length && type[end] != 0) {
            end++;
        }
        long bits = Numbers.parseLong(Arrays.copyOfRange(type, 1, end), BITFIELD_TYPE);
        if (bits < 1 || bits > (signed ? 64 : 63)) {
            throw new CommandError(BITFIELD_TYPE);
        }
        return (int) bits;
    }

    static void checkBitfield(byte[][] a, long nowMs) {
        Ops ops = bitfieldOps(a);
        if (!ops.readOnly()) {
            checkBits(MAX_BUILD, ops.highestBit());
        }
    }

    static void bitfield(Tx tx, byte[][] a, Reply r) {
        bitfieldGeneric(tx, a, r, false);
    }

    static void bitfieldRo(Tx tx, byte[][] a, Reply r) {
        bitfieldGeneric(tx, a, r, true);
    }

    private static void bitfieldGeneric(Tx tx, byte[][] a, Reply r, boolean readOnlyCommand) {
        Ops parsed = bitfieldOps(a);
        List<Op> ops = parsed.ops();
        if (parsed.readOnly()) {
            // GETs only: nothing is written, not even the raw encoding
            Rec rec = tx.string(a[1]);
            if (rec == null) {
                tx.readMiss(a[1]); // lookupKeyRead: BITFIELD with GETs alone only reads
            }
            byte[] p = rec == null ? new byte[0] : rec.value();
            r.array(ops.size());
            for (Op op : ops) {
                r.integer(get(p, op));
            }
            return;
        }
        if (readOnlyCommand) {
            throw new CommandError("ERR BITFIELD_RO only supports the GET subcommand");
        }
        checkBits(maxString(tx), parsed.highestBit());
        Rec old = tx.string(a[1]);
        byte[] p = grown(old, parsed.highestBit());
        boolean grown = old == null || p.length > old.value().length;
        r.array(ops.size());
        int changes = 0; // the writes that changed the string (Redis 7.0 notifies only then)
        for (Op op : ops) {
            if (op.code() == GET) {
                r.integer(get(p, op));
                continue;
            }
            long oldValue = op.signed() ? getSigned(p, op.offset(), op.bits()) : getUnsigned(p, op.offset(), op.bits());
            long newValue;
            long reply;
            boolean overflow;
            long[] limit = new long[1];
            if (op.code() == INCRBY) {
                overflow = op.signed()
                        ? signedOverflow(oldValue, op.value(), op.bits(), op.overflow(), limit) != 0
                        : unsignedOverflow(oldValue, op.value(), op.bits(), op.overflow(), limit) != 0;
                newValue = overflow ? limit[0] : oldValue + op.value();
                reply = newValue;
            } else {
                overflow = op.signed()
                        ? signedOverflow(op.value(), 0, op.bits(), op.overflow(), limit) != 0
                        : unsignedOverflow(op.value(), 0, op.bits(), op.overflow(), limit) != 0;
                newValue = overflow ? limit[0] : op.value();
                reply = oldValue;
            }
            if (overflow && op.overflow() == FAIL) {
                r.nullBulk();
            } else {
                r.integer(reply);
                setBits(p, op.offset(), op.bits(), newValue);
                if (grown || newValue != oldValue) {
                    changes++;
                }
            }
        }
        // the key exists from here on, grown and raw, even when every write failed: as Redis' lookup leaves it
        tx.putString(a[1], old, p, old == null ? NO_EXPIRY : old.expiryMs(), Tx.ENC_RAW);
        if (changes > 0) {
            tx.event(KeyspaceEvents.STRING, "setbit", a[1]);
        }
    }

    /** A GET reads the string as zero-padded past its end. */
    private static long get(byte[] p, Op op) {
        return op.signed() ? getSigned(p, op.offset(), op.bits()) : getUnsigned(p, op.offset(), op.bits());
    }

    private static long getUnsigned(byte[] p, long offset, int bits) {
        long value = 0;
        for (int j = 0; j < bits; j++, offset++) {
            long index = offset >> 3;
            int bit = index < p.length ? (p[(int) index] >> (7 - (int) (offset & 7))) & 1 : 0;
            value = (value << 1) | bit;
        }
        return value;
    }

    private static long getSigned(byte[] p, long offset, int bits) {
        long value = getUnsigned(p, offset, bits);
        if (bits < 64 && (value & (1L << (bits - 1))) != 0) {
            value |= -1L << bits; // two's complement: propagate the sign
        }
        return value;
    }

    /** Writes the low {@code bits} bits of {@code value}; the string has been grown to hold them. */
    private static void setBits(byte[] p, long offset, int bits, long value) {
        for (int j = 0; j < bits; j++, offset++) {
            int bit = (int) (value >>> (bits - 1 - j)) & 1;
            int index = (int) (offset >> 3);
            int shift = 7 - (int) (offset & 7);
            p[index] = (byte) ((p[index] & ~(1 << shift)) | (bit << shift));
        }
    }

    /**
     * {@code checkUnsignedBitfieldOverflow}: 0 when {@code value + incr} fits in {@code bits} unsigned bits, 1 on
     * overflow, -1 on underflow; then {@code limit[0]} is the value to store under WRAP or SAT. {@code value} is
     * unsigned (a SET of a negative number is a huge value, as in C).
     */
    private static int unsignedOverflow(long value, long incr, int bits, int owtype, long[] limit) {
        long max = bits == 64 ? -1L : (1L << bits) - 1;
        long maxIncr = max - value;
        long minIncr = -value;
        if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > maxIncr)) {
            if (owtype == WRAP) {
                limit[0] = wrapUnsigned(value, incr, bits);
            } else if (owtype == SAT) {
                limit[0] = max;
            }
            return 1;
        } else if (incr < 0 && incr < minIncr) {
            if (owtype == WRAP) {
                limit[0] = wrapUnsigned(value, incr, bits);
            } else if (owtype == SAT) {
                limit[0] = 0;
            }
            return -1;
        }
        return 0;
    }

    private static long wrapUnsigned(long value, long incr, int bits) {
        return (value + incr) & ~(-1L << bits);
    }

    /** {@code checkSignedBitfieldOverflow}, with C's wrapping arithmetic where it relies on it. */
    private static int signedOverflow(long value, long incr, int bits, int owtype, long[] limit) {
        long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        long min = -max - 1;
        long maxIncr = max - value;
        long minIncr = min - value;
        if (value > max || (bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr)) {
            if (owtype == WRAP) {
                limit[0] = wrapSigned(value, incr, bits);
            } else if (owtype == SAT) {
                limit[0] = max;
            }
            return 1;
        } else if (value < min || (bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr)) {
            if (owtype == WRAP) {
                limit[0] = wrapSigned(value, incr, bits);
            } else if (owtype == SAT) {
                limit[0] = min;
            }
            return -1;
        }
        return 0;
    }

    private static long wrapSigned(long value, long incr, int bits) {
        long c = value + incr;
        if (bits < 64) {
            long mask = -1L << bits;
            c = (c & (1L << (bits - 1))) != 0 ? c | mask : c & ~mask;
        }
        return c;
    }
}
