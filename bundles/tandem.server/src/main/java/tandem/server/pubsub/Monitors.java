package tandem.server.pubsub;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The connections in {@code MONITOR} mode, and the line each is sent for every command the node ran: Redis 7.0's
 * {@code +<seconds>.<micros> [<db> <client address>] "<arg>" ...}, each argument quoted as {@code sdscatrepr} quotes
 * it. A line is built once and shared, as a Pub/Sub message is, through each monitor's mailbox ({@link Subscriber}),
 * so a monitor that does not read is held to the output limit and never slows the node.
 */
public final class Monitors {

    private final CopyOnWriteArrayList<Subscriber> monitors = new CopyOnWriteArrayList<>();

    void add(Subscriber s) {
        monitors.addIfAbsent(s);
    }

    void remove(Subscriber s) {
        monitors.remove(s);
    }

    /** @return whether any connection monitors: the only check a command pays when none does */
    public boolean any() {
        return !monitors.isEmpty();
    }

    /**
     * Sends every monitor the line of {@code args}, run now by the client at {@code address}.
     *
     * @param args the request, its secrets already redacted
     */
    public void feed(String address, byte[][] args) {
        if (monitors.isEmpty()) {
            return;
        }
        byte[] line = line(address, args);
        ByteBuf frame = ByteBufAllocator.DEFAULT.buffer(line.length);
        try {
            frame.writeBytes(line);
            Delivery d = new Delivery(null, null, frame);
            for (Subscriber s : monitors) {
                s.offer(d);
            }
        } finally {
            frame.release();
        }
    }

    /** The line's bytes, CRLF included. */
    static byte[] line(String address, byte[][] args) {
        java.time.Instant now = java.time.Instant.now();
        StringBuilder sb = new StringBuilder(64);
        sb.append('+').append(now.getEpochSecond()).append('.');
        String fraction = Integer.toString(now.getNano() / 1000);
        sb.append("000000", 0, 6 - fraction.length()).append(fraction);
        sb.append(" [0 ").append(address).append(']');
        for (byte[] arg : args) {
            sb.append(' ');
            repr(sb, arg);
        }
        sb.append("\r\n");
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Redis' {@code sdscatrepr}: a quoted string with its escapes, bytes outside printable ASCII as {@code \xHH}. */
    static void repr(StringBuilder sb, byte[] arg) {
        sb.append('"');
        for (byte b : arg) {
            int c = b & 0xff;
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case 7 -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        sb.append((char) c);
                    } else {
                        sb.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                    }
                }
            }
        }
        sb.append('"');
    }
}
