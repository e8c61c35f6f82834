package tandem.protocol.replication;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/** Test helpers: hex vectors, byte runs, and payloads placed inside larger buffers. */
final class Bytes {

    /** Filler around payloads, so that a read outside the payload shows as a wrong value. */
    static final byte FILL = (byte) 0xEE;

    private Bytes() {
    }

    /** Parses hex, ignoring spaces and the {@code |} used to separate fields in vectors. */
    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[\\s|]", ""));
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** @return {@code n} bytes counting up from {@code from} */
    static byte[] run(int from, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    /**
     * @return the payload of {@code frame} (without its 4-byte length) at index {@code lead} of a buffer filled with
     *         {@link #FILL}, followed by {@code tail} more filler bytes inside the limit; positioned at the tag, in
     *         {@code order}
     */
    static ByteBuffer payload(byte[] frame, int lead, int tail, ByteOrder order) {
        return payload(Arrays.copyOfRange(frame, Frames.LENGTH_PREFIX, frame.length), lead, tail, order, 0);
    }

    /** @param cut bytes removed from the payload's end */
    static ByteBuffer payload(byte[] payload, int lead, int tail, ByteOrder order, int cut) {
        int n = payload.length - cut;
        ByteBuffer b = ByteBuffer.allocate(lead + n + tail + 7).order(order);
        Arrays.fill(b.array(), FILL);
        b.put(lead, payload, 0, n);
        return b.position(lead).limit(lead + n + tail);
    }

    /** @return a copy of {@code b}'s bytes [from, to) */
    static byte[] slice(ByteBuffer b, int from, int to) {
        byte[] out = new byte[to - from];
        b.get(from, out);
        return out;
    }
}
