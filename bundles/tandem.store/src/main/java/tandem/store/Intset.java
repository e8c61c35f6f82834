package tandem.store;

import java.util.ArrayList;
import java.util.List;

/**
 * Redis's intset, the blob of a set of integers: {@code [encoding u32 LE: 2, 4 or 8][count u32 LE][values, LE,
 * ascending]}, each value in the encoding's width, the smallest that holds every member.
 */
final class Intset {

    private Intset() {
    }

    /** @param members integers ({@code string2ll}), distinct */
    static byte[] encode(List<byte[]> members) {
        long[] values = new long[members.size()];
        int width = 2;
        for (int i = 0; i < values.length; i++) {
            long v = Numbers.parseLong(members.get(i));
            values[i] = v;
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                width = 8;
            } else if ((v < Short.MIN_VALUE || v > Short.MAX_VALUE) && width < 4) {
                width = 4;
            }
        }
        java.util.Arrays.sort(values);
        byte[] b = new byte[8 + width * values.length];
        put(b, 0, width, 4);
        put(b, 4, values.length, 4);
        for (int i = 0; i < values.length; i++) {
            put(b, 8 + i * width, values[i], width);
        }
        return b;
    }

    private static void put(byte[] b, int at, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    /** @return the members as decimal text, or null unless {@code b} is a valid intset: its size, ascending */
    static List<byte[]> decode(byte[] b) {
        if (b.length < 8) {
            return null;
        }
        long width = Listpack.getLe(b, 0, 4);
        long count = Listpack.getLe(b, 4, 4);
        if (width != 2 && width != 4 && width != 8 || 8 + width * count != b.length) {
            return null;
        }
        List<byte[]> out = new ArrayList<>((int) count);
        long previous = 0;
        for (int i = 0; i < count; i++) {
            int w = (int) width;
            long v = Listpack.getLe(b, 8 + i * w, w);
            v = w == 8 ? v : (v << (64 - 8 * w)) >> (64 - 8 * w);
            if (i > 0 && v <= previous) {
                return null;
            }
            previous = v;
            out.add(Numbers.bytes(v));
        }
        return out;
    }
}
