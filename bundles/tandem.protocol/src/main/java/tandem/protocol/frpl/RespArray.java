package tandem.protocol.frpl;

import java.nio.ByteBuffer;
import java.util.Arrays;

import tandem.protocol.command.CommandPayload;

/**
 * One canonical RESP2 array of bulk strings, read in place from a buffer: where the array ends and where each of its
 * elements lies, so that a command can be measured, sliced or wrapped without being decoded into arrays.
 *
 * <pre>
 * *N\r\n ( $len\r\n bytes[len] \r\n ){N}          N &gt;= 1, every number canonical: digits, no sign, no leading zero
 * </pre>
 *
 * Every length is checked against the bytes that remain before it is used, and the element table grows only with
 * elements actually found. Indexes are absolute indexes of the buffer; its position and limit are left alone.
 * The static methods walk an array without recording it. Not thread-safe; reusable.
 */
public final class RespArray {

    private ByteBuffer buffer;
    private int end;
    private int count;
    private int[] elements = new int[16];
    private int[] lengths = new int[16];

    /**
     * Reads the array that starts at {@code from}, reading nothing at or beyond {@code limit}.
     *
     * @return this, describing it
     * @throws IllegalArgumentException when no canonical array of bulk strings starts there, naming the index where
     *                                  it breaks
     */
    public RespArray read(ByteBuffer buffer, int from, int limit) {
        long n = count(buffer, from, limit);
        int at = from + headerLength(n);
        count = 0;
        for (long i = 0; i < n; i++) {
            if (count == elements.length) {
                elements = Arrays.copyOf(elements, count * 2);
                lengths = Arrays.copyOf(lengths, count * 2);
            }
            int length = bulkLength(buffer, at, limit);
            elements[count] = at;
            lengths[count] = length;
            count++;
            at += bulkHeaderLength(length) + length + 2;
        }
        this.buffer = buffer;
        this.end = at;
        return this;
    }

    /** @return the index just past the array's last element */
    public int end() {
        return end;
    }

    /** @return the number of elements */
    public int count() {
        return count;
    }

    /** @return the index of element {@code i}'s {@code $}: the element as it is on the wire starts there */
    public int elementStart(int i) {
        return elements[i];
    }

    /** @return the index of element {@code i}'s first byte */
    public int start(int i) {
        return elements[i] + bulkHeaderLength(lengths[i]);
    }

    /** @return element {@code i}'s length in bytes */
    public int length(int i) {
        return lengths[i];
    }

    /** @return a copy of element {@code i} */
    public byte[] element(int i) {
        byte[] out = new byte[lengths[i]];
        buffer.get(start(i), out);
        return out;
    }

    /** @return whether element {@code i} is {@code upperCase} (ASCII letters, digits, punctuation), in any case */
    public boolean is(int i, byte[] upperCase) {
        if (lengths[i] != upperCase.length) {
            return false;
        }
        int at = start(i);
        for (int k = 0; k < upperCase.length; k++) {
            int b = buffer.get(at + k);
            if (b >= 'a' && b <= 'z') {
                b -= 'a' - 'A';
            }
            if (b != upperCase[k]) {
                return false;
            }
        }
        return true;
    }

    /** @return the length of {@code *<count>\r\n} */
    public static int headerLength(long count) {
        return 1 + CommandPayload.digits(count) + 2;
    }

    /** @return the length of {@code $<length>\r\n} */
    public static int bulkHeaderLength(long length) {
        return 1 + CommandPayload.digits(length) + 2;
    }

    /**
     * @return the element count of the array whose {@code *} is at {@code at}
     * @throws IllegalArgumentException when no array header starts there, or it announces no element
     */
    public static long count(ByteBuffer p, int at, int limit) {
        if (at >= limit || p.get(at) != '*') {
            throw new IllegalArgumentException("expected '*' at offset " + at);
        }
        long count = decimal(p, at + 1, limit);
        if (count < 1) {
            throw new IllegalArgumentException("empty array at offset " + at);
        }
        return count;
    }

    /**
     * @return the index just past the array that starts at {@code at}, every element checked
     * @throws IllegalArgumentException when it is not a canonical array of bulk strings within {@code limit}
     */
    public static int end(ByteBuffer p, int at, int limit) {
        long n = count(p, at, limit);
        int i = at + headerLength(n);
        for (long k = 0; k < n; k++) {
            int length = bulkLength(p, i, limit);
            i += bulkHeaderLength(length) + length + 2;
        }
        return i;
    }

    /** The length of the bulk string whose {@code $} is at {@code at}, checked to end with CRLF within limit. */
    private static int bulkLength(ByteBuffer p, int at, int limit) {
        if (at >= limit || p.get(at) != '$') {
            throw new IllegalArgumentException("expected '$' at offset " + at);
        }
        long len = decimal(p, at + 1, limit);
        int data = at + bulkHeaderLength(len);
        if (len > limit - data - 2L || p.get(data + (int) len) != '\r' || p.get(data + (int) len + 1) != '\n') {
            throw new IllegalArgumentException("bulk string of " + len + " bytes overruns the payload at offset "
                    + data);
        }
        return (int) len;
    }

    /** A canonical decimal at {@code at} followed by CRLF. */
    static long decimal(ByteBuffer p, int at, int limit) {
        int i = at;
        long value = 0;
        while (i < limit && p.get(i) >= '0' && p.get(i) <= '9') {
            if (i - at >= 10) {
                throw new IllegalArgumentException("number too long at offset " + at);
            }
            value = value * 10 + (p.get(i) - '0');
            i++;
        }
        if (i == at || (i - at > 1 && p.get(at) == '0') || i + 1 >= limit || p.get(i) != '\r'
                || p.get(i + 1) != '\n') {
            throw new IllegalArgumentException("not a canonical decimal at offset " + at);
        }
        return value;
    }
}
