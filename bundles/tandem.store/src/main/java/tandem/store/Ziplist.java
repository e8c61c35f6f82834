package tandem.store;

import java.util.ArrayList;
import java.util.List;

/**
 * Redis's ziplist, read only: the blob of a small list, hash or sorted set in the payloads of Redis before 7.0,
 * which {@code RESTORE} still takes.
 *
 * <pre>
 * [total bytes u32 LE][offset of the last entry u32 LE][entry count u16 LE, 65535: count them] entry… [0xFF]
 * entry: [previous entry's size: 1 byte &lt; 254, or 0xFE u32 LE][encoding][data]
 *   00LLLLLL | 01LLLLLL LLLLLLLL (BE) | 0x80 len u32 BE     string of that length
 *   0xC0 i16 | 0xD0 i32 | 0xE0 i64 | 0xF0 i24 | 0xFE i8    integers, little-endian
 *   0xF1..0xFD                                            the integers 0..12
 * </pre>
 */
final class Ziplist {

    private static final int HEADER = 10;

    private Ziplist() {
    }

    /** @return every element, integers as decimal text, or null when {@code zl} is not a valid ziplist */
    static List<byte[]> decode(byte[] zl) {
        if (zl.length < HEADER + 1 || Listpack.getLe(zl, 0, 4) != zl.length || (zl[zl.length - 1] & 0xff) != 0xff) {
            return null;
        }
        long tail = Listpack.getLe(zl, 4, 4);
        int declared = (int) Listpack.getLe(zl, 8, 2);
        int end = zl.length - 1;
        List<byte[]> out = new ArrayList<>();
        int p = HEADER;
        int previousSize = 0;
        int last = HEADER;
        while (p < end) {
            int start = p;
            int prevlen;
            if ((zl[p] & 0xff) < 254) {
                prevlen = zl[p] & 0xff;
                p += 1;
            } else if ((zl[p] & 0xff) == 254 && p + 5 <= end) {
                long v = Listpack.getLe(zl, p + 1, 4);
                if (v > Integer.MAX_VALUE) {
                    return null;
                }
                prevlen = (int) v;
                p += 5;
            } else {
                return null;
            }
            if (prevlen != previousSize || p >= end) {
                return null;
            }
            int b = zl[p] & 0xff;
            byte[] element;
            switch (b >> 6) {
                case 0 -> {
                    int n = b & 0x3f;
                    element = string(zl, p + 1, n, end);
                    p += 1 + n;
                }
                case 1 -> {
                    if (p + 2 > end) {
                        return null;
                    }
                    int n = ((b & 0x3f) << 8) | (zl[p + 1] & 0xff);
                    element = string(zl, p + 2, n, end);
                    p += 2 + n;
                }
                case 2 -> {
                    if (b != 0x80 || p + 5 > end) {
                        return null;
                    }
                    long n = 0;
                    for (int i = 1; i <= 4; i++) {
                        n = (n << 8) | (zl[p + i] & 0xff);
                    }
                    if (n > end) {
                        return null;
                    }
                    element = string(zl, p + 5, (int) n, end);
                    p += 5 + (int) n;
                }
                default -> {
                    int bytes = switch (b) {
                        case 0xc0 -> 2;
                        case 0xd0 -> 4;
                        case 0xe0 -> 8;
                        case 0xf0 -> 3;
                        case 0xfe -> 1;
                        default -> b >= 0xf1 && b <= 0xfd ? 0 : -1;
                    };
                    if (bytes < 0 || p + 1 + bytes > end) {
                        return null;
                    }
                    long v;
                    if (bytes == 0) {
                        v = (b & 0x0f) - 1;
                    } else {
                        v = Listpack.getLe(zl, p + 1, bytes);
                        v = (v << (64 - 8 * bytes)) >> (64 - 8 * bytes);
                    }
                    element = Numbers.bytes(v);
                    p += 1 + bytes;
                }
            }
            if (element == null) {
                return null;
            }
            out.add(element);
            previousSize = p - start;
            last = start;
        }
        boolean countOk = declared == 65535 ? out.size() >= 65535 : declared == out.size();
        if (p != end || !countOk || tail != (out.isEmpty() ? HEADER : last)) {
            return null;
        }
        return out;
    }

    private static byte[] string(byte[] zl, int at, int n, int end) {
        return at + (long) n > end ? null : Listpack.slice(zl, at, n);
    }
}
