package tandem.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

import tandem.protocol.journal.JournalEntry;

/**
 * Walks the entries of a segment file in order through a window that always holds a whole entry when the file
 * does, so every entry is validated in place, without a copy.
 */
final class EntryCursor {

    private static final int WINDOW = 1 << 20;

    private final FileChannel channel;
    private final long limit;
    private final byte[] array = new byte[WINDOW];
    private final ByteBuffer window = ByteBuffer.wrap(array);
    private final JournalEntry entry = new JournalEntry();
    private final CRC32C crc = new CRC32C();
    private long windowStart;
    private int position;
    private int end;
    private int entryPosition;

    /** Receives the entries of a {@link #walk}; false stops it. */
    @FunctionalInterface
    interface Handler {
        boolean entry(JournalEntry entry, EntryCursor cursor);
    }

    /**
     * Hands each entry of a segment's durable bytes, from file offset {@code start} up to {@code limit}, to
     * {@code handler} until it stops.
     *
     * @param name the segment's file name, for the error
     * @return false when the handler stopped the walk
     * @throws IllegalStateException when an entry before {@code limit} is not valid: corruption inside the durable
     *                               journal
     */
    static boolean walk(FileChannel channel, long start, long limit, String name, Handler handler)
            throws IOException {
        EntryCursor cursor = new EntryCursor(channel, start, limit);
        while (true) {
            int r = cursor.next();
            if (r == JournalEntry.END && cursor.validEnd() == limit) {
                return true;
            }
            if (r < 0) {
                throw new IllegalStateException(name + ": " + JournalEntry.reason(r) + " at offset "
                        + cursor.entryOffset() + " inside the durable journal");
            }
            if (!handler.entry(cursor.entry(), cursor)) {
                return false;
            }
        }
    }

    EntryCursor(FileChannel channel, long start, long limit) {
        this.channel = channel;
        this.windowStart = start;
        this.limit = limit;
    }

    /** @return the size of the next valid entry (then {@link #entry()}), or a negative {@link JournalEntry} code */
    int next() throws IOException {
        if (end - position < JournalEntry.MAX_SIZE && windowStart + end < limit) {
            refill();
        }
        int r = JournalEntry.check(window, position, end, crc);
        entryPosition = position;
        if (r > 0) {
            entry.wrap(window, position);
            position += r;
        }
        return r;
    }

    private void refill() throws IOException {
        System.arraycopy(array, position, array, 0, end - position);
        windowStart += position;
        end -= position;
        position = 0;
        while (end < WINDOW && windowStart + end < limit) {
            int want = (int) Math.min(WINDOW - end, limit - windowStart - end);
            int n = channel.read(ByteBuffer.wrap(array, end, want), windowStart + end);
            if (n < 0) {
                break;
            }
            end += n;
        }
    }

    JournalEntry entry() {
        return entry;
    }

    byte[] array() {
        return array;
    }

    /** @return the index in {@link #array()} of the last entry read (or of the invalid bytes) */
    int entryPosition() {
        return entryPosition;
    }

    /** @return the file offset of the last entry read, or where validation failed */
    long entryOffset() {
        return windowStart + entryPosition;
    }

    /** @return the file offset just past the last valid entry */
    long validEnd() {
        return windowStart + position;
    }
}
