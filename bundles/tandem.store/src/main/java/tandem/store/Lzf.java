package tandem.store;

/**
 * LZF as Redis 7.0 uses it for the strings of an RDB payload ({@code lzf_c.c}, {@code lzf_d.c} with Redis's
 * {@code lzfP.h}: a 2^16-slot hash table, {@code VERY_FAST}). Compression follows liblzf's steps exactly, so that a
 * value compresses to Redis's bytes and {@code DUMP} answers as Redis does; the Java LZF libraries encode the same
 * format with other choices of match, hence this port. One difference is deliberate: liblzf does not clear its
 * hash table between calls, so Redis can, rarely, find a match through a stale slot that a cleared table does not;
 * both decode to the same value.
 *
 * <pre>
 * 000LLLLL &lt;L+1 octets&gt;          literal run of 1..32 octets
 * LLLooooo oooooooo                back reference of L+2 (3..8) octets, offset o+1 (1..8192) back
 * 111ooooo LLLLLLLL oooooooo       back reference of L+9 (9..264) octets
 * </pre>
 */
final class Lzf {

    private static final int HLOG = 16;
    private static final int HSIZE = 1 << HLOG;
    private static final int MAX_LIT = 1 << 5;
    private static final int MAX_OFF = 1 << 13;
    private static final int MAX_REF = (1 << 8) + (1 << 3);

    private Lzf() {
    }

    private static int idx(int h) {
        return ((h >>> (3 * 8 - HLOG)) - h * 5) & (HSIZE - 1);
    }

    /**
     * {@code lzf_compress(in, in.length, out, outLen)}.
     *
     * @return the compressed bytes, or null when they would not fit in {@code outLen} bytes
     */
    static byte[] compress(byte[] in, int outLen) {
        int inLen = in.length;
        if (inLen == 0 || outLen <= 0) {
            return null;
        }
        int[] htab = new int[HSIZE]; // positions + 1: 0 is an empty slot, as liblzf's null offset
        byte[] out = new byte[outLen + 4]; // the checks below keep every write before outLen, as liblzf's do
        int ip = 0;
        int op = 0;
        int lit = 0;
        op++; // start a run
        int hval = ((in[0] & 0xff) << 8) | (inLen > 1 ? in[1] & 0xff : 0);
        while (ip < inLen - 2) {
            hval = (hval << 8) | (in[ip + 2] & 0xff);
            int slot = idx(hval);
            int ref = htab[slot] - 1;
            htab[slot] = ip + 1;
            int off;
            if (ref > 0 && (off = ip - ref - 1) >= 0 && off < MAX_OFF
                    && in[ref + 2] == in[ip + 2] && in[ref] == in[ip] && in[ref + 1] == in[ip + 1]) {
                int len = 2;
                int maxlen = Math.min(inLen - ip - len, MAX_REF);
                if (op + 3 + 1 >= outLen && op - (lit == 0 ? 1 : 0) + 3 + 1 >= outLen) {
                    return null;
                }
                out[op - lit - 1] = (byte) (lit - 1); // stop the run
                op -= lit == 0 ? 1 : 0; // undo a run of length zero
                if (maxlen > 16) {
                    // liblzf compares sixteen octets unrolled before it looks at maxlen again
                    boolean stopped = false;
                    for (int k = 0; k < 16; k++) {
                        len++;
                        if (in[ref + len] != in[ip + len]) {
                            stopped = true;
                            break;
                        }
                    }
                    if (!stopped) {
                        do {
                            len++;
                        } while (len < maxlen && in[ref + len] == in[ip + len]);
                    }
                } else {
                    do {
                        len++;
                    } while (len < maxlen && in[ref + len] == in[ip + len]);
                }
                len -= 2; // octets - 2
                ip++;
                if (len < 7) {
                    out[op++] = (byte) ((off >> 8) + (len << 5));
                } else {
                    out[op++] = (byte) ((off >> 8) + (7 << 5));
                    out[op++] = (byte) (len - 7);
                }
                out[op++] = (byte) off;
                lit = 0;
                op++; // start a run
                ip += len + 1;
                if (ip >= inLen - 2) {
                    break;
                }
                ip -= 2; // VERY_FAST: hash the two positions before the next
                hval = ((in[ip] & 0xff) << 8) | (in[ip + 1] & 0xff);
                hval = (hval << 8) | (in[ip + 2] & 0xff);
                htab[idx(hval)] = ip + 1;
                ip++;
                hval = (hval << 8) | (in[ip + 2] & 0xff);
                htab[idx(hval)] = ip + 1;
                ip++;
            } else {
                if (op >= outLen) {
                    return null;
                }
                lit++;
                out[op++] = in[ip++];
                if (lit == MAX_LIT) {
                    out[op - lit - 1] = (byte) (lit - 1);
                    lit = 0;
                    op++;
                }
            }
        }
        if (op + 3 > outLen) {
            return null;
        }
        while (ip < inLen) {
            lit++;
            out[op++] = in[ip++];
            if (lit == MAX_LIT) {
                out[op - lit - 1] = (byte) (lit - 1);
                lit = 0;
                op++;
            }
        }
        out[op - lit - 1] = (byte) (lit - 1); // end the run
        op -= lit == 0 ? 1 : 0;
        byte[] result = new byte[op];
        System.arraycopy(out, 0, result, 0, op);
        return result;
    }

    /**
     * {@code lzf_decompress} into exactly {@code length} bytes.
     *
     * @return the bytes, or null when the input is malformed or does not decode to exactly {@code length} bytes
     */
    static byte[] decompress(byte[] in, int from, int to, int length) {
        byte[] out = new byte[length];
        int ip = from;
        int op = 0;
        while (ip < to) {
            int ctrl = in[ip++] & 0xff;
            if (ctrl < (1 << 5)) {
                ctrl++;
                if (op + ctrl > length || ip + ctrl > to) {
                    return null;
                }
                System.arraycopy(in, ip, out, op, ctrl);
                op += ctrl;
                ip += ctrl;
            } else {
                int len = ctrl >> 5;
                int ref = op - ((ctrl & 0x1f) << 8) - 1;
                if (ip >= to) {
                    return null;
                }
                if (len == 7) {
                    len += in[ip++] & 0xff;
                    if (ip >= to) {
                        return null;
                    }
                }
                ref -= in[ip++] & 0xff;
                len += 2;
                if (op + len > length || ref < 0) {
                    return null;
                }
                for (int k = 0; k < len; k++) {
                    out[op++] = out[ref++]; // byte by byte: the areas may overlap
                }
            }
        }
        return op == length ? out : null;
    }
}
