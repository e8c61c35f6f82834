package tandem.store;

import java.util.Arrays;

/**
 * Redis 7.0's HyperLogLog ({@code hyperloglog.c}), byte for byte: the value is a plain string that Redis itself could
 * have written, so that GET, DUMP, SET and RESTORE move it between Tandem and Redis unchanged.
 *
 * <h2>Layout</h2>
 * A 16-byte header, then the registers:
 * <pre>
 * offset  0   1   2   3   4     5   6   7   8 ............ 15  16 ...
 *       +---+---+---+---+-----+---+---+---+-----------------+------------------------+
 *       | H | Y | L | L | enc | 0 | 0 | 0 | cardinality     | registers              |
 *       +---+---+---+---+-----+---+---+---+-----------------+------------------------+
 *                         0 dense           u64 little-endian; its top bit (bit 7 of
 *                         1 sparse          byte 15) set: stale, to be computed again
 * </pre>
 * <b>Dense</b> ({@code enc} 0): exactly {@value #DENSE_SIZE} bytes, 16,384 registers of 6 bits packed from the
 * least significant bit of each byte up, register {@code i} starting at bit {@code 6i}:
 * <pre>
 * byte   16        17        18
 *      +--------+--------+--------+----
 *      |11000000|22221111|33333322| ...   (bit 7 on the left; digit = register number)
 *      +--------+--------+--------+----
 * </pre>
 * <b>Sparse</b> ({@code enc} 1): the registers run-length coded, in register order, by three opcodes:
 * <pre>
 * ZERO   00xxxxxx            xxxxxx + 1 registers (1..64) at 0
 * XZERO  01xxxxxx yyyyyyyy   xxxxxxyyyyyyyy + 1 registers (1..16384) at 0
 * VAL    1vvvvvxx            xx + 1 registers (1..4) at vvvvv + 1 (1..32)
 * </pre>
 * An empty HLL is the header and {@code XZERO:16384} ({@code 7f ff}), 18 bytes. A sparse value grows past
 * {@value #SPARSE_MAX_BYTES} bytes ({@code hll-sparse-max-bytes}), or needs a register above 32, only as a dense one.
 *
 * <p>A sparse value is well formed when its opcodes cover exactly 16,384 registers. Reading one whole (a count, a
 * merge, a promotion to dense) finds it corrupt at the first opcode that runs past the last register: the checks of
 * Redis 7.0.15 as distributions ship it, with the fix for CVE-2025-32023, which the transcripts were recorded from
 * (the 7.0.15 tag let a VAL run past the end once 16,384 registers were covered, and ZERO runs past it write out of
 * bounds). Raising one register (PFADD) reads the opcodes only up to the one that covers it, as in Redis.
 *
 * <p>An element is hashed with MurmurHash64A (seed {@code 0xadc83b19}); the low {@value #P} bits pick the register,
 * and one plus the number of trailing zeros of the other 50 bits (bit 50 forced on) is the register's candidate. The
 * cardinality is the estimator of Ertl, "New cardinality estimation algorithms for HyperLogLog sketches" (arXiv
 * 1702.01284), Redis's {@code hllCount} with {@code hllSigma} and {@code hllTau}.
 *
 * <p>An instance is a value being worked on, as Redis works on the sds in place: the bytes past {@link #len} are
 * room, and the byte at {@code len} reads 0 as the sds terminator does (a register or opcode that runs over the end
 * of a value reads it, as in C).
 */
final class Hll {

    /** Offset of {@code "HYLL"}. */
    static final int MAGIC = 0;
    /** Offset of the encoding byte: {@link #DENSE} or {@link #SPARSE}. */
    static final int ENCODING = 4;
    /** Offset of the cached cardinality, u64 little-endian. */
    static final int CARDINALITY = 8;
    /** Offset of the cache's validity byte: its top bit set means stale. */
    static final int CARDINALITY_TOP = 15;
    static final int HEADER = 16;

    static final int P = 14;
    static final int Q = 64 - P;
    static final int REGISTERS = 1 << P;
    static final int BITS = 6;
    static final int REGISTER_MAX = (1 << BITS) - 1;
    static final int DENSE_SIZE = HEADER + (REGISTERS * BITS + 7) / 8;
    static final int DENSE = 0;
    static final int SPARSE = 1;
    /** Redis's default {@code hll-sparse-max-bytes}: a constant, so that every node promotes alike. */
    static final int SPARSE_MAX_BYTES = 3000;

    private static final int VAL_MAX_VALUE = 32;
    private static final int VAL_MAX_LEN = 4;
    private static final int ZERO_MAX_LEN = 64;
    private static final long SEED = 0xadc83b19L;
    /** {@code 0.5/ln(2)}. */
    private static final double ALPHA_INF = 0.721347520444481703680;

    private byte[] b;
    private int len;

    private Hll(byte[] b, int len) {
        this.b = b;
        this.len = len;
    }

    /** {@code createHLLObject}: sparse, every register 0, the cache valid at 0. */
    static Hll create() {
        Hll h = new Hll(new byte[HEADER + 2 + 8], HEADER + 2);
        h.b[0] = 'H';
        h.b[1] = 'Y';
        h.b[2] = 'L';
        h.b[3] = 'L';
        h.b[ENCODING] = SPARSE;
        h.xzero(HEADER, REGISTERS);
        return h;
    }

    /** A stored value to work on (a copy). */
    static Hll of(byte[] value) {
        return new Hll(Arrays.copyOf(value, value.length + 8), value.length);
    }

    /**
     * The checks of {@code isHLLObjectOrReply} once the value is known to be a string: at least a header, the
     * magic, a known encoding, and a dense value of exactly its size. A sparse body is only checked as it is read.
     */
    static boolean isValid(byte[] v) {
        if (v.length < HEADER || v[0] != 'H' || v[1] != 'Y' || v[2] != 'L' || v[3] != 'L') {
            return false;
        }
        int encoding = v[ENCODING] & 0xff;
        return encoding <= SPARSE && (encoding != DENSE || v.length == DENSE_SIZE);
    }

    byte[] bytes() {
        return Arrays.copyOf(b, len);
    }

    boolean isDense() {
        return b[ENCODING] == DENSE;
    }

    boolean cacheValid() {
        return (b[CARDINALITY_TOP] & 0x80) == 0;
    }

    long cachedCardinality() {
        long card = 0;
        for (int i = 7; i >= 0; i--) {
            card = (card << 8) | (b[CARDINALITY + i] & 0xff);
        }
        return card;
    }

    /** {@code HLL_INVALIDATE_CACHE}: the other seven bytes keep the last count, as in Redis. */
    void invalidateCache() {
        b[CARDINALITY_TOP] |= (byte) 0x80;
    }

    /** The byte at {@code i}, or the terminator's 0 at and past the end. */
    private int at(int i) {
        return i < len ? b[i] & 0xff : 0;
    }

    // ---------------------------------------------------------------- hashing

    /** MurmurHash2, 64-bit version A, reading 8-byte blocks little-endian as Redis does on every architecture. */
    static long murmur64a(byte[] key, long seed) {
        final long m = 0xc6a4a7935bd1e995L;
        final int r = 47;
        int n = key.length;
        long h = seed ^ (n * m);
        int blocks = n - (n & 7);
        for (int i = 0; i < blocks; i += 8) {
            long k = 0;
            for (int j = 7; j >= 0; j--) {
                k = (k << 8) | (key[i + j] & 0xff);
            }
            k *= m;
            k ^= k >>> r;
            k *= m;
            h ^= k;
            h *= m;
        }
        int tail = n & 7;
        if (tail > 0) {
            for (int j = tail - 1; j >= 0; j--) {
                h ^= (long) (key[blocks + j] & 0xff) << (8 * j);
            }
            h *= m;
        }
        h ^= h >>> r;
        h *= m;
        h ^= h >>> r;
        return h;
    }

    /**
     * {@code hllPatLen}: the register an element falls in (low 32 bits) and its run of zeros plus one (high 32
     * bits, 1..51).
     */
    static long patLen(byte[] element) {
        long hash = murmur64a(element, SEED);
        long index = hash & (REGISTERS - 1);
        hash >>>= P;
        hash |= 1L << Q; // the loop in C stops there at the latest
        long count = Long.numberOfTrailingZeros(hash) + 1;
        return count << 32 | index;
    }

    // ---------------------------------------------------------------- dense registers

    private static int denseGet(byte[] r, int base, int limit, int index) {
        int at = base + index * BITS / 8;
        int fb = index * BITS & 7;
        int b0 = r[at] & 0xff;
        int b1 = at + 1 < limit ? r[at + 1] & 0xff : 0;
        return ((b0 >>> fb) | (b1 << (8 - fb))) & REGISTER_MAX;
    }

    private static void denseSet(byte[] r, int base, int index, int value) {
        int at = base + index * BITS / 8;
        int fb = index * BITS & 7;
        int fb8 = 8 - fb;
        r[at] = (byte) ((r[at] & ~(REGISTER_MAX << fb)) | (value << fb));
        // the last register's second byte is the terminator, whose bits it never sets
        if (at + 1 < r.length) {
            r[at + 1] = (byte) ((r[at + 1] & ~(REGISTER_MAX >>> fb8)) | (value >>> fb8));
        }
    }

    /** {@code hllDenseSet}: 1 when the register grew. */
    private int denseRaise(int index, int count) {
        if (count > denseGet(b, HEADER, len, index)) {
            denseSet(b, HEADER, index, count);
            return 1;
        }
        return 0;
    }

    // ---------------------------------------------------------------- sparse opcodes

    private static boolean isZero(int op) {
        return (op & 0xc0) == 0;
    }

    private static boolean isXzero(int op) {
        return (op & 0xc0) == 0x40;
    }

    private static boolean isVal(int op) {
        return (op & 0x80) != 0;
    }

    private static int zeroLen(int op) {
        return (op & 0x3f) + 1;
    }

    private static int xzeroLen(int op, int next) {
        return ((op & 0x3f) << 8 | next) + 1;
    }

    private static int valValue(int op) {
        return ((op >>> 2) & 0x1f) + 1;
    }

    private static int valLen(int op) {
        return (op & 0x3) + 1;
    }

    private static byte val(int value, int length) {
        return (byte) (((value - 1) << 2 | (length - 1)) | 0x80);
    }

    private void xzero(int at, int length) {
        int l = length - 1;
        b[at] = (byte) ((l >>> 8) | 0x40);
        b[at + 1] = (byte) l;
    }

    /** Room for {@code extra} more bytes and the terminator, as {@code sdsMakeRoomFor}. */
    private void room(int extra) {
        if (b.length < len + extra + 8) {
            b = Arrays.copyOf(b, Math.max(len + extra + 8, b.length * 2));
        }
    }

    /** {@code sdsIncrLen}: the new end holds the terminator. */
    private void grow(int delta) {
        len += delta;
        b[len] = 0;
    }

    /**
     * {@code hllSparseToDense}: false (nothing changed) unless the opcodes cover exactly 16,384 registers. The header
     * is kept, cache included.
     */
    boolean toDense() {
        if (b[ENCODING] == DENSE) {
            return true;
        }
        byte[] dense = new byte[DENSE_SIZE + 1];
        System.arraycopy(b, 0, dense, 0, HEADER);
        dense[ENCODING] = DENSE;
        int idx = 0;
        for (int p = HEADER; p < len; p += opLength(p)) {
            int op = at(p);
            int runlen = runLength(p);
            if (runlen > REGISTERS - idx) {
                return false;
            }
            if (isVal(op)) {
                for (int j = 0; j < runlen; j++) {
                    denseSet(dense, HEADER, idx + j, valValue(op));
                }
            }
            idx += runlen;
        }
        if (idx != REGISTERS) {
            return false;
        }
        b = dense;
        len = DENSE_SIZE;
        return true;
    }

    /** The bytes of the opcode at {@code p}. */
    private int opLength(int p) {
        return isXzero(at(p)) ? 2 : 1;
    }

    /** The registers the opcode at {@code p} covers. */
    private int runLength(int p) {
        int op = at(p);
        return isZero(op) ? zeroLen(op) : isXzero(op) ? xzeroLen(op, at(p + 1)) : valLen(op);
    }

    /**
     * {@code hllSparseSet}: raises register {@code index} to {@code count} if it is lower, splitting the opcode that
     * covers it and merging equal neighbours after; promotes to dense when the value would not fit the sparse form.
     *
     * @return 1 when the register grew, 0 when it did not, -1 when the opcodes are corrupt
     */
    private int sparseSet(int index, int count) {
        if (count > VAL_MAX_VALUE) {
            return promote(index, count);
        }
        room(3);
        int sparse = HEADER;
        int p = HEADER;
        int end = len;
        long first = 0;
        long span = 0;
        int prev = -1;
        while (p < end) {
            int oplen = 1;
            int op = at(p);
            if (isZero(op)) {
                span = zeroLen(op);
            } else if (isVal(op)) {
                span = valLen(op);
            } else {
                span = xzeroLen(op, at(p + 1));
                oplen = 2;
            }
            if (index <= first + span - 1) {
                break;
            }
            prev = p;
            p += oplen;
            first += span;
        }
        if (span == 0 || p >= end) {
            return -1;
        }
        int op = at(p);
        int next = isXzero(op) ? p + 2 : p + 1;
        if (next >= end) {
            next = -1;
        }
        boolean zero = isZero(op);
        boolean xzero = isXzero(op);
        boolean isVal = !zero && !xzero;
        int runlen = zero ? zeroLen(op) : xzero ? xzeroLen(op, at(p + 1)) : valLen(op);

        boolean updated = false;
        if (isVal) {
            if (valValue(op) >= count) {
                return 0;
            }
            if (runlen == 1) {
                b[p] = val(count, 1);
                updated = true;
            }
        }
        if (!updated && zero && runlen == 1) {
            b[p] = val(count, 1);
            updated = true;
        }
        if (!updated) {
            // the general case: the opcode is split in up to three (XZERO-VAL-XZERO at worst, 5 bytes)
            byte[] seq = new byte[5];
            int n = 0;
            int last = (int) (first + span - 1);
            if (zero || xzero) {
                if (index != first) {
                    n = zeros(seq, n, (int) (index - first));
                }
                seq[n++] = val(count, 1);
                if (index != last) {
                    n = zeros(seq, n, last - index);
                }
            } else {
                int curval = valValue(op);
                if (index != first) {
                    seq[n++] = val(curval, (int) (index - first));
                }
                seq[n++] = val(count, 1);
                if (index != last) {
                    seq[n++] = val(curval, last - index);
                }
            }
            int oldlen = xzero ? 2 : 1;
            int delta = n - oldlen;
            if (delta > 0 && len + delta > SPARSE_MAX_BYTES) {
                return promote(index, count);
            }
            if (delta != 0 && next >= 0) {
                System.arraycopy(b, next, b, next + delta, end - next);
            }
            grow(delta);
            System.arraycopy(seq, 0, b, p, n);
            end += delta;
        }

        // merge adjacent VALs of one value, scanning up to five opcodes from the one before the change
        p = prev >= 0 ? prev : sparse;
        int scanlen = 5;
        while (p < end && scanlen-- != 0) {
            int o = at(p);
            if (isXzero(o)) {
                p += 2;
                continue;
            } else if (isZero(o)) {
                p++;
                continue;
            }
            if (p + 1 < end && isVal(at(p + 1))) {
                int v1 = valValue(o);
                int v2 = valValue(at(p + 1));
                if (v1 == v2) {
                    int l = valLen(o) + valLen(at(p + 1));
                    if (l <= VAL_MAX_LEN) {
                        b[p + 1] = val(v1, l);
                        System.arraycopy(b, p + 1, b, p, end - p);
                        grow(-1);
                        end--;
                        continue; // the merged opcode may merge with the next one too
                    }
                }
            }
            p++;
        }
        invalidateCache();
        return 1;
    }

    /** Writes a run of {@code length} zero registers, ZERO up to 64, XZERO above; returns the new position. */
    private static int zeros(byte[] seq, int n, int length) {
        if (length > ZERO_MAX_LEN) {
            int l = length - 1;
            seq[n] = (byte) ((l >>> 8) | 0x40);
            seq[n + 1] = (byte) l;
            return n + 2;
        }
        seq[n] = (byte) (length - 1);
        return n + 1;
    }

    private int promote(int index, int count) {
        if (!toDense()) {
            return -1;
        }
        denseRaise(index, count); // always 1: the register needed to grow
        return 1;
    }

    /**
     * {@code hllAdd}.
     *
     * @return 1 when a register grew, 0 when none did, -1 when the sparse opcodes are corrupt
     */
    int add(byte[] element) {
        long pat = patLen(element);
        int index = (int) pat;
        int count = (int) (pat >>> 32);
        return isDense() ? denseRaise(index, count) : sparseSet(index, count);
    }

    /** Raises register {@code index} to {@code count} (PFMERGE's writes; a corrupt sparse value is left as it is). */
    void raise(int index, int count) {
        if (isDense()) {
            denseRaise(index, count);
        } else {
            sparseSet(index, count);
        }
    }

    /**
     * {@code hllMerge}: {@code max[i] = max(max[i], register i)}.
     *
     * @return false unless the sparse opcodes cover exactly 16,384 registers ({@code max} may be half done then)
     */
    boolean mergeInto(byte[] max) {
        if (isDense()) {
            for (int i = 0; i < REGISTERS; i++) {
                int v = denseGet(b, HEADER, len, i);
                if (v > max[i]) {
                    max[i] = (byte) v;
                }
            }
            return true;
        }
        int i = 0;
        for (int p = HEADER; p < len; p += opLength(p)) {
            int op = at(p);
            int runlen = runLength(p);
            if (runlen > REGISTERS - i) {
                return false;
            }
            if (isVal(op)) {
                int regval = valValue(op);
                for (int j = i; j < i + runlen; j++) {
                    if (regval > max[j]) {
                        max[j] = (byte) regval;
                    }
                }
            }
            i += runlen;
        }
        return i == REGISTERS;
    }

    // ---------------------------------------------------------------- cardinality

    /**
     * {@code hllCount} of this value: the estimate (negative where C's {@code llroundl} overflows, as Redis replies
     * it), or null when its sparse opcodes are corrupt.
     */
    Long count() {
        int[] histogram = new int[64];
        if (isDense()) {
            for (int j = 0; j < REGISTERS; j++) {
                histogram[denseGet(b, HEADER, len, j)]++;
            }
        } else {
            int idx = 0;
            for (int p = HEADER; p < len; p += opLength(p)) {
                int op = at(p);
                int runlen = runLength(p);
                if (runlen > REGISTERS - idx) {
                    return null;
                }
                histogram[isVal(op) ? valValue(op) : 0] += runlen;
                idx += runlen;
            }
            if (idx != REGISTERS) {
                return null;
            }
        }
        return estimate(histogram);
    }

    /** {@code hllCount} of registers one per byte (PFCOUNT of several keys: Redis's internal raw encoding). */
    static long countRegisters(byte[] registers) {
        int[] histogram = new int[64];
        for (byte r : registers) {
            histogram[r]++;
        }
        return estimate(histogram);
    }

    /** Ertl's improved raw estimator from the register histogram, rounded half away from zero ({@code llroundl}). */
    private static long estimate(int[] histogram) {
        double m = REGISTERS;
        double z = m * tau((m - histogram[Q + 1]) / m);
        for (int j = Q; j >= 1; --j) {
            z += histogram[j];
            z *= 0.5;
        }
        z += m * sigma(histogram[0] / m);
        double e = ALPHA_INF * m * m / z;
        if (Double.isNaN(e) || e >= 0x1p63) {
            // every register at 51 makes z 0: llroundl of infinity is x86's "integer indefinite", LLONG_MIN
            return Long.MIN_VALUE;
        }
        return Math.round(e); // never negative: half up is half away from zero
    }

    private static double sigma(double x) {
        if (x == 1.) {
            return Double.POSITIVE_INFINITY;
        }
        double zPrime;
        double y = 1;
        double z = x;
        do {
            x *= x;
            zPrime = z;
            z += x * y;
            y += y;
        } while (zPrime != z);
        return z;
    }

    private static double tau(double x) {
        if (x == 0. || x == 1.) {
            return 0.;
        }
        double zPrime;
        double y = 1.0;
        double z = 1 - x;
        do {
            x = StrictMath.sqrt(x);
            zPrime = z;
            y *= 0.5;
            double d = 1 - x;
            z -= d * d * y; // C's pow(d, 2)
        } while (zPrime != z);
        return z / 3;
    }
}
