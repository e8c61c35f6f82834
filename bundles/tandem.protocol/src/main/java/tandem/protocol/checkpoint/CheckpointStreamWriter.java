package tandem.protocol.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Produces a checkpoint stream (layout in {@link tandem.protocol.checkpoint the package}). A sender with its own
 * transport (Netty, SnapshotChunk frames) writes the pieces itself, in this order:
 *
 * <ol>
 * <li>{@link #prelude(int)};
 * <li>per file, in byte-wise name order ({@link #sortByName}): {@link #fileHeader(String, long)}, then the file's
 * bytes, each also given to a {@link CheckpointChecksum} between {@code beginFile(name)} and {@code endFile()};
 * <li>{@link #trailer(CheckpointTrailer)} with the checksum's {@code hex()}.
 * </ol>
 *
 * The length of the whole stream, {@link #streamLength(List, String, long)}, depends on the names, sizes,
 * replication id and offset but not on the checksum (always 64 hex digits): a sender announces it (SnapshotBegin's
 * {@code snapshot_len}) before it has hashed anything, and hashes while it streams. {@link #write} does all of it
 * for files on disk into a blocking channel.
 */
public final class CheckpointStreamWriter {

    private static final byte[] CRLF = {'\r', '\n'};

    private CheckpointStreamWriter() {
    }

    /**
     * A destination that sends a file's bytes itself, without passing them through the heap (a Netty channel's
     * file region); {@link #write} hashes each file, then hands it over instead of copying it.
     */
    public interface FileSink extends WritableByteChannel {

        /** Queues {@code count} bytes of {@code file} from {@code position}, after what was written before. */
        void sendFile(Path file, long position, long count) throws IOException;
    }

    /**
     * @return {@code $FROGDB_CHECKPOINT\r\n<count>\r\n}
     * @throws IllegalArgumentException when count is outside 0..{@value CheckpointStream#MAX_FILE_COUNT}
     */
    public static byte[] prelude(int count) {
        if (count < 0 || count > CheckpointStream.MAX_FILE_COUNT) {
            throw new IllegalArgumentException("file count " + count + " is outside 0.." + CheckpointStream.MAX_FILE_COUNT);
        }
        return concat(CheckpointStream.MARKER_LINE, ascii(count + "\r\n"));
    }

    /**
     * @return {@code $<name_len>\r\n<name>\r\n$<size>\r\n}; the file's {@code size} raw bytes follow, without CRLF
     * @throws IllegalArgumentException when the name breaks the file-name rule or the size is outside 0..2^62
     */
    public static byte[] fileHeader(String name, long size) {
        byte[] n = CheckpointStream.requireFileName(name);
        CheckpointStream.requireFileSize(size);
        return concat(ascii("$" + n.length + "\r\n"), n, ascii("\r\n$" + size + "\r\n"));
    }

    /**
     * @return {@code $<meta_len>\r\n<metadata>\r\n}
     * @throws IllegalArgumentException when the metadata is longer than {@value CheckpointStream#MAX_METADATA_LENGTH}
     */
    public static byte[] trailer(CheckpointTrailer t) {
        byte[] m = t.encode();
        if (m.length > CheckpointStream.MAX_METADATA_LENGTH) {
            throw new IllegalArgumentException("metadata of " + m.length + " bytes exceeds "
                    + CheckpointStream.MAX_METADATA_LENGTH);
        }
        return concat(ascii("$" + m.length + "\r\n"), m, CRLF);
    }

    /**
     * @param files the files in any order (names are checked, not sorted: the length does not depend on the order)
     * @return the length of the stream that sends {@code files} with this trailer
     */
    public static long streamLength(List<CheckpointFile> files, CheckpointTrailer trailer) {
        return streamLength(files, trailer.replicationId(), trailer.replicationOffset());
    }

    /**
     * The stream's length before the checksum is known: the trailer's {@code rdb_size} is the sum of the sizes and
     * its checksum is 64 hex digits whatever the bytes.
     *
     * @throws IllegalArgumentException when there are more than {@value CheckpointStream#MAX_FILE_COUNT} files, the
     *         replication id is not valid, or the metadata would exceed its limit
     */
    public static long streamLength(List<CheckpointFile> files, String replicationId, long replicationOffset) {
        long length = prelude(files.size()).length;
        long rdbSize = 0;
        for (CheckpointFile f : files) {
            int nameLength = f.name().getBytes(StandardCharsets.UTF_8).length;
            length = Math.addExact(length, 1 + digits(nameLength) + 2 + nameLength + 2 + 1 + digits(f.size()) + 2);
            length = Math.addExact(length, f.size());
            rdbSize = Math.addExact(rdbSize, f.size());
        }
        CheckpointTrailer t = new CheckpointTrailer(rdbSize, "0".repeat(CheckpointStream.CHECKSUM_HEX_LENGTH),
                replicationId, replicationOffset);
        return Math.addExact(length, trailer(t).length);
    }

    /** @return the files sorted by their names' UTF-8 bytes, unsigned: the wire order */
    public static List<CheckpointFile> sortByName(List<CheckpointFile> files) {
        List<CheckpointFile> sorted = new ArrayList<>(files);
        sorted.sort(Comparator.comparing(f -> f.name().getBytes(StandardCharsets.UTF_8),
                CheckpointStream::compareNames));
        return sorted;
    }

    /**
     * Streams the checkpoint made of {@code files} into {@code out}: each file's name is its last path component,
     * the files are sent in byte-wise name order whatever the list's order, in {@value CheckpointStream#CHUNK_SIZE}
     * byte chunks, hashed on the way. When {@code out} is a {@link FileChannel} or {@link SocketChannel}, the bytes
     * go by {@link FileChannel#transferTo} (sendfile, no copy through the heap) after a hashing read of the same
     * file: checkpoint files are immutable hard links, so the two reads see the same bytes. Other channels get one
     * read that is hashed and written.
     *
     * <p>The sizes are taken (and the count, replication id and metadata length checked) before the first byte is
     * written; a file that then turns out shorter or longer fails the write with an IOException (the stream is
     * then unusable: the receiver's checksum or framing breaks).
     *
     * @param out a blocking channel; not closed
     * @return the bytes written, equal to {@link #streamLength(List, String, long)} of the files' names and sizes
     * @throws IllegalArgumentException when two files share a name, a name breaks the file-name rule, there are too
     *         many files, the replication id is not valid, or {@code out} is a non-blocking selectable channel
     * @throws IOException from the files or {@code out}
     */
    public static long write(List<Path> files, String replicationId, long replicationOffset, WritableByteChannel out)
            throws IOException {
        if (out instanceof SelectableChannel s && !s.isBlocking()) {
            throw new IllegalArgumentException("out must be in blocking mode");
        }
        List<Path> sorted = new ArrayList<>(files);
        sorted.sort(Comparator.comparing(p -> CheckpointStream.requireFileName(name(p)),
                CheckpointStream::compareNames));
        for (int i = 1; i < sorted.size(); i++) {
            if (name(sorted.get(i)).equals(name(sorted.get(i - 1)))) {
                throw new IllegalArgumentException("two files named '" + CheckpointStream.escape(name(sorted.get(i)))
                        + "': " + sorted.get(i - 1) + " and " + sorted.get(i));
            }
        }
        long[] sizes = new long[sorted.size()];
        List<CheckpointFile> entries = new ArrayList<>(sorted.size());
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = Files.size(sorted.get(i));
            entries.add(new CheckpointFile(name(sorted.get(i)), sizes[i]));
        }
        streamLength(entries, replicationId, replicationOffset); // checks count, id and metadata before any byte
        boolean zeroCopy = out instanceof FileChannel || out instanceof SocketChannel || out instanceof FileSink;
        ByteBuffer buf = ByteBuffer.allocateDirect(CheckpointStream.CHUNK_SIZE);
        CheckpointChecksum checksum = new CheckpointChecksum();
        long written = writeFully(out, prelude(sorted.size()));
        long rdbSize = 0;
        for (int i = 0; i < sizes.length; i++) {
            Path p = sorted.get(i);
            long size = sizes[i];
            try (FileChannel in = FileChannel.open(p, StandardOpenOption.READ)) {
                if (in.size() != size) {
                    throw changed(p, size);
                }
                written += writeFully(out, fileHeader(entries.get(i).name(), size));
                checksum.beginFile(entries.get(i).name());
                if (zeroCopy) {
                    hash(in, size, buf, checksum, p);
                    if (out instanceof FileSink sink) {
                        sink.sendFile(p, 0, size);
                    } else {
                        transfer(in, size, out, p);
                    }
                } else {
                    copy(in, size, buf, checksum, out, p);
                }
                checksum.endFile();
                written += size;
                rdbSize += size;
            }
        }
        written += writeFully(out, trailer(new CheckpointTrailer(rdbSize, checksum.hex(), replicationId,
                replicationOffset)));
        return written;
    }

    private static String name(Path p) {
        Path n = p.getFileName();
        if (n == null) {
            throw new IllegalArgumentException("no file name in " + p);
        }
        return n.toString();
    }

    private static void hash(FileChannel in, long size, ByteBuffer buf, CheckpointChecksum checksum, Path p)
            throws IOException {
        long at = 0;
        while (at < size) {
            buf.clear().limit((int) Math.min(buf.capacity(), size - at));
            int n = in.read(buf, at);
            if (n < 0) {
                throw changed(p, size);
            }
            at += n;
            checksum.update(buf.flip());
        }
        if (in.read(buf.clear().limit(1), at) > 0) {
            throw changed(p, size);
        }
    }

    private static void transfer(FileChannel in, long size, WritableByteChannel out, Path p) throws IOException {
        long at = 0;
        while (at < size) {
            long n = in.transferTo(at, Math.min(size - at, 1L << 30), out);
            if (n <= 0) {
                throw changed(p, size);
            }
            at += n;
        }
    }

    private static void copy(FileChannel in, long size, ByteBuffer buf, CheckpointChecksum checksum,
            WritableByteChannel out, Path p) throws IOException {
        long at = 0;
        while (at < size) {
            buf.clear().limit((int) Math.min(buf.capacity(), size - at));
            int n = in.read(buf, at);
            if (n < 0) {
                throw changed(p, size);
            }
            at += n;
            buf.flip();
            checksum.update(buf.duplicate());
            while (buf.hasRemaining()) {
                out.write(buf);
            }
        }
        if (in.read(buf.clear().limit(1), at) > 0) {
            throw changed(p, size);
        }
    }

    private static IOException changed(Path p, long size) {
        return new IOException("file " + p + " changed size while streaming (it had " + size + " bytes)");
    }

    private static long writeFully(WritableByteChannel out, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            out.write(b);
        }
        return bytes.length;
    }

    private static int digits(long v) {
        return Long.toString(v).length();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
