package tandem.frpl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.ToIntFunction;

import tandem.api.frpl.FrplStreams;
import tandem.api.frpl.FrplStreams.DivergenceException;
import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.command.KeyHash;
import tandem.protocol.command.String2ll;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.Replconf;
import tandem.protocol.frpl.RespArray;

/**
 * A psync replica's side of the FRPL stream: turns each frame back into the journal entry the primary streamed it
 * from, and journals it in this node's own lineage (its own sequences, the primary's timestamps).
 *
 * <ul>
 * <li>{@code TANDEM.AT <ts> cmd…} becomes an App entry of {@code cmd…} at {@code ts} (a Publish entry when
 * {@code cmd…} is {@code PUBLISH} or {@code SPUBLISH} with a channel and a message); a {@code TANDEM.AT <ts> SELECT n}
 * goes into the entry of the command after it, as the primary journaled them; {@code TANDEM.TICK <ts>} a
 * Tick; {@code MULTI}, wrapped commands, {@code EXEC} one transaction entry, journaled at {@code EXEC} (an
 * interrupted group journals nothing, and its bytes are not counted: the next {@code PSYNC} asks for it again).</li>
 * <li>A command is not decoded: the frame is read in place ({@link RespArray}, every length checked), and the entry
 * is its arguments as they arrived, byte for byte the canonical array's tail, behind the {@code *N\r\n} written into
 * the frame just before them. Its offset length is the frame's: exactly what the primary counted for the entry.
 * The key hash is that of the argument the node names as the command's first key.</li>
 * <li>A frame's sequence must be the stream offset after it; one at or below the offset already held is a
 * duplicate and skipped (FM-REPLICATION-065); anything else is a divergence: the link is dropped and this node
 * full-syncs.</li>
 * <li>A control frame ({@code REPLCONF GETACK *}) advances nothing and owes the primary an ACK.</li>
 * </ul>
 * One thread at a time.
 */
final class StreamApplier {

    static final int MAX_TRANSACTION_COMMANDS = 1_000_000;
    static final long MAX_TRANSACTION_BYTES = 1L << 30;

    private static final byte[] MULTI = "*1\r\n$5\r\nMULTI\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXEC = "*1\r\n$4\r\nEXEC\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AT = "TANDEM.AT".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TICK = "TANDEM.TICK".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PUBLISH = "PUBLISH".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SPUBLISH = "SPUBLISH".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SELECT = "SELECT".getBytes(StandardCharsets.US_ASCII);

    private final FrplStreams.Sink sink;
    private final ToIntFunction<String> firstKey;
    private final RespArray frame = new RespArray();
    private final ByteBuffer tick = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    /** The offset after the last entry journaled. */
    private long offset;
    /** The offset after the last frame received, inside an open transaction beyond {@link #offset}. */
    private long received;
    /** The open transaction's entry so far ({@code MULTI} and its commands), or null outside one. */
    private ByteBuffer transaction;
    private int transactionCommands;
    private long transactionTimestamp;
    private long transactionBytes;
    /** A {@code SELECT} received outside a transaction, for the entry of the command that follows it, or null. */
    private byte[] selected;
    private long owedAck = -1;
    private long duplicates;
    private long lastSequence;

    StreamApplier(long startOffset, ToIntFunction<String> firstKey, FrplStreams.Sink sink) {
        this.offset = startOffset;
        this.received = startOffset;
        this.firstKey = firstKey;
        this.sink = sink;
    }

    /** @return the offset after the last entry journaled: what this replica holds once it is durable */
    long offset() {
        return offset;
    }

    /** @return the journal sequence of the last entry appended, 0 before any */
    long lastSequence() {
        return lastSequence;
    }

    /** @return the offset a {@code GETACK} asked to be acknowledged, or -1; cleared */
    long takeOwedAck() {
        long o = owedAck;
        owedAck = -1;
        return o;
    }

    /** @return duplicate frames skipped so far */
    long duplicates() {
        return duplicates;
    }

    /**
     * Applies one frame; see the class comment.
     *
     * @param payload the frame's payload between its position and limit; its bytes may be overwritten
     */
    void frame(int shard, long sequence, ByteBuffer payload) throws DivergenceException {
        int from = payload.position();
        int limit = payload.limit();
        int length = limit - from;
        if (shard == FrplFrame.CONTROL_SHARD) {
            if (isGetAck(payload)) {
                owedAck = received;
            }
            return; // other control frames carry nothing Tandem acts on
        }
        if (sequence <= received) {
            duplicates++;
            return;
        }
        if (sequence != received + length) {
            throw new DivergenceException("a frame of " + length + " bytes ends at offset " + sequence
                    + ", the stream is at " + received);
        }
        boolean multi = is(payload, MULTI);
        if (selected != null && (multi || is(payload, EXEC))) {
            throw new DivergenceException("a SELECT without its command at offset " + sequence);
        }
        if (multi) {
            transaction = ByteBuffer.allocate(Math.max(1024, length)).put(MULTI);
            transactionCommands = 0;
            transactionBytes = 0;
            transactionTimestamp = -1;
            received = sequence;
            return;
        }
        if (is(payload, EXEC)) {
            received = sequence;
            ByteBuffer entry = transaction;
            int commands = transactionCommands;
            transaction = null;
            if (entry == null || commands == 0) {
                offset = received; // EXEC without MULTI is claimed and ignored
                return;
            }
            entry = room(entry, EXEC.length).put(EXEC).flip();
            append(transactionTimestamp, 0, EntryTag.APP, entry, received - offset);
            return;
        }
        try {
            frame.read(payload, from, limit);
            if (frame.end() != limit) {
                // a frame is one command: MULTI and EXEC come as frames of their own
                throw new IllegalArgumentException((limit - frame.end()) + " bytes follow its command at offset "
                        + (frame.end() - from));
            }
        } catch (IllegalArgumentException e) {
            throw new DivergenceException("a frame ending at offset " + sequence + " is no RESP command: "
                    + e.getMessage());
        }
        if (frame.is(0, AT)) {
            if (frame.count() < 3) {
                throw new DivergenceException("TANDEM.AT without a command at offset " + sequence);
            }
            long ts = timestamp(sequence);
            received = sequence;
            boolean publish = frame.count() == 5 && (frame.is(2, PUBLISH) || frame.is(2, SPUBLISH));
            boolean select = frame.count() == 4 && frame.is(2, SELECT);
            ByteBuffer command = command(payload);
            if (selected != null && (select || publish)) {
                throw new DivergenceException("a SELECT without its command at offset " + sequence);
            }
            if (select) {
                if (transaction != null) {
                    transactionBytes += length;
                    transaction = room(transaction, command.remaining()).put(command);
                } else {
                    selected = new byte[command.remaining()];
                    command.get(command.position(), selected);
                }
                return;
            }
            if (publish) {
                if (transaction != null) {
                    throw new DivergenceException("PUBLISH inside a transaction at offset " + sequence);
                }
                append(ts, 0, EntryTag.PUBLISH, command, length);
                return;
            }
            if (transaction != null) {
                if (transactionCommands >= MAX_TRANSACTION_COMMANDS
                        || transactionBytes + length > MAX_TRANSACTION_BYTES) {
                    throw new DivergenceException("a replicated transaction exceeds " + MAX_TRANSACTION_COMMANDS
                            + " commands or " + MAX_TRANSACTION_BYTES + " bytes");
                }
                if (transactionTimestamp >= 0 && ts != transactionTimestamp) {
                    throw new DivergenceException("a transaction's commands carry two timestamps at offset "
                            + sequence);
                }
                transactionTimestamp = ts;
                transactionBytes += length;
                transactionCommands++;
                transaction = room(transaction, command.remaining()).put(command);
                return;
            }
            long hash = keyHash(payload);
            if (selected != null) {
                command = ByteBuffer.allocate(selected.length + command.remaining()).put(selected).put(command).flip();
                selected = null;
            }
            append(ts, hash, EntryTag.APP, command, received - offset);
        } else if (frame.is(0, TICK)) {
            if (frame.count() != 2 || transaction != null || selected != null) {
                throw new DivergenceException("a malformed TANDEM.TICK at offset " + sequence);
            }
            long ts = timestamp(sequence);
            received = sequence;
            append(ts, 0, EntryTag.TICK, tick.clear().putLong(0, ts), length);
        } else {
            String name = new String(frame.element(0), StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
            throw new DivergenceException("the stream carries '" + name + "' at offset " + sequence
                    + " where a Tandem primary sends TANDEM.AT or TANDEM.TICK");
        }
    }

    /**
     * The command a {@code TANDEM.AT} frame wraps, as the primary journaled it: its arguments as they are in the
     * frame, behind its own array header, written over the frame's timestamp just before them.
     */
    private ByteBuffer command(ByteBuffer payload) {
        int count = frame.count() - 2;
        int start = frame.elementStart(2);
        byte[] header = ("*" + count + "\r\n").getBytes(StandardCharsets.US_ASCII);
        int at = start - header.length;
        payload.put(at, header);
        return payload.duplicate().position(at).limit(frame.end());
    }

    /** The hash of the argument the node names as the wrapped command's first key, 0 when it has none. */
    private long keyHash(ByteBuffer payload) {
        String name = new String(frame.element(2), StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        int key = firstKey.applyAsInt(name);
        if (key <= 0 || key >= frame.count() - 2) {
            return 0;
        }
        return KeyHash.fnv1a64(payload, frame.start(2 + key), frame.length(2 + key));
    }

    private static ByteBuffer room(ByteBuffer b, int more) {
        if (b.remaining() >= more) {
            return b;
        }
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + more));
        return bigger.put(b.flip());
    }

    private static boolean is(ByteBuffer payload, byte[] expected) {
        return payload.remaining() == expected.length
                && payload.slice().equals(ByteBuffer.wrap(expected));
    }

    /** One codec for the REPLCONF grammar (case-insensitive), whatever the bytes' spelling. */
    private static boolean isGetAck(ByteBuffer payload) {
        try {
            byte[] bytes = new byte[payload.remaining()];
            payload.get(payload.position(), bytes);
            return Replconf.isGetAck(CommandPayload.decode(bytes).get(0));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void append(long ts, long hash, byte tag, ByteBuffer entry, long frameBytes) {
        lastSequence = sink.append(ts, hash, tag, entry, frameBytes);
        offset = received;
    }

    /** The frame's timestamp, its second element: a canonical decimal. */
    private long timestamp(long sequence) throws DivergenceException {
        byte[] digits = frame.element(1);
        try {
            long ts = String2ll.parse(digits);
            if (ts < 0 || !Long.toString(ts).equals(new String(digits, StandardCharsets.US_ASCII))) {
                throw new NumberFormatException();
            }
            return ts;
        } catch (NumberFormatException e) {
            throw new DivergenceException("a timestamp that is no canonical decimal at offset " + sequence);
        }
    }
}
