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
 * A body (a checkpoint stream, a segment seed) written as SnapshotChunk frames of at most
 * {@link Frames#SNAPSHOT_CHUNK} data bytes, with the CRC32C of every byte for the SnapshotEnd that closes it. The
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
    private volatile long written;
    private boolean open = true;

    ChunkChannel(Sink sink) {
        this.sink = sink;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int n = 0;
        while (src.hasRemaining()) {
            ByteBuffer data = src.slice(src.position(), Math.min(src.remaining(), Frames.SNAPSHOT_CHUNK));
            crc.update(data.duplicate());
            frame.clear();
            SnapshotChunk.write(frame, data);
            frame.flip();
            try {
                sink.send(frame);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("the link closed during the transfer");
            }
            src.position(src.position() + data.remaining());
            n += data.remaining();
            written += data.remaining();
        }
        return n;
    }

    /** @return the bytes of the body so far */
    long written() {
        return written;
    }

    /** @return the CRC32C of the body so far */
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
