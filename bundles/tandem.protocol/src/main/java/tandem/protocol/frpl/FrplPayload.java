package tandem.protocol.frpl;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalReader;
import tandem.api.journal.SegmentInfo;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.replication.InputBatch;

/**
 * The FRPL frames a journal entry becomes on the psync stream, and their length: the unit of the psync replication
 * offset. Each is a pure function of the entry, so primary and replica count offsets alike.
 *
 * <pre>
 * App command [a1 … aN]    *&lt;N+2&gt;\r\n $9\r\nTANDEM.AT\r\n $&lt;d&gt;\r\n&lt;ts&gt;\r\n  $&lt;|a1|&gt;\r\na1\r\n … $&lt;|aN|&gt;\r\naN\r\n
 *                          (after SELECT n when the command is of database n: TANDEM.AT ts SELECT n, wrapped alike)
 * App transaction          *1\r\n$5\r\nMULTI\r\n,  each command (and SELECT) wrapped as above,  *1\r\n$4\r\nEXEC\r\n
 * Tick                     *2\r\n$11\r\nTANDEM.TICK\r\n $&lt;d&gt;\r\n&lt;ts&gt;\r\n
 * Publish [PUBLISH c m]    as an App command: *5\r\n $9\r\nTANDEM.AT\r\n $&lt;d&gt;\r\n&lt;ts&gt;\r\n $7\r\nPUBLISH\r\n … (or SPUBLISH)
 * EpochBump, fragment      nothing (length 0)
 * </pre>
 *
 * {@code ts} is the entry's {@code timestamp_ns} in decimal (d digits, no sign), which the replica applies as "now".
 * A command split into fragments becomes frames once, at its last fragment, from the joined payload; every frame
 * is a separate RESP2 array, and an entry's length is the sum of its frames' lengths. {@link FrplWriter} writes the
 * frames; {@link Fragments} measures a command that arrives in fragments.
 */
public final class FrplPayload {

    static final byte[] MULTI = ascii("*1\r\n$5\r\nMULTI\r\n");
    static final byte[] EXEC = ascii("*1\r\n$4\r\nEXEC\r\n");
    static final byte[] AT = ascii("$9\r\nTANDEM.AT\r\n");
    static final byte[] TICK = ascii("*2\r\n$11\r\nTANDEM.TICK\r\n");
    static final byte[] PUBLISH = ascii("PUBLISH");
    static final byte[] SPUBLISH = ascii("SPUBLISH");

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
        return length(tag, timestampNs, payload == null ? null : ByteBuffer.wrap(payload));
    }

    /**
     * {@link #length(byte, long, byte[])} of the payload between {@code payload}'s position and limit (not consumed;
     * a direct buffer too).
     */
    public static long length(byte tag, long timestampNs, ByteBuffer payload) {
        int d = timestampDigits(timestampNs);
        switch (tag) {
            case EntryTag.TICK:
                return TICK.length + RespArray.bulkHeaderLength(d) + d + 2L;
            case EntryTag.EPOCH_BUMP:
            case EntryTag.APP_CONTINUATION:
                return 0;
            case EntryTag.PUBLISH:
                checkPublish(payload);
                break;
            case EntryTag.APP:
                break;
            default:
                throw new IllegalArgumentException(String.format("unknown entry tag 0x%02X", tag & 0xFF));
        }
        long wrapped = atLength(d);
        int from = payload.position();
        int limit = payload.limit();
        if (!isTransaction(payload, from, limit)) {
            int end = RespArray.end(payload, from, limit);
            long total = 0;
            if (end != limit && isSelectAt(payload, from, limit)) {
                total = commandLength(2, end - from, wrapped);
                from = end;
                end = RespArray.end(payload, from, limit);
            }
            if (end != limit) {
                throw new IllegalArgumentException("App payload has " + (limit - end)
                        + " bytes after its command at offset " + (end - payload.position()));
            }
            return total + commandLength(RespArray.count(payload, from, limit), limit - from, wrapped);
        }
        long total = MULTI.length + EXEC.length;
        int at = from + MULTI.length;
        while (!isExecAt(payload, at, limit)) {
            int end = RespArray.end(payload, at, limit);
            total += commandLength(RespArray.count(payload, at, limit), end - at, wrapped);
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
        FrplWriter writer = new FrplWriter();
        writer.entry(tag, timestampNs, ByteBuffer.wrap(payload), 0);
        ByteBuffer written = writer.written();
        List<byte[]> frames = new ArrayList<>();
        while (written.hasRemaining()) {
            int length = FrplFrame.length(written);
            byte[] frame = new byte[length];
            written.get(written.position() + FrplFrame.HEADER, frame);
            written.position(written.position() + FrplFrame.HEADER + length);
            frames.add(frame);
        }
        return frames;
    }

    /**
     * Checks a Publish entry's payload: framed like an App command, it must be one.
     *
     * @throws IllegalArgumentException when it is not one array of three bulk strings, {@code PUBLISH} or
     *                                  {@code SPUBLISH} first
     */
    static void checkPublish(ByteBuffer payload) {
        RespArray array = new RespArray().read(payload, payload.position(), payload.limit());
        if (array.end() != payload.limit() || !isPublish(array)) {
            throw new IllegalArgumentException("Publish payload is not PUBLISH or SPUBLISH channel message");
        }
    }

    /** @return whether {@code command} is {@code PUBLISH channel message} or {@code SPUBLISH channel message} */
    private static boolean isPublish(RespArray command) {
        return command.count() == 3 && (command.is(0, PUBLISH) || command.is(0, SPUBLISH));
    }

    /**
     * {@link #length} of an App entry holding one command, from what its sequencer knows without reading the payload
     * again: its argument count and the payload's length.
     *
     * @param count        the command's name and arguments
     * @param payloadBytes the canonical payload's length ({@code *count\r\n} and the bulks)
     */
    public static long appLength(int count, int payloadBytes, long timestampNs) {
        return commandLength(count, payloadBytes, atLength(timestampDigits(timestampNs)));
    }

    /** @return the FRPL length of one command of {@code count} arguments and {@code bytes} bytes, wrapped */
    static long commandLength(long count, long bytes, long wrapped) {
        return bytes - RespArray.headerLength(count) + RespArray.headerLength(count + 2) + wrapped;
    }

    /** @return what {@code TANDEM.AT <ts>} adds besides the array header: the name's and the timestamp's bulks */
    static long atLength(int timestampDigits) {
        return AT.length + RespArray.bulkHeaderLength(timestampDigits) + timestampDigits + 2L;
    }

    static int timestampDigits(long timestampNs) {
        if (timestampNs < 0) {
            throw new IllegalArgumentException("negative timestamp " + timestampNs);
        }
        return CommandPayload.digits(timestampNs);
    }

    /** @return whether the bytes at {@code at} start a {@code select} ({@link CommandPayload#SELECT}) */
    static boolean isSelectAt(ByteBuffer p, int at, int limit) {
        return limit - at >= CommandPayload.SELECT.length && equalsAt(p, at, CommandPayload.SELECT);
    }

    /** @return whether the bytes at {@code at} start a transaction ({@code MULTI}) */
    static boolean isTransaction(ByteBuffer p, int at, int limit) {
        return limit - at >= MULTI.length && equalsAt(p, at, MULTI);
    }

    static boolean isExecAt(ByteBuffer p, int at, int limit) {
        if (at >= limit) {
            throw new IllegalArgumentException("transaction payload ends without EXEC");
        }
        return limit - at == EXEC.length && equalsAt(p, at, EXEC);
    }

    private static boolean equalsAt(ByteBuffer p, int at, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (p.get(at + i) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Measures an App command that arrives as fragments ({@link EntryTag#APP_CONTINUATION} entries, then the
     * {@link EntryTag#APP} that completes it), as a replica of the journal protocol receives it, without joining the
     * fragments of a plain command: its FRPL length depends only on its argument count, read from the first
     * fragment, and its byte length. A transaction's depends on every command in it, so its fragments are kept until
     * it completes (rare: a transaction over 64 KiB). Fragments count by sequence: a fragment that does not follow
     * the last one starts a new group, and any other entry discards an open one, as the journal does. A receiver
     * that starts while its journal's tail is a group begun before ({@link #resume}) reads that group back first.
     * One thread.
     */
    public static final class Fragments {

        private long lastSequence = -1;
        private long bytes;
        private long count;
        private ByteArrayOutputStream transaction;

        /**
         * @param sequence the entry's sequence
         * @param tag      its tag
         * @param payload  its payload between position and limit (not consumed)
         * @return the FRPL length of the entry: 0 for a fragment, the whole command's at the {@link EntryTag#APP}
         *         that completes a group, {@link #length(byte, long, ByteBuffer)} for any other entry
         * @throws IllegalArgumentException as {@link #length(byte, long, ByteBuffer)}
         */
        public long length(long sequence, long timestampNs, byte tag, ByteBuffer payload) {
            boolean follows = lastSequence >= 0 && sequence == lastSequence + 1;
            if (tag == EntryTag.APP_CONTINUATION) {
                if (!follows) {
                    start(payload);
                }
                add(payload);
                lastSequence = sequence;
                return 0;
            }
            boolean group = follows && tag == EntryTag.APP;
            lastSequence = -1;
            if (!group) {
                transaction = null;
                return FrplPayload.length(tag, timestampNs, payload);
            }
            add(payload);
            if (transaction != null) {
                byte[] joined = transaction.toByteArray();
                transaction = null;
                return FrplPayload.length(tag, timestampNs, joined);
            }
            return commandLength(count, bytes, atLength(timestampDigits(timestampNs)));
        }

        /**
         * Starts over from what {@code journal} holds: when its last entry is a fragment (a receiver that starts
         * after a restart or an update, in mid-command), that group's fragments are read back from the live segment,
         * so that the command's length counts them; otherwise nothing is read but the last entry.
         *
         * @throws InterruptedException when interrupted while the journal's tail becomes durable
         */
        public void resume(JournalReader journal) throws InterruptedException {
            lastSequence = -1;
            transaction = null;
            long last = journal.lastSequence();
            journal.awaitDurable(last);
            List<SegmentInfo> segments = journal.segments();
            long liveStart = segments.isEmpty() ? 1 : segments.get(segments.size() - 1).startSequence();
            // a segment never starts inside a group: a live segment that holds no entry yet (after a rotation, or a
            // snapshot's seed of just a header) has none in progress, and its predecessor may be gone
            if (last == 0 || last < liveStart || !isFragment(journal, last)) {
                return;
            }
            journal.readSlots(liveStart - 1, (sequence, slot) -> {
                int at = slot.position();
                length(sequence, slot.getLong(at + InputBatch.SLOT_TIMESTAMP_OFFSET),
                        slot.get(at + InputBatch.SLOT_TAG_OFFSET),
                        slot.duplicate().position(at + InputBatch.SLOT_PAYLOAD_OFFSET));
                return sequence < last;
            });
        }

        private static boolean isFragment(JournalReader journal, long sequence) {
            boolean[] fragment = {false};
            journal.readSlots(sequence - 1, (seq, slot) -> {
                fragment[0] = slot.get(slot.position() + InputBatch.SLOT_TAG_OFFSET) == EntryTag.APP_CONTINUATION;
                return false;
            });
            return fragment[0];
        }

        private void start(ByteBuffer first) {
            bytes = 0;
            transaction = null;
            int at = first.position();
            // a transaction's length, or a selected command's, depends on more than its first array: kept whole
            if (isTransaction(first, at, first.limit()) || isSelectAt(first, at, first.limit())) {
                transaction = new ByteArrayOutputStream();
            } else {
                count = RespArray.count(first, at, first.limit());
            }
        }

        private void add(ByteBuffer fragment) {
            bytes += fragment.remaining();
            if (transaction != null) {
                byte[] b = new byte[fragment.remaining()];
                fragment.get(fragment.position(), b);
                transaction.writeBytes(b);
            }
        }
    }
}
