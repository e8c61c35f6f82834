package tandem.checkpoint;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

import tandem.protocol.checkpoint.CheckpointFile;
import tandem.protocol.checkpoint.CheckpointStreamWriter;
import tandem.protocol.files.DurableFiles;

/**
 * The primary's side of one full sync: a directory holding a checkpoint cut for this one replica
 * ({@link tandem.api.store.Keyspace#checkpoint}, on the store's logic thread), streamed in the checkpoint stream
 * format, then deleted. The file list is taken once, when the sender is made: a cut checkpoint's files are
 * immutable hard links, so the sizes that give the stream's length ahead of time (SnapshotBegin's
 * {@code snapshot_len}) are the sizes that are sent.
 *
 * <p>Each replica gets its own cut: nothing here is shared between concurrent full syncs, so {@link #cleanup} can
 * delete the directory as soon as the stream is sent or abandoned.
 */
public final class CheckpointSender {

    private static final System.Logger LOG = System.getLogger("tandem.checkpoint");

    private final Path directory;
    private final List<CheckpointFile> files;
    private final List<Path> paths;

    /**
     * Lists the checkpoint in {@code directory}.
     *
     * @throws IOException when the directory cannot be listed, or holds anything but regular files (a
     *         subdirectory or a symbolic link is not part of a RocksDB checkpoint)
     * @throws IllegalArgumentException when a file name breaks the stream's file-name rule or is the reserved
     *         {@value StagedCheckpoint#METADATA_FILE}
     */
    public CheckpointSender(Path directory) throws IOException {
        this.directory = directory;
        List<CheckpointFile> listed = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory)) {
            for (Path p : ds) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!a.isRegularFile()) {
                    throw new IOException("checkpoint directory " + directory + " holds " + p
                            + ", which is not a regular file");
                }
                String name = p.getFileName().toString();
                if (name.equals(StagedCheckpoint.METADATA_FILE)) {
                    // the receiver writes its own metadata under this name
                    throw new IllegalArgumentException("checkpoint directory " + directory + " holds the reserved "
                            + name);
                }
                listed.add(new CheckpointFile(name, a.size()));
            }
        }
        this.files = List.copyOf(CheckpointStreamWriter.sortByName(listed));
        List<Path> ps = new ArrayList<>(files.size());
        for (CheckpointFile f : files) {
            ps.add(directory.resolve(f.name()));
        }
        this.paths = List.copyOf(ps);
    }

    /** @return the directory the checkpoint lies in */
    public Path directory() {
        return directory;
    }

    /** @return the files in stream order (byte-wise by name) with the sizes that will be sent */
    public List<CheckpointFile> files() {
        return files;
    }

    /** @return the sum of the file sizes: the trailer's rdb_size */
    public long rdbSize() {
        long n = 0;
        for (CheckpointFile f : files) {
            n = Math.addExact(n, f.size());
        }
        return n;
    }

    /**
     * @return the exact length of the stream {@link #send} writes with these trailer fields (SnapshotBegin's
     *         {@code snapshot_len})
     * @throws IllegalArgumentException when the replication id is not valid in a trailer
     */
    public long streamLength(String replicationId, long replicationOffset) {
        return CheckpointStreamWriter.streamLength(files, replicationId, replicationOffset);
    }

    /**
     * Streams the checkpoint into {@code out} (a blocking channel, not closed), hashing it on the way.
     *
     * @return the bytes written, {@link #streamLength} of the same fields
     * @throws IOException from the files or {@code out}, or when a file changed size since the listing (the
     *         stream is then unusable: the receiver's framing or checksum breaks)
     */
    public long send(String replicationId, long replicationOffset, WritableByteChannel out) throws IOException {
        long expected = streamLength(replicationId, replicationOffset);
        long started = System.nanoTime();
        long written = CheckpointStreamWriter.write(paths, replicationId, replicationOffset,
                new ProgressChannel(out, expected, started));
        if (written != expected) {
            throw new IOException("checkpoint " + directory + " streamed " + written + " bytes, announced "
                    + expected + ": a file changed since it was listed");
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        LOG.log(Level.INFO, () -> "sent checkpoint " + directory + ": " + files.size() + " files, " + written
                + " bytes in " + ms + " ms");
        return written;
    }

    /** Passes writes through and logs how far the stream got every few seconds (bytes, rate, time left). */
    private final class ProgressChannel implements WritableByteChannel {
        private final WritableByteChannel out;
        private final long total;
        private final long started;
        private long written;
        private long lastLogged;

        ProgressChannel(WritableByteChannel out, long total, long started) {
            this.out = out;
            this.total = total;
            this.started = started;
            this.lastLogged = started;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            int n = out.write(src);
            written += n;
            long now = System.nanoTime();
            if (now - lastLogged >= CheckpointReceiver.PROGRESS_LOG_NANOS && written < total) {
                lastLogged = now;
                double rate = written * 1e9 / (now - started);
                LOG.log(Level.INFO, String.format(java.util.Locale.ROOT, "sending checkpoint %s: %d/%d bytes (%d%%), "
                        + "%.1f MiB/s, %.1f s left", directory, written, total, written * 100 / Math.max(1, total),
                        rate / (1024 * 1024), rate <= 0 ? -1 : (total - written) / rate));
            }
            return n;
        }

        @Override
        public boolean isOpen() {
            return out.isOpen();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    /** Deletes the checkpoint directory; a missing one is no error. */
    public void cleanup() throws IOException {
        DurableFiles.deleteTree(directory);
        LOG.log(Level.DEBUG, () -> "deleted checkpoint " + directory);
    }
}
