package tandem.protocol.frpl;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import tandem.protocol.command.CommandPayload;
import tandem.protocol.command.String2ll;

/**
 * The {@code REPLCONF} commands a psync replica and its primary exchange besides the handshake, in one place:
 *
 * <pre>
 *  replica → primary   *3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$&lt;d&gt;\r\n&lt;offset&gt;\r\n      the offset it applied
 *  primary → replica   *3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n         (in a control frame) ask for one
 * </pre>
 *
 * Subcommands are case-insensitive; the offset is a canonical decimal.
 */
public final class Replconf {

    private static final byte[] REPLCONF = ascii("REPLCONF");
    private static final byte[] ACK = ascii("ACK");

    private Replconf() {
    }

    /** @return the RESP bytes of {@code REPLCONF ACK <offset>} */
    public static byte[] ack(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        return CommandPayload.encode(new byte[][] {REPLCONF, ACK, ascii(Long.toString(offset))});
    }

    /**
     * @param args a decoded command
     * @return the offset of a {@code REPLCONF ACK <offset>}, or -1 when {@code args} is not one
     * @throws IllegalArgumentException when it is an ACK whose offset is not a non-negative integer
     */
    public static long parseAck(byte[][] args) {
        if (args.length != 3 || !is(args[0], "replconf") || !is(args[1], "ack")) {
            return -1;
        }
        long offset;
        try {
            offset = String2ll.parse(args[2]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("REPLCONF ACK with an offset that is not an integer");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("REPLCONF ACK with a negative offset " + offset);
        }
        return offset;
    }

    /** @return whether {@code args} is {@code REPLCONF GETACK <anything>} */
    public static boolean isGetAck(byte[][] args) {
        return args.length == 3 && is(args[0], "replconf") && is(args[1], "getack");
    }

    private static boolean is(byte[] arg, String lowerCase) {
        return new String(arg, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT).equals(lowerCase);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
