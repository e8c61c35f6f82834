package tandem.protocol.frpl;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;

/**
 * The FRPL frames a journal entry becomes on the psync stream, and their length: the unit of the psync replication
 * offset. Each is a pure function of the entry, so primary and replica count offsets alike.
 *
 * <pre>
 * App command [a1 … aN]    *&lt;N+2&gt;\r\n $9\r\nTANDEM.AT\r\n $&lt;d&gt;\r\n&lt;ts&gt;\r\n  $&lt;|a1|&gt;\r\na1\r\n … $&lt;|aN|&gt;\r\naN\r\n
 * App transaction          *1\r\n$5\r\nMULTI\r\n,  each command wrapped as above,  *1\r\n$4\r\nEXEC\r\n
 * Tick                     *2\r\n$11\r\nTANDEM.TICK\r\n $&lt;d&gt;\r\n&lt;ts&gt;\r\n
 * EpochBump, fragment      nothing (length 0)
 * </pre>
 *
 * {@code ts} is the entry's {@code timestamp_ns} in decimal (d digits, no sign), which the replica applies as "now".
 * A command split into fragments becomes frames once, at its last fragment, from the joined payload; every frame
 * is a separate RESP2 array, and an entry's length is the sum of its frames' lengths.
 */
public final class FrplPayload {

    private static final byte[] MULTI = ascii("*1\r\n$5\r\nMULTI\r\n");
    private static final byte[] EXEC = ascii("*1\r\n$4\r\nEXEC\r\n");
    private static final byte[] AT = ascii("$9\r\nTANDEM.AT\r\n");
    private static final byte[] TICK = ascii("*2\r\n$11\r\nTANDEM.TICK\r\n");

    private FrplPayload() {
    }

    /**
     * The number of FRPL bytes the entry becomes, computed from the payload's structure without building them.
     *
     * @param payload the entry's payload; for an App entry the whole command (fragments joined)
     * @throws IllegalArgumentException for a negative timestamp, an unknown tag, or an App payload that is not one
     *                                  RESP2 array of bulk strings or a {@code MULTI} … {@code EXEC} transaction
     */
    public static long length(byte tag, long timestampNs, byte[] payload) {
        int d = timestampDigits(timestampNs);
        switch (tag) {
            case EntryTag.TICK:
                return TICK.length + bulkHeader(d) + d + 2L;
            case EntryTag.EPOCH_BUMP:
            case EntryTag.APP_CONTINUATION:
                return 0;
            case EntryTag.APP:
                break;
            default:
                throw new IllegalArgumentException(String.format("unknown entry tag 0x%02X", tag & 0xFF));
        }
        long wrapped = AT.length + bulkHeader(d) + d + 2L;
        if (!CommandPayload.isTransaction(payload)) {
            long count = arrayCount(payload, 0);
            int end = arrayEnd(payload, 0);
            if (end != payload.length) {
                throw new IllegalArgumentException("App payload has " + (payload.length - end)
                        + " bytes after its command at offset " + end);
            }
            return payload.length - arrayHeader(count) + arrayHeader(count + 2) + wrapped;
        }
        long total = MULTI.length + EXEC.length;
        int at = MULTI.length;
        while (!isExecAt(payload, at)) {
            long count = arrayCount(payload, at);
            int end = arrayEnd(payload, at);
            total += end - at - arrayHeader(count) + arrayHeader(count + 2) + wrapped;
            at = end;
        }
        return total;
    }

    /**
     * Builds the FRPL frames of an entry, in stream order (none for EpochBump and fragments).
     *
     * @throws IllegalArgumentException as {@link #length}
     */
    public static List<byte[]> frames(byte tag, long timestampNs, byte[] payload) {
        byte[] ts = ascii(Long.toString(timestampNs));
        timestampDigits(timestampNs);
        List<byte[]> frames = new ArrayList<>();
        switch (tag) {
            case EntryTag.TICK: {
                byte[] tsBulk = bulk(ts);
                byte[] frame = new byte[TICK.length + tsBulk.length];
                System.arraycopy(TICK, 0, frame, 0, TICK.length);
                System.arraycopy(tsBulk, 0, frame, TICK.length, tsBulk.length);
                frames.add(frame);
                return frames;
            }
            case EntryTag.EPOCH_BUMP:
            case EntryTag.APP_CONTINUATION:
                return frames;
            case EntryTag.APP:
                break;
            default:
                throw new IllegalArgumentException(String.format("unknown entry tag 0x%02X", tag & 0xFF));
        }
        if (!CommandPayload.isTransaction(payload)) {
            int end = arrayEnd(payload, 0);
            if (end != payload.length) {
                throw new IllegalArgumentException("App payload has " + (payload.length - end)
                        + " bytes after its command at offset " + end);
            }
            frames.add(wrap(payload, 0, end, ts));
            return frames;
        }
        frames.add(MULTI.clone());
        int at = MULTI.length;
        while (!isExecAt(payload, at)) {
            int end = arrayEnd(payload, at);
            frames.add(wrap(payload, at, end, ts));
            at = end;
        }
        frames.add(EXEC.clone());
        return frames;
    }

    /** {@code TANDEM.AT <ts>} in front of the array at {@code payload[from, to)}. */
    private static byte[] wrap(byte[] payload, int from, int to, byte[] ts) {
        long count = arrayCount(payload, from);
        int oldHeader = arrayHeader(count);
        byte[] header = ascii("*" + (count + 2) + "\r\n");
        byte[] tsBulk = bulk(ts);
        int argsLength = to - from - oldHeader;
        byte[] frame = new byte[header.length + AT.length + tsBulk.length + argsLength];
        int at = 0;
        System.arraycopy(header, 0, frame, at, header.length);
        at += header.length;
        System.arraycopy(AT, 0, frame, at, AT.length);
        at += AT.length;
        System.arraycopy(tsBulk, 0, frame, at, tsBulk.length);
        at += tsBulk.length;
        System.arraycopy(payload, from + oldHeader, frame, at, argsLength);
        return frame;
    }

    private static byte[] bulk(byte[] value) {
        return ascii("$" + value.length + "\r\n" + new String(value, StandardCharsets.US_ASCII) + "\r\n");
    }

    private static int timestampDigits(long timestampNs) {
        if (timestampNs < 0) {
            throw new IllegalArgumentException("negative timestamp " + timestampNs);
        }
        return CommandPayload.digits(timestampNs);
    }

    /** {@code $<d>\r\n}. */
    private static int bulkHeader(int length) {
        return 1 + CommandPayload.digits(length) + 2;
    }

    /** {@code *<count>\r\n}. */
    private static int arrayHeader(long count) {
        return 1 + CommandPayload.digits(count) + 2;
    }

    private static boolean isExecAt(byte[] p, int at) {
        if (at >= p.length) {
            throw new IllegalArgumentException("transaction payload ends without EXEC");
        }
        if (p.length - at != EXEC.length) {
            return false;
        }
        for (int i = 0; i < EXEC.length; i++) {
            if (p[at + i] != EXEC[i]) {
                return false;
            }
        }
        return true;
    }

    /** The element count of the array that starts at {@code at}. */
    private static long arrayCount(byte[] p, int at) {
        if (at >= p.length || p[at] != '*') {
            throw new IllegalArgumentException("expected '*' at offset " + at);
        }
        long count = decimal(p, at + 1);
        if (count < 1) {
            throw new IllegalArgumentException("empty array at offset " + at);
        }
        return count;
    }

    /** The offset just past the array of bulk strings that starts at {@code at}, checking every bound. */
    private static int arrayEnd(byte[] p, int at) {
        long count = arrayCount(p, at);
        int i = at + arrayHeader(count);
        for (long n = 0; n < count; n++) {
            if (i >= p.length || p[i] != '$') {
                throw new IllegalArgumentException("expected '$' at offset " + i);
            }
            long len = decimal(p, i + 1);
            i += bulkHeaderOf(len);
            if (len > p.length - i - 2L || p[i + (int) len] != '\r' || p[i + (int) len + 1] != '\n') {
                throw new IllegalArgumentException("bulk string of " + len + " bytes overruns the payload at offset "
                        + i);
            }
            i += (int) len + 2;
        }
        return i;
    }

    private static int bulkHeaderOf(long length) {
        return 1 + CommandPayload.digits(length) + 2;
    }

    /** A canonical decimal at {@code at} followed by CRLF. */
    private static long decimal(byte[] p, int at) {
        int i = at;
        long value = 0;
        while (i < p.length && p[i] >= '0' && p[i] <= '9') {
            if (i - at >= 10) {
                throw new IllegalArgumentException("number too long at offset " + at);
            }
            value = value * 10 + (p[i] - '0');
            i++;
        }
        if (i == at || (i - at > 1 && p[at] == '0') || i + 1 >= p.length || p[i] != '\r' || p[i + 1] != '\n') {
            throw new IllegalArgumentException("not a canonical decimal at offset " + at);
        }
        return value;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
