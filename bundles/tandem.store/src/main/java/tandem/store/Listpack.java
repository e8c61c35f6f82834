package tandem.store;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis 7.0's listpack, the blob a small hash, sorted set or list node is kept in and dumped as.
 *
 * <pre>
 * [total bytes u32 LE][element count u16 LE, 65535: count them] element… [0xFF]
 * element: [encoding + data][back-length: the size of encoding + data, 1..5 bytes, read right to left]
 *   0xxxxxxx                         integer 0..127
 *   10LLLLLL data                    string of 0..63 bytes
 *   110xxxxx xxxxxxxx                integer -4096..4095 (13 bits, two's complement)
 *   1110LLLL LLLLLLLL data           string of 64..4095 bytes
 *   0xF0 len u32 LE data             longer string
 *   0xF1 i16 LE | 0xF2 i24 LE | 0xF3 i32 LE | 0xF4 i64 LE
 * </pre>
 * A string that {@code lpStringToInt64} reads as an integer is stored as one, in its smallest encoding.
 */
final class Listpack {

    private static final int HEADER = 6;
    private static final int END = 0xff;
    private static final int COUNT_UNKNOWN = 65535;

    private Listpack() {
    }

    /** Builds a listpack of {@code elements}, in order. */
    static byte[] encode(List<byte[]> elements) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[HEADER]);
        for (byte[] e : elements) {
            append(out, e);
        }
        out.write(END);
        byte[] lp = out.toByteArray();
        putLe(lp, 0, lp.length, 4);
        putLe(lp, 4, Math.min(elements.size(), COUNT_UNKNOWN), 2);
        return lp;
    }

    /** The size of {@code element}'s entry, back-length included: what it adds to a listpack. */
    static int entrySize(byte[] element) {
        int size = encodedSize(element);
        return size + backlenSize(size);
    }

    private static int encodedSize(byte[] e) {
        if (Numbers.isLong(e)) {
            long v = Numbers.parseLong(e);
            return v >= 0 && v <= 127 ? 1 : v >= -4096 && v <= 4095 ? 2 : v >= -32768 && v <= 32767 ? 3
                    : v >= -8388608 && v <= 8388607 ? 4 : v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? 5 : 9;
        }
        int n = e.length;
        return (n < 64 ? 1 : n < 4096 ? 2 : 5) + n;
    }

    private static int backlenSize(long l) {
        return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
    }

    private static void append(ByteArrayOutputStream out, byte[] e) {
        int start = out.size();
        if (Numbers.isLong(e)) {
            long v = Numbers.parseLong(e);
            if (v >= 0 && v <= 127) {
                out.write((int) v);
            } else if (v >= -4096 && v <= 4095) {
                long u = v < 0 ? (1L << 13) + v : v;
                out.write((int) ((u >> 8) | 0xc0));
                out.write((int) (u & 0xff));
            } else if (v >= -32768 && v <= 32767) {
                out.write(0xf1);
                writeLe(out, v, 2);
            } else if (v >= -8388608 && v <= 8388607) {
                out.write(0xf2);
                writeLe(out, v, 3);
            } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                out.write(0xf3);
                writeLe(out, v, 4);
            } else {
                out.write(0xf4);
                writeLe(out, v, 8);
            }
        } else {
            int n = e.length;
            if (n < 64) {
                out.write(0x80 | n);
            } else if (n < 4096) {
                out.write((n >> 8) | 0xe0);
                out.write(n & 0xff);
            } else {
                out.write(0xf0);
                writeLe(out, n, 4);
            }
            out.writeBytes(e);
        }
        long l = out.size() - start;
        // lpEncodeBacklen: the size in 7-bit groups, most significant first, every group but the first marked
        int groups = backlenSize(l);
        for (int g = groups - 1; g >= 0; g--) {
            int bits = (int) ((l >> (7 * g)) & 127);
            out.write(g == groups - 1 ? bits : bits | 128);
        }
    }

    private static void writeLe(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
    }

    private static void putLe(byte[] b, int at, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    /**
     * Every element of {@code lp}, integers as their decimal text, after checking the whole blob as Redis's deep
     * sanitization does: the header's size and count, each entry's encoding and bounds, each back-length, the end.
     *
     * @return the elements, or null when the blob is not a valid listpack
     */
    static List<byte[]> decode(byte[] lp) {
        if (lp.length < HEADER + 1 || getLe(lp, 0, 4) != lp.length || (lp[lp.length - 1] & 0xff) != END) {
            return null;
        }
        int declared = (int) getLe(lp, 4, 2);
        List<byte[]> out = new ArrayList<>();
        int p = HEADER;
        int end = lp.length - 1;
        while (p < end) {
            int start = p;
            int b = lp[p] & 0xff;
            byte[] element;
            if ((b & 0x80) == 0) {
                element = Numbers.bytes(b);
                p += 1;
            } else if ((b & 0xc0) == 0x80) {
                int n = b & 0x3f;
                if (p + 1 + n > end) {
                    return null;
                }
                element = slice(lp, p + 1, n);
                p += 1 + n;
            } else if ((b & 0xe0) == 0xc0) {
                if (p + 2 > end) {
                    return null;
                }
                long u = ((b & 0x1f) << 8) | (lp[p + 1] & 0xff);
                element = Numbers.bytes(u >= 1 << 12 ? u - (1 << 13) : u);
                p += 2;
            } else if ((b & 0xf0) == 0xe0) {
                if (p + 2 > end) {
                    return null;
                }
                int n = ((b & 0x0f) << 8) | (lp[p + 1] & 0xff);
                if (p + 2 + n > end) {
                    return null;
                }
                element = slice(lp, p + 2, n);
                p += 2 + n;
            } else if (b == 0xf0) {
                if (p + 5 > end) {
                    return null;
                }
                long n = getLe(lp, p + 1, 4);
                if (p + 5 + n > end) {
                    return null;
                }
                element = slice(lp, p + 5, (int) n);
                p += 5 + (int) n;
            } else if (b >= 0xf1 && b <= 0xf4) {
                int bytes = b == 0xf1 ? 2 : b == 0xf2 ? 3 : b == 0xf3 ? 4 : 8;
                if (p + 1 + bytes > end) {
                    return null;
                }
                long v = getLe(lp, p + 1, bytes);
                if (bytes < 8) {
                    v = (v << (64 - 8 * bytes)) >> (64 - 8 * bytes); // sign-extend
                }
                element = Numbers.bytes(v);
                p += 1 + bytes;
            } else {
                return null; // 0xf5..0xfe are not encodings, 0xff ends the listpack
            }
            long l = p - start;
            int groups = backlenSize(l);
            if (p + groups > end) {
                return null;
            }
            for (int g = groups - 1; g >= 0; g--) {
                int bits = (int) ((l >> (7 * g)) & 127);
                if ((lp[p++] & 0xff) != (g == groups - 1 ? bits : bits | 128)) {
                    return null;
                }
            }
            out.add(element);
        }
        if (p != end || declared != COUNT_UNKNOWN && declared != out.size()
                || declared == COUNT_UNKNOWN && out.size() < COUNT_UNKNOWN) {
            return null;
        }
        return out;
    }

    static long getLe(byte[] b, int at, int bytes) {
        long v = 0;
        for (int i = bytes - 1; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }

    static byte[] slice(byte[] b, int at, int n) {
        byte[] s = new byte[n];
        System.arraycopy(b, at, s, 0, n);
        return s;
    }
}
