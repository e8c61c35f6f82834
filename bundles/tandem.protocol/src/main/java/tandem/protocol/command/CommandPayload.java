package tandem.protocol.command;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Encodes and decodes the App payload of a journal entry.
 *
 * <pre>
 * command:      *N\r\n ( $len\r\n bytes[len] \r\n ){N}          N &gt;= 1, decimal without sign or leading zeros
 * transaction:  *1\r\n$5\r\nMULTI\r\n  command*  *1\r\n$4\r\nEXEC\r\n
 * </pre>
 *
 * The form is canonical: one encoding per command, so {@code encode(decode(p))} equals {@code p} and replicas that
 * re-encode produce the same bytes. Decoding checks every length against what remains before it allocates.
 */
public final class CommandPayload {

    private static final byte[] MULTI = encode(new byte[][] {"MULTI".getBytes(StandardCharsets.US_ASCII)});
    private static final byte[] EXEC = encode(new byte[][] {"EXEC".getBytes(StandardCharsets.US_ASCII)});

    private CommandPayload() {
    }

    /** @return the canonical RESP2 array of {@code args} */
    public static byte[] encode(byte[][] args) {
        int size = encodedLength(args);
        byte[] out = new byte[size];
        write(args, out, 0);
        return out;
    }

    /** @return the canonical transaction payload: {@code MULTI}, the commands, {@code EXEC} */
    public static byte[] encodeTransaction(List<byte[][]> commands) {
        int size = MULTI.length + EXEC.length;
        for (byte[][] c : commands) {
            size += encodedLength(c);
        }
        byte[] out = new byte[size];
        System.arraycopy(MULTI, 0, out, 0, MULTI.length);
        int at = MULTI.length;
        for (byte[][] c : commands) {
            at = write(c, out, at);
        }
        System.arraycopy(EXEC, 0, out, at, EXEC.length);
        return out;
    }

    /** @return the number of bytes {@link #encode} produces for {@code args} */
    public static int encodedLength(byte[][] args) {
        long size = 1L + digits(args.length) + 2;
        for (byte[] a : args) {
            size += 1L + digits(a.length) + 2 + a.length + 2;
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("command of " + size + " bytes is too large to journal");
        }
        return (int) size;
    }

    private static int write(byte[][] args, byte[] out, int at) {
        out[at++] = '*';
        at = writeDecimal(args.length, out, at);
        for (byte[] a : args) {
            out[at++] = '$';
            at = writeDecimal(a.length, out, at);
            System.arraycopy(a, 0, out, at, a.length);
            at += a.length;
            out[at++] = '\r';
            out[at++] = '\n';
        }
        return at;
    }

    private static int writeDecimal(int value, byte[] out, int at) {
        int end = at + digits(value);
        for (int i = end - 1; i >= at; i--) {
            out[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        out[end] = '\r';
        out[end + 1] = '\n';
        return end + 2;
    }

    /** @return the number of decimal digits of a non-negative int */
    public static int digits(long value) {
        int d = 1;
        while (value >= 10) {
            value /= 10;
            d++;
        }
        return d;
    }

    /** @return true when {@code payload} is a transaction ({@code MULTI} … {@code EXEC}) */
    public static boolean isTransaction(byte[] payload) {
        return payload.length >= MULTI.length && Arrays.equals(payload, 0, MULTI.length, MULTI, 0, MULTI.length);
    }

    /**
     * Decodes a payload into its commands: one for a plain command; for a transaction the commands between
     * {@code MULTI} and {@code EXEC} (without them).
     *
     * @throws IllegalArgumentException when the payload is not canonical, with the offset where it breaks
     */
    public static List<byte[][]> decode(byte[] payload) {
        List<byte[][]> commands = new ArrayList<>();
        int[] at = {0};
        if (isTransaction(payload)) {
            at[0] = MULTI.length;
            while (true) {
                if (payload.length - at[0] == EXEC.length
                        && Arrays.equals(payload, at[0], payload.length, EXEC, 0, EXEC.length)) {
                    return commands;
                }
                if (at[0] >= payload.length) {
                    throw new IllegalArgumentException("transaction payload ends without EXEC");
                }
                commands.add(readArray(payload, at));
            }
        }
        commands.add(readArray(payload, at));
        if (at[0] != payload.length) {
            throw new IllegalArgumentException("payload has " + (payload.length - at[0])
                    + " bytes after its command at offset " + at[0]);
        }
        return commands;
    }

    private static byte[][] readArray(byte[] p, int[] at) {
        expect(p, at, (byte) '*');
        long count = readDecimal(p, at);
        if (count < 1 || count > (p.length - at[0]) / 6 + 1) {
            throw new IllegalArgumentException("invalid argument count " + count + " at offset " + at[0]);
        }
        byte[][] args = new byte[(int) count][];
        for (int i = 0; i < count; i++) {
            expect(p, at, (byte) '$');
            long len = readDecimal(p, at);
            if (len > p.length - at[0] - 2) {
                throw new IllegalArgumentException("argument length " + len + " exceeds the payload at offset "
                        + at[0]);
            }
            args[i] = Arrays.copyOfRange(p, at[0], at[0] + (int) len);
            at[0] += (int) len;
            expect(p, at, (byte) '\r');
            expect(p, at, (byte) '\n');
        }
        return args;
    }

    private static void expect(byte[] p, int[] at, byte b) {
        if (at[0] >= p.length || p[at[0]] != b) {
            throw new IllegalArgumentException("expected '" + (char) b + "' at offset " + at[0]);
        }
        at[0]++;
    }

    /** A canonical decimal: digits, no sign, no leading zero, then CRLF. */
    private static long readDecimal(byte[] p, int[] at) {
        int start = at[0];
        long value = 0;
        while (at[0] < p.length && p[at[0]] >= '0' && p[at[0]] <= '9') {
            value = value * 10 + (p[at[0]] - '0');
            at[0]++;
            if (at[0] - start > 10) {
                throw new IllegalArgumentException("number too long at offset " + start);
            }
        }
        int length = at[0] - start;
        if (length == 0 || (length > 1 && p[start] == '0')) {
            throw new IllegalArgumentException("not a canonical decimal at offset " + start);
        }
        expect(p, at, (byte) '\r');
        expect(p, at, (byte) '\n');
        return value;
    }
}
