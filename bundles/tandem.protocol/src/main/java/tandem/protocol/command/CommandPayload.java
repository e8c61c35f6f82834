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
 * select:       *2\r\n$6\r\nSELECT\r\n$d\r\n&lt;1..15&gt;\r\n       the database of the commands after it
 * single:       [select] command
 * transaction:  *1\r\n$5\r\nMULTI\r\n  ( [select] command )*  *1\r\n$4\r\nEXEC\r\n
 * </pre>
 *
 * An entry starts in database 0: a {@code select} precedes a command of another database, and, in a transaction, a
 * command whose database differs from the one before it (back to 0 too), as Redis's replication stream selects. A
 * {@code SELECT} is never journaled as a command of its own (it is the connection's), so the array always means this.
 * The form is canonical: one encoding per command, so {@code encode(decode(p))} equals {@code p} and replicas that
 * re-encode produce the same bytes. Decoding checks every length against what remains before it allocates.
 */
public final class CommandPayload {

    private static final byte[] MULTI = encode(new byte[][] {"MULTI".getBytes(StandardCharsets.US_ASCII)});
    private static final byte[] EXEC = encode(new byte[][] {"EXEC".getBytes(StandardCharsets.US_ASCII)});
    /** The bytes every {@code select} starts with. */
    public static final byte[] SELECT = "*2\r\n$6\r\nSELECT\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The databases an entry may select: 0 to 15. */
    public static final int DATABASES = 16;

    private CommandPayload() {
    }

    /** @return the canonical RESP2 array of {@code args} */
    public static byte[] encode(byte[][] args) {
        int size = encodedLength(args);
        byte[] out = new byte[size];
        write(args, out, 0);
        return out;
    }

    /** @return the canonical payload of {@code args} in database {@code db}: a {@code select} first unless 0 */
    public static byte[] encode(int db, byte[][] args) {
        return db == 0 ? encode(args) : concat(select(db), encode(args));
    }

    /** @return the {@code select} of database {@code db} */
    public static byte[] select(int db) {
        if (db < 0 || db >= DATABASES) {
            throw new IllegalArgumentException("database " + db + " is not within 0.." + (DATABASES - 1));
        }
        return encode(new byte[][] {"SELECT".getBytes(StandardCharsets.US_ASCII),
            Integer.toString(db).getBytes(StandardCharsets.US_ASCII)});
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * @return the canonical transaction payload: {@code MULTI}, the commands (command i in database {@code dbs[i]},
     *         selected when it differs from the one before), {@code EXEC}
     */
    public static byte[] encodeTransaction(List<byte[][]> commands, int[] dbs) {
        if (dbs.length != commands.size()) {
            throw new IllegalArgumentException(dbs.length + " databases for " + commands.size() + " commands");
        }
        List<byte[][]> withSelects = new ArrayList<>(commands.size());
        int db = 0;
        for (int i = 0; i < commands.size(); i++) {
            if (dbs[i] != db) {
                db = dbs[i];
                withSelects.add(new byte[][] {"SELECT".getBytes(StandardCharsets.US_ASCII),
                    Integer.toString(db).getBytes(StandardCharsets.US_ASCII)});
            }
            withSelects.add(commands.get(i));
        }
        return encodeTransaction(withSelects);
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
    /** A command of a payload and the database it works in. */
    public record Decoded(int db, byte[][] args) {
    }

    /**
     * Decodes a payload into its commands, each with its database: a {@code select} is taken as the database of the
     * commands after it, not as a command.
     *
     * @throws IllegalArgumentException for a payload that is not canonical, a {@code select} of a database out of
     *                                  range, or one that no command follows
     */
    public static List<Decoded> decodeInDatabases(byte[] payload) {
        List<Decoded> out = new ArrayList<>();
        int db = 0;
        boolean selected = false;
        for (byte[][] args : decode(payload)) {
            if (isSelect(args)) {
                db = database(args[1]);
                selected = true;
                continue;
            }
            out.add(new Decoded(db, args));
            selected = false;
        }
        if (selected) {
            throw new IllegalArgumentException("the payload ends with a SELECT");
        }
        return out;
    }

    private static boolean isSelect(byte[][] args) {
        return args.length == 2 && args[0].length == 6 && new String(args[0], StandardCharsets.US_ASCII)
                .equals("SELECT");
    }

    private static int database(byte[] index) {
        String s = new String(index, StandardCharsets.US_ASCII);
        if (!s.matches("[0-9]|1[0-5]")) {
            throw new IllegalArgumentException("SELECT of database '" + s + "' in a payload");
        }
        return Integer.parseInt(s);
    }

    /** @return whether the payload (not a transaction) starts with a {@code select} */
    public static boolean startsWithSelect(byte[] payload) {
        return payload.length >= SELECT.length && Arrays.equals(payload, 0, SELECT.length, SELECT, 0, SELECT.length);
    }

    public static boolean isTransaction(byte[] payload) {
        return payload.length >= MULTI.length && Arrays.equals(payload, 0, MULTI.length, MULTI, 0, MULTI.length);
    }

    /**
     * Decodes a payload into its arrays: one for a plain command (two when a {@code select} precedes it); for a
     * transaction the arrays between {@code MULTI} and {@code EXEC} (without them). {@link #decodeInDatabases} tells
     * the commands from the {@code select}s.
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
        if (at[0] < payload.length && isSelect(commands.get(0))) {
            commands.add(readArray(payload, at)); // the command of the database selected
        }
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
