package tandem.protocol.frpl;

import java.nio.ByteBuffer;

import tandem.api.journal.EntryTag;
import tandem.protocol.command.CommandPayload;

/**
 * Writes the FRPL frames of journal entries, each behind its {@link FrplFrame} header, back to back into one
 * reusable buffer, straight from the entry's payload: a command's arguments are copied once, as they are, behind
 * the {@code *<N+2>\r\n$9\r\nTANDEM.AT\r\n$<d>\r\n<ts>\r\n} that replaces its array header (the frames are drawn in
 * {@link FrplPayload}). Not thread-safe; reusable.
 */
public final class FrplWriter {

    private final RespArray array = new RespArray();
    private ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);

    /**
     * Appends the frames of one entry (none for an EpochBump or a fragment).
     *
     * @param payload the entry's payload between its position and limit (for an App entry the whole command,
     *                fragments joined); not consumed
     * @param offset  the stream offset before the entry
     * @return the stream offset after it
     * @throws IllegalArgumentException as {@link FrplPayload#length(byte, long, ByteBuffer)}; what was written before
     *                                  the call stays, nothing of this entry does
     */
    public long entry(byte tag, long timestampNs, ByteBuffer payload, long offset) {
        int mark = buffer.position();
        try {
            return write(tag, timestampNs, payload, offset);
        } catch (IllegalArgumentException e) {
            buffer.position(mark);
            throw e;
        }
    }

    private long write(byte tag, long timestampNs, ByteBuffer payload, long offset) {
        int d = FrplPayload.timestampDigits(timestampNs);
        switch (tag) {
            case EntryTag.TICK: {
                int length = FrplPayload.TICK.length + RespArray.bulkHeaderLength(d) + d + 2;
                offset = header(offset, length);
                buffer.put(FrplPayload.TICK);
                timestamp(timestampNs, d);
                return offset;
            }
            case EntryTag.EPOCH_BUMP:
            case EntryTag.APP_CONTINUATION:
                return offset;
            case EntryTag.PUBLISH:
                FrplPayload.checkPublish(payload); // then framed as the App command it looks like
                break;
            case EntryTag.APP:
                break;
            default:
                throw new IllegalArgumentException(String.format("unknown entry tag 0x%02X", tag & 0xFF));
        }
        int from = payload.position();
        int limit = payload.limit();
        if (!FrplPayload.isTransaction(payload, from, limit)) {
            int end = RespArray.end(payload, from, limit);
            if (end != limit && FrplPayload.isSelectAt(payload, from, limit)) {
                FrplPayload.length(tag, timestampNs, payload); // the command is sound before a frame is written
                offset = command(payload, from, end, timestampNs, d, offset);
                from = end;
                end = RespArray.end(payload, from, limit);
            }
            if (end != limit) {
                throw new IllegalArgumentException("App payload has " + (limit - end)
                        + " bytes after its command at offset " + (end - payload.position()));
            }
            return command(payload, from, limit, timestampNs, d, offset);
        }
        FrplPayload.length(tag, timestampNs, payload); // the whole transaction is sound before a frame is written
        offset = control(FrplPayload.MULTI, offset);
        int at = from + FrplPayload.MULTI.length;
        while (!FrplPayload.isExecAt(payload, at, limit)) {
            int end = RespArray.end(payload, at, limit);
            offset = command(payload, at, end, timestampNs, d, offset);
            at = end;
        }
        return control(FrplPayload.EXEC, offset);
    }

    /** {@code TANDEM.AT <ts>} in front of the arguments of the array at {@code payload[from, to)}. */
    private long command(ByteBuffer payload, int from, int to, long timestampNs, int d, long offset) {
        array.read(payload, from, to);
        int count = array.count();
        int args = to - array.elementStart(0);
        long length = FrplPayload.commandLength(count, to - from, FrplPayload.atLength(d));
        offset = header(offset, (int) length);
        buffer.put((byte) '*');
        decimal(count + 2L);
        buffer.put(FrplPayload.AT);
        timestamp(timestampNs, d);
        buffer.put(buffer.position(), payload, array.elementStart(0), args);
        buffer.position(buffer.position() + args);
        return offset;
    }

    private long control(byte[] frame, long offset) {
        offset = header(offset, frame.length);
        buffer.put(frame);
        return offset;
    }

    /** Writes a frame's header, making room for it and its payload. @return the offset after the frame */
    private long header(long offset, int length) {
        if (buffer.remaining() < FrplFrame.HEADER + length) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2,
                    buffer.position() + FrplFrame.HEADER + length));
            buffer.flip();
            bigger.put(buffer);
            buffer = bigger;
        }
        FrplFrame.writeHeader(buffer, 0, offset + length, length);
        return offset + length;
    }

    /** {@code $<d>\r\n<ts>\r\n}. */
    private void timestamp(long timestampNs, int d) {
        buffer.put((byte) '$');
        decimal(d);
        decimal(timestampNs);
    }

    /** {@code <value>\r\n}. */
    private void decimal(long value) {
        int d = CommandPayload.digits(value);
        int at = buffer.position() + d;
        for (long v = value; at > buffer.position(); v /= 10) {
            buffer.put(--at, (byte) ('0' + v % 10));
        }
        buffer.position(buffer.position() + d);
        buffer.put((byte) '\r').put((byte) '\n');
    }

    /** @return the bytes written since the last {@link #clear}, as a new buffer over them (the writer's own) */
    public ByteBuffer written() {
        return buffer.duplicate().flip();
    }

    /** @return the number of bytes written since the last {@link #clear} */
    public int size() {
        return buffer.position();
    }

    /** Forgets what was written. */
    public void clear() {
        buffer.clear();
    }
}
