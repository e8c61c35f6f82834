package tandem.replication;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.util.zip.CRC32C;

import tandem.protocol.replication.Frames;
import tandem.protocol.replication.SnapshotChunk;

/**
 * A body (a checkpoint stream, a segment seed) written as SnapshotChunk frames of {@link Frames#SNAPSHOT_CHUNK} data
 * bytes (the last one shorter, sent by {@link #flush()}), with the CRC32C of every byte for the SnapshotEnd that
 * closes it. The
 * frames go to a {@link Sink} that waits while the link's outbound buffer is full, so a slow replica holds the
 * sender back instead of filling memory.
 */
final class ChunkChannel implements WritableByteChannel {

    /** Where the frames go; waits while the link is not writable. */
    interface Sink {
        void send(ByteBuffer frames) throws InterruptedException;
    }

    private final Sink sink;
    private final CRC32C crc = new CRC32C();
    private final ByteBuffer frame = ByteBuffer.allocate(Frames.LENGTH_PREFIX + SnapshotChunk.LENGTH
            + Frames.SNAPSHOT_CHUNK).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer data = ByteBuffer.allocate(Frames.SNAPSHOT_CHUNK);
    private volatile long written;
    private boolean open = true;

    ChunkChannel(Sink sink) {
        this.sink = sink;
    }

    /**
     * Gathers the bytes into chunks of {@link Frames#SNAPSHOT_CHUNK}: a file channel's {@code transferTo} into a
     * channel that is not a file or socket writes 8 KiB at a time, and eight times the frames would cost as much.
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        int n = src.remaining();
        while (src.hasRemaining()) {
            if (!data.hasRemaining()) {
                flush();
            }
            int take = Math.min(data.remaining(), src.remaining());
            data.put(data.position(), src, src.position(), take);
            data.position(data.position() + take);
            src.position(src.position() + take);
        }
        written += n;
        return n;
    }

    /** Sends the bytes gathered so far as one SnapshotChunk; the last one before SnapshotEnd. */
    void flush() throws IOException {
        if (data.position() == 0) {
            return;
        }
        data.flip();
        crc.update(data.duplicate());
        frame.clear();
        SnapshotChunk.write(frame, data);
        frame.flip();
        data.clear();
        try {
            sink.send(frame);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("the link closed during the transfer");
        }
    }

    /** @return the bytes of the body so far */
    long written() {
        return written;
    }

    /** @return the CRC32C of the body: call after {@link #flush()} */
    int crc() {
        return (int) crc.getValue();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }
}
