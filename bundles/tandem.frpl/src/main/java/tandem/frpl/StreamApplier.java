package tandem.frpl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

import tandem.api.frpl.FrplStreams;
import tandem.api.frpl.FrplStreams.DivergenceException;
import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;
import tandem.protocol.command.String2ll;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.frpl.Replconf;

/**
 * A psync replica's side of the FRPL stream: turns each frame back into the journal entry the primary streamed it
 * from, and journals it in this node's own lineage (its own sequences, the primary's timestamps).
 *
 * <ul>
 * <li>{@code TANDEM.AT <ts> cmd…} becomes an App entry of {@code cmd…} at {@code ts}; {@code TANDEM.TICK <ts>} a
 * Tick; {@code MULTI}, wrapped commands, {@code EXEC} one transaction entry, journaled at {@code EXEC} (an
 * interrupted group journals nothing, and its bytes are not counted: the next {@code PSYNC} asks for it again).</li>
 * <li>Each entry's FRPL length is recomputed from the entry ({@link FrplPayload#length}) and must equal the bytes
 * received for it, so the journal's offset is the primary's, byte for byte.</li>
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

    private final FrplStreams.Sink sink;
    private final ToLongFunction<byte[][]> keyHash;
    /** The offset after the last entry journaled. */
    private long offset;
    /** The offset after the last frame received, inside an open transaction beyond {@link #offset}. */
    private long received;
    private List<byte[][]> transaction;
    private long transactionTimestamp;
    private long transactionBytes;
    private long owedAck = -1;
    private long duplicates;
    private long lastSequence;

    StreamApplier(long startOffset, ToLongFunction<byte[][]> keyHash, FrplStreams.Sink sink) {
        this.offset = startOffset;
        this.received = startOffset;
        this.keyHash = keyHash;
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

    /** Applies one frame; see the class comment. */
    void frame(int shard, long sequence, ByteBuffer payload) throws DivergenceException {
        byte[] bytes = new byte[payload.remaining()];
        payload.get(bytes);
        if (shard == FrplFrame.CONTROL_SHARD) {
            if (isGetAck(bytes)) {
                owedAck = received;
            }
            return; // other control frames carry nothing Tandem acts on
        }
        if (sequence <= received) {
            duplicates++;
            return;
        }
        if (sequence != received + bytes.length) {
            throw new DivergenceException("a frame of " + bytes.length + " bytes ends at offset " + sequence
                    + ", the stream is at " + received);
        }
        if (Arrays.equals(bytes, MULTI)) {
            transaction = new ArrayList<>();
            transactionBytes = 0;
            transactionTimestamp = -1;
            received = sequence;
            return;
        }
        if (Arrays.equals(bytes, EXEC)) {
            received = sequence;
            List<byte[][]> commands = transaction;
            transaction = null;
            if (commands == null || commands.isEmpty()) {
                offset = received; // EXEC without MULTI is claimed and ignored
                return;
            }
            byte[] entry = CommandPayload.encodeTransaction(commands);
            append(transactionTimestamp, 0, EntryTag.APP, entry, received - offset);
            return;
        }
        byte[][] args;
        try {
            List<byte[][]> decoded = CommandPayload.decode(bytes);
            // a frame is one command: MULTI and EXEC come as frames of their own (a frame holding both decodes to
            // none, which would otherwise fail here as an error that keeps the id and loops on +CONTINUE)
            if (decoded.size() != 1 || decoded.get(0).length == 0) {
                throw new IllegalArgumentException("it holds " + decoded.size() + " commands, a frame holds one");
            }
            args = decoded.get(0);
        } catch (IllegalArgumentException e) {
            throw new DivergenceException("a frame ending at offset " + sequence + " is no RESP command: "
                    + e.getMessage());
        }
        String name = new String(args[0], StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
        switch (name) {
            case "TANDEM.AT" -> {
                if (args.length < 3) {
                    throw new DivergenceException("TANDEM.AT without a command at offset " + sequence);
                }
                long ts = timestamp(args[1], sequence);
                byte[][] command = Arrays.copyOfRange(args, 2, args.length);
                received = sequence;
                if (transaction != null) {
                    if (transaction.size() >= MAX_TRANSACTION_COMMANDS
                            || transactionBytes + bytes.length > MAX_TRANSACTION_BYTES) {
                        throw new DivergenceException("a replicated transaction exceeds " + MAX_TRANSACTION_COMMANDS
                                + " commands or " + MAX_TRANSACTION_BYTES + " bytes");
                    }
                    if (transactionTimestamp >= 0 && ts != transactionTimestamp) {
                        throw new DivergenceException("a transaction's commands carry two timestamps at offset "
                                + sequence);
                    }
                    transactionTimestamp = ts;
                    transactionBytes += bytes.length;
                    transaction.add(command);
                    return;
                }
                append(ts, keyHash.applyAsLong(command), EntryTag.APP, CommandPayload.encode(command), bytes.length);
            }
            case "TANDEM.TICK" -> {
                if (args.length != 2 || transaction != null) {
                    throw new DivergenceException("a malformed TANDEM.TICK at offset " + sequence);
                }
                long ts = timestamp(args[1], sequence);
                received = sequence;
                byte[] tick = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(ts).array();
                append(ts, 0, EntryTag.TICK, tick, bytes.length);
            }
            default -> throw new DivergenceException("the stream carries '" + name + "' at offset " + sequence
                    + " where a Tandem primary sends TANDEM.AT or TANDEM.TICK");
        }
    }

    /** One codec for the REPLCONF grammar (case-insensitive), whatever the bytes' spelling. */
    private static boolean isGetAck(byte[] bytes) {
        try {
            return Replconf.isGetAck(CommandPayload.decode(bytes).get(0));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void append(long ts, long hash, byte tag, byte[] entry, long frameBytes) throws DivergenceException {
        long length;
        try {
            length = FrplPayload.length(tag, ts, entry);
        } catch (IllegalArgumentException e) {
            throw new DivergenceException("an entry rebuilt at offset " + received + " is not sound: "
                    + e.getMessage());
        }
        if (length != frameBytes) {
            throw new DivergenceException("an entry rebuilt at offset " + received + " counts " + length
                    + " bytes, the stream sent " + frameBytes);
        }
        lastSequence = sink.append(ts, hash, tag, entry);
        offset = received;
    }

    private static long timestamp(byte[] digits, long sequence) throws DivergenceException {
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
