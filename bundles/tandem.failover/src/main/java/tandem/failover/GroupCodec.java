package tandem.failover;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import tandem.api.failover.FailoverStatus.Failover;

/**
 * The group's messages: entries of the Raft log ({@link #JOIN}, {@link #PROMOTE}) and the report each node sends the
 * leader as a read-only query, with the leader's answer. Big-endian; a string is a u16 length and UTF-8 bytes, at most
 * {@link #MAX_STRING} of them. Kept by hand rather than as protobuf: six small records, and Ratis' shaded protobuf is
 * not an API Tandem wants to depend on.
 *
 * <pre>
 * JOIN     u8 1 | str id | str resp | str replication | u8 witness
 * PROMOTE  u8 2 | i64 epoch | str to | str from | i64 atMillis | i64 downMillis | str reason
 * REPORT   u8 10 | str id | str role | str resp | str replication | i64 journalEpoch | i64 tip | str policy
 *          | u8 flags (bit 0: leaving for an update)
 * ANSWER   u8 11 | u8 leader | i64 epoch | str primary | u16 n | n × (str id | str role | i64 tip | i64 ageMillis)
 * </pre>
 */
final class GroupCodec {

    static final byte JOIN = 1;
    static final byte PROMOTE = 2;
    static final byte REPORT = 10;
    static final byte ANSWER = 11;
    static final int MAX_STRING = 1024;
    static final int MAX_MEMBERS = 64;

    private GroupCodec() {
    }

    /** A node's report to the leader: its role and how much history it holds. */
    record Report(String id, String role, String resp, String replication, long journalEpoch, long tip,
            String policy, boolean leaving) {
    }

    /** The leader's answer to a report: the primary it knows, and what it last heard from each member. */
    record Answer(boolean leader, long epoch, String primary, List<Heard> heard) {
    }

    /** What the leader last heard from one member. */
    record Heard(String id, String role, long tip, long ageMillis) {
    }

    static byte[] join(GroupState.Member m) {
        ByteBuffer b = allocate(1 + 2 + 4 * 2 + 4 * MAX_STRING);
        b.put(JOIN);
        str(b, m.id());
        str(b, m.resp());
        str(b, m.replication());
        b.put((byte) (m.witness() ? 1 : 0));
        return bytes(b);
    }

    static byte[] promote(Failover f) {
        ByteBuffer b = allocate(1 + 3 * 8 + 3 * (2 + MAX_STRING) + 8);
        b.put(PROMOTE).putLong(f.epoch());
        str(b, f.to());
        str(b, f.from());
        b.putLong(f.atMillis()).putLong(f.downMillis());
        str(b, f.reason());
        return bytes(b);
    }

    static byte[] report(Report r) {
        ByteBuffer b = allocate(1 + 5 * (2 + MAX_STRING) + 2 * 8 + 1);
        b.put(REPORT);
        str(b, r.id());
        str(b, r.role());
        str(b, r.resp());
        str(b, r.replication());
        b.putLong(r.journalEpoch()).putLong(r.tip());
        str(b, r.policy());
        b.put((byte) (r.leaving() ? 1 : 0));
        return bytes(b);
    }

    static byte[] answer(Answer a) {
        if (a.heard().size() > MAX_MEMBERS) {
            throw new IllegalArgumentException("more than " + MAX_MEMBERS + " members");
        }
        ByteBuffer b = allocate(1 + 1 + 8 + 2 + MAX_STRING + 2 + a.heard().size() * (2 * (2 + MAX_STRING) + 16));
        b.put(ANSWER).put((byte) (a.leader() ? 1 : 0)).putLong(a.epoch());
        str(b, a.primary() == null ? "" : a.primary());
        b.putShort((short) a.heard().size());
        for (Heard h : a.heard()) {
            str(b, h.id());
            str(b, h.role());
            b.putLong(h.tip()).putLong(h.ageMillis());
        }
        return bytes(b);
    }

    /** @return the type byte of a message, or -1 for an empty one */
    static byte type(ByteBuffer message) {
        return message.remaining() == 0 ? -1 : message.get(message.position());
    }

    static GroupState.Member readJoin(ByteBuffer message) {
        return whole(message, JOIN, b -> new GroupState.Member(str(b), str(b), str(b), b.get() != 0));
    }

    static Failover readPromote(ByteBuffer message) {
        return whole(message, PROMOTE, b -> {
            long epoch = b.getLong();
            String to = str(b);
            String from = str(b);
            return new Failover(from, to, epoch, b.getLong(), b.getLong(), str(b));
        });
    }

    static Report readReport(ByteBuffer message) {
        return whole(message, REPORT, b -> new Report(str(b), str(b), str(b), str(b), b.getLong(), b.getLong(),
                str(b), (b.get() & 1) != 0));
    }

    static Answer readAnswer(ByteBuffer message) {
        return whole(message, ANSWER, b -> {
            boolean leader = b.get() != 0;
            long epoch = b.getLong();
            String primary = str(b);
            int n = Short.toUnsignedInt(b.getShort());
            if (n > MAX_MEMBERS) {
                throw new IllegalArgumentException("an answer with " + n + " members (at most " + MAX_MEMBERS + ")");
            }
            List<Heard> heard = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                heard.add(new Heard(str(b), str(b), b.getLong(), b.getLong()));
            }
            return new Answer(leader, epoch, primary.isEmpty() ? null : primary, heard);
        });
    }

    /**
     * Decodes one whole message of {@code type}: a short one, a longer one or another type is refused.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    private static <T> T whole(ByteBuffer message, byte type, Function<ByteBuffer, T> body) {
        ByteBuffer b = message.duplicate();
        try {
            byte t = b.get();
            if (t != type) {
                throw new IllegalArgumentException("message type " + t + ", expected " + type);
            }
            T value = body.apply(b);
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " bytes after the end of the message");
            }
            return value;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a message of type " + type + " cut short at " + b.position()
                    + " bytes");
        }
    }

    private static ByteBuffer allocate(int max) {
        return ByteBuffer.allocate(max);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    private static void str(ByteBuffer b, String s) {
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        if (u.length > MAX_STRING) {
            throw new IllegalArgumentException("a string of " + u.length + " bytes (at most " + MAX_STRING + ")");
        }
        b.putShort((short) u.length).put(u);
    }

    private static String str(ByteBuffer b) {
        int n = Short.toUnsignedInt(b.getShort());
        if (n > MAX_STRING || n > b.remaining()) {
            throw new IllegalArgumentException("a string of " + n + " bytes where " + Math.min(b.remaining(),
                    MAX_STRING) + " can be");
        }
        byte[] u = new byte[n];
        b.get(u);
        return new String(u, StandardCharsets.UTF_8);
    }
}
