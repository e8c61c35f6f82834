package tandem.checkpoint;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.function.LongSupplier;

import tandem.protocol.checkpoint.CheckpointStream;
import tandem.protocol.checkpoint.CheckpointStreamException;
import tandem.protocol.checkpoint.CheckpointStreamReader;
import tandem.protocol.checkpoint.CheckpointTrailer;
import tandem.protocol.files.DurableFiles;

/**
 * Receives one checkpoint stream into {@code <root>/incoming} and, once it is complete and verified, commits it to
 * {@code <root>/staged} with one atomic rename (research/frogdb.md §2.4). The caller {@link #feed}s the stream's
 * bytes as they arrive (any split); the receiver decodes them with a {@link CheckpointStreamReader} whose
 * {@link CheckpointStreamReader.Listener} it is.
 *
 * <pre>
 *  open(root, total)      delete a left-over incoming (a crash's), create it empty: zero-file checkpoints work
 *  feed(chunk)*           per file: create (name checked again), 64 KiB writes, fsync, close
 *  ... end(trailer)       the reader verified rdb_size and checksum: write incoming/CHECKPOINT, fsync it
 *                         and incoming
 *  commit()               staged -&gt; discarded, incoming -&gt; staged (the commit point), fsync root,
 *                         delete discarded
 *  abort(reason)          any failure: delete incoming; staged and the store are never touched before commit
 * </pre>
 *
 * Commit is separate from the stream's end so the caller can check what wraps the stream first (the journal
 * protocol's SnapshotEnd CRC32C) and commit only then. Because the metadata is inside {@code incoming} before the
 * rename, any {@code staged} directory is complete; {@code incoming} is never trusted after a crash. A crash
 * between commit's two renames loses the previous staged checkpoint, which the new one was replacing anyway; the
 * live store is never touched here.
 *
 * <p>One receiver per stream, used by one thread at a time; {@link #progress()} may be read from another.
 */
public final class CheckpointReceiver implements CheckpointStreamReader.Listener, AutoCloseable {

    private static final System.Logger LOG = System.getLogger("tandem.checkpoint");

    private enum State {
        RECEIVING, COMPLETE, COMMITTED, FAILED
    }

    /**
     * How far a receive has come.
     *
     * @param totalBytes the stream's length when the caller knew it (SnapshotBegin's snapshot_len), else -1
     * @param elapsedNanos since {@link #open}
     */
    public record Progress(long bytesReceived, long totalBytes, long filesReceived, long elapsedNanos) {

        /** @return the average rate since the receive began, 0 before any time has passed */
        public double bytesPerSecond() {
            return elapsedNanos <= 0 ? 0 : bytesReceived * 1e9 / elapsedNanos;
        }

        /** @return received / total in [0, 1], or -1 when the total is unknown */
        public double fraction() {
            return totalBytes < 0 ? -1 : totalBytes == 0 ? 1 : (double) bytesReceived / totalBytes;
        }

        /** @return the seconds left at the average rate so far, -1 when the total or the rate is unknown */
        public double secondsLeft() {
            double rate = bytesPerSecond();
            return totalBytes < 0 || rate <= 0 ? -1 : Math.max(0, totalBytes - bytesReceived) / rate;
        }

        @Override
        public String toString() {
            double left = secondsLeft();
            return bytesReceived + (totalBytes < 0 ? "" : "/" + totalBytes) + " bytes, " + filesReceived
                    + " files, " + String.format(Locale.ROOT, "%.1f", bytesPerSecond() / (1024 * 1024)) + " MiB/s"
                    + (left < 0 || bytesReceived == totalBytes ? "" : String.format(Locale.ROOT, ", %.1f s left",
                            left));
        }
    }

    private final Path root;
    private final Path incoming;
    private final long totalBytes;
    private final LongSupplier nanoClock;
    private final long startNanos;
    /** A long receive says how far it got every few seconds, so that a person tailing the log sees it move. */
    static final long PROGRESS_LOG_NANOS = 5_000_000_000L;
    private long lastLoggedNanos;
    private final CheckpointStreamReader reader = new CheckpointStreamReader(this);
    /** Gathers the reader's slices, whatever their size, into 64 KiB writes. */
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(CheckpointStream.CHUNK_SIZE);

    private volatile State state = State.RECEIVING;
    private volatile long filesReceived;
    private volatile long bytesReceived;
    private String failure;
    private FileChannel file;
    private Path filePath;
    private long fileSize;
    private long fileWritten;
    private StagedCheckpoint received;

    private CheckpointReceiver(Path root, long totalBytes, LongSupplier nanoClock) {
        this.root = root.toAbsolutePath().normalize();
        this.incoming = CheckpointRoot.incoming(this.root);
        this.totalBytes = totalBytes;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.lastLoggedNanos = startNanos;
    }

    /**
     * Prepares to receive a stream: creates {@code root} if needed, deletes a left-over {@code incoming} and
     * creates it empty.
     *
     * @param totalBytes the stream's length when known (then a longer or shorter stream fails), else -1
     */
    public static CheckpointReceiver open(Path root, long totalBytes) throws IOException {
        return open(root, totalBytes, System::nanoTime);
    }

    /** {@link #open(Path, long)} with the clock that measures the rate. */
    static CheckpointReceiver open(Path root, long totalBytes, LongSupplier nanoClock) throws IOException {
        if (totalBytes < -1) {
            throw new IllegalArgumentException("totalBytes " + totalBytes + " must be -1 (unknown) or >= 0");
        }
        CheckpointReceiver r = new CheckpointReceiver(root, totalBytes, nanoClock);
        Files.createDirectories(r.root);
        if (Files.exists(r.incoming)) {
            LOG.log(Level.INFO, "clearing " + r.incoming + " left over from an interrupted receive");
            DurableFiles.deleteTree(r.incoming);
        }
        Files.createDirectory(r.incoming);
        DurableFiles.syncDirectory(r.root);
        LOG.log(Level.DEBUG, () -> "receiving a checkpoint into " + r.incoming
                + (totalBytes < 0 ? "" : " (" + totalBytes + " bytes)"));
        return r;
    }

    /**
     * Feeds the next bytes of the stream; consumes {@code chunk} up to the stream's end (bytes after it stay).
     * Any failure (a malformed stream, a checksum mismatch, a stream longer or shorter than announced, an I/O
     * error) aborts the receive, deleting {@code incoming}, and is rethrown.
     *
     * @return whether the stream is complete and verified: {@link #commit} may follow
     * @throws CheckpointStreamException when the stream is malformed or does not verify
     * @throws IOException from writing the files
     * @throws IllegalStateException after a failure, an abort or a commit
     */
    public boolean feed(ByteBuffer chunk) throws IOException {
        if (state != State.RECEIVING && state != State.COMPLETE) {
            throw new IllegalStateException("checkpoint receive is " + describeState());
        }
        boolean done;
        try {
            done = reader.feed(chunk);
            bytesReceived = reader.bytesConsumed();
            long now = nanoClock.getAsLong();
            if (!done && now - lastLoggedNanos >= PROGRESS_LOG_NANOS) {
                lastLoggedNanos = now;
                LOG.log(Level.INFO, "receiving a checkpoint into " + incoming + ": " + progress());
            }
            if (totalBytes >= 0 && (bytesReceived > totalBytes || done && bytesReceived != totalBytes)) {
                throw new CheckpointStreamException("checkpoint stream of " + bytesReceived + " bytes"
                        + (done ? "" : " so far") + " does not match the announced " + totalBytes);
            }
        } catch (IOException | RuntimeException | Error e) {
            abort(String.valueOf(e.getMessage()));
            throw e;
        }
        return done;
    }

    /** @return whether the stream is complete and verified and not yet committed */
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    /** @return where the stream stopped, for an error when it ends early (the reader's words) */
    public String position() {
        return reader.progress();
    }

    /**
     * Commits the received checkpoint: replaces {@code staged} with it by renaming {@code incoming}.
     *
     * @return the checkpoint, now in {@code <root>/staged}
     * @throws IllegalStateException when the stream is not complete (nothing is changed then)
     * @throws IOException when a rename or sync fails; the receive is then aborted and the previous staged
     *         checkpoint put back if it had been set aside
     */
    public StagedCheckpoint commit() throws IOException {
        if (state != State.COMPLETE) {
            throw new IllegalStateException("cannot commit: the checkpoint receive is " + describeState());
        }
        Path staged = CheckpointRoot.staged(root);
        Path discarded = CheckpointRoot.discarded(root);
        boolean setAside = false;
        boolean published = false;
        try {
            DurableFiles.deleteTree(discarded);
            if (Files.exists(staged)) {
                // a rename, not a delete: a crash must never leave a half-deleted directory named staged
                DurableFiles.rename(staged, discarded);
                setAside = true;
            }
            DurableFiles.rename(incoming, staged);
            published = true;
            DurableFiles.syncDirectory(root);
        } catch (IOException | RuntimeException e) {
            if (published) {
                // staged is complete either way: only the rename's durability is unknown, and an undo could fail
                state = State.FAILED;
                failure = "commit's directory sync failed: " + e.getMessage();
                LOG.log(Level.ERROR, "staged " + staged + " but could not sync " + root, e);
            } else {
                if (setAside) {
                    restore(discarded, staged);
                }
                abort("commit failed: " + e.getMessage());
            }
            throw e;
        }
        state = State.COMMITTED;
        DurableFiles.deleteTreeQuietly(discarded, LOG);
        StagedCheckpoint result = received.movedTo(staged);
        LOG.log(Level.INFO, "staged checkpoint " + result.replicationId() + ":"
                + Long.toUnsignedString(result.replicationOffset()) + " (" + result.fileCount() + " files, "
                + result.rdbSize() + " bytes, checksum " + result.checksumHex() + ") in " + staged + "; "
                + progress());
        return result;
    }

    /**
     * Abandons the receive: closes the open file and deletes {@code incoming}. Idempotent; no effect after a
     * commit. The previous {@code staged} and the store are left as they were.
     */
    public void abort(String reason) {
        State was = state;
        if (was == State.COMMITTED || was == State.FAILED) {
            return;
        }
        state = State.FAILED;
        failure = reason;
        closeFile();
        DurableFiles.deleteTreeQuietly(incoming, LOG);
        LOG.log(Level.WARNING, "checkpoint receive aborted (" + reader.progress() + "): " + reason);
    }

    /** Aborts the receive unless it was committed: for try-with-resources. */
    @Override
    public void close() {
        abort("closed before commit");
    }

    /** @return bytes and files received so far, the announced total and the rate */
    public Progress progress() {
        return new Progress(bytesReceived, totalBytes, filesReceived, nanoClock.getAsLong() - startNanos);
    }

    /** @return {@code <root>/incoming}, where the stream is written */
    public Path incoming() {
        return incoming;
    }

    // --- CheckpointStreamReader.Listener: called by the reader, from inside feed

    @Override
    public void fileStart(String name, long size) throws IOException {
        requireReceiving();
        if (file != null) {
            throw new IllegalStateException("file '" + name + "' starts inside " + filePath);
        }
        filePath = target(name);
        // CREATE_NEW: incoming was created empty, so an existing entry means a duplicate or a planted link
        file = FileChannel.open(filePath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        fileSize = size;
        fileWritten = 0;
        buffer.clear();
    }

    @Override
    public void fileData(ByteBuffer data) throws IOException {
        requireReceiving();
        if (file == null) {
            throw new IllegalStateException("file data outside a file");
        }
        if (data.remaining() > fileSize - fileWritten - buffer.position()) {
            throw new CheckpointStreamException("file " + filePath.getFileName() + " gets more than its " + fileSize
                    + " bytes");
        }
        while (data.hasRemaining()) {
            int n = Math.min(buffer.remaining(), data.remaining());
            buffer.put(data.slice(data.position(), n));
            data.position(data.position() + n);
            if (!buffer.hasRemaining()) {
                flush();
            }
        }
    }

    @Override
    public void fileEnd(String name, byte[] sha256) throws IOException {
        requireReceiving();
        if (file == null || !filePath.getFileName().toString().equals(name)) {
            throw new IllegalStateException("file '" + name + "' ends but " + filePath + " is open");
        }
        flush();
        if (fileWritten != fileSize) {
            throw new CheckpointStreamException("file '" + name + "' ended after " + fileWritten + " of " + fileSize
                    + " bytes");
        }
        // durable before the directory sync and the rename that publish it
        file.force(true);
        file.close();
        file = null;
        filesReceived++;
    }

    @Override
    public void end(CheckpointTrailer trailer) throws IOException {
        requireReceiving();
        if (file != null) {
            throw new IllegalStateException("stream ends inside " + filePath);
        }
        received = StagedCheckpoint.of(incoming, trailer, filesReceived);
        // inside incoming, before the rename: the rename alone then publishes files and metadata together
        received.write();
        DurableFiles.syncDirectory(incoming);
        state = State.COMPLETE;
    }

    // --- internals

    /** The reader checked the name already; checked again here because this is where a bad name would escape. */
    private Path target(String name) {
        if (!CheckpointStream.isValidFileName(name)) {
            throw new CheckpointStreamException("file name '" + name + "' breaks the file-name rule");
        }
        if (name.equals(StagedCheckpoint.METADATA_FILE)) {
            throw new CheckpointStreamException("file name '" + name + "' is reserved for the checkpoint metadata");
        }
        Path p = incoming.resolve(name).normalize();
        if (!incoming.equals(p.getParent()) || !p.getFileName().toString().equals(name)) {
            throw new CheckpointStreamException("file name '" + name + "' escapes " + incoming);
        }
        return p;
    }

    private void flush() throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            fileWritten += file.write(buffer);
        }
        buffer.clear();
    }

    private void closeFile() {
        if (file != null) {
            try {
                file.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "closing " + filePath + " after a failure", e);
            }
            file = null;
        }
    }

    private void restore(Path discarded, Path staged) {
        try {
            DurableFiles.rename(discarded, staged);
            DurableFiles.syncDirectory(root);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.ERROR, "could not put the previous staged checkpoint back from " + discarded, e);
        }
    }

    private void requireReceiving() {
        if (state != State.RECEIVING) {
            throw new IllegalStateException("checkpoint receive is " + describeState());
        }
    }

    private String describeState() {
        return switch (state) {
            case RECEIVING -> "still receiving (" + reader.progress() + ")";
            case COMPLETE -> "complete";
            case COMMITTED -> "committed";
            case FAILED -> "aborted: " + failure;
        };
    }
}
