package tandem.api.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Cuts, sends, receives and stages checkpoints of the node's store. Each {@link Cut} and {@link Receive} is used by
 * one thread at a time; the service itself is thread-safe.
 */
@ProviderType
public interface Checkpoints {

    /**
     * Cuts a consistent copy of the store for one transfer, in a directory of its own (files hard-linked where the
     * file system allows); {@link Cut#close()} deletes it, and so does the next activation after a crash.
     *
     * @param name whom the copy is for (a replica's id), for the directory's name and the log
     * @throws IllegalStateException when no store is active or the copy cannot be made, naming why
     */
    Cut cut(String name);

    /**
     * Prepares to receive one checkpoint stream: a scratch directory is created (empty), and nothing the node
     * holds is touched until the stream is complete, verified and {@link Receive#commit committed}.
     *
     * @param totalBytes the stream's length when the sender announced it (then a longer or shorter stream fails),
     *                   else -1
     * @throws IOException when the scratch directory cannot be prepared
     */
    Receive receive(long totalBytes) throws IOException;

    /**
     * Keeps a consistent copy of the store (what {@code SAVE} and {@code BGSAVE} make): cut into a directory of its
     * own (files hard-linked where the file system allows), with a {@code SAVED} file naming its applied sequence and
     * time, then put in the place of the copy kept before by a rename, so that a crash leaves one whole copy or the
     * previous one.
     *
     * @return where the copy is
     * @throws IllegalStateException when no store is active or the copy cannot be made, naming why
     * @since 1.1
     */
    Saved save();

    /**
     * A copy {@link #save} kept.
     *
     * @param directory       where it is
     * @param appliedSequence the applied sequence it holds
     * @param epochSecond     when it was made
     */
    record Saved(Path directory, long appliedSequence, long epochSecond) {
    }

    /** One cut checkpoint, ready to stream. */
    @ProviderType
    interface Cut extends AutoCloseable {

        /** @return the applied sequence the copy holds */
        long appliedSequence();

        /** @return the exact length of the stream {@link #send} writes with these trailer fields */
        long streamLength(String replicationId, long replicationOffset);

        /**
         * Streams the checkpoint into {@code out} (blocking; not closed), hashing it on the way; zero-copy where
         * {@code out} is a socket or file channel, or sends files itself ({@code tandem.protocol}'s
         * {@code CheckpointStreamWriter.FileSink}: a Netty channel's file region).
         *
         * @return the bytes written: {@link #streamLength} of the same fields
         * @throws IOException from the files or {@code out}
         */
        long send(String replicationId, long replicationOffset, WritableByteChannel out) throws IOException;

        /** Deletes the copy; idempotent. */
        @Override
        void close();
    }

    /** One checkpoint stream being received. */
    @ProviderType
    interface Receive extends AutoCloseable {

        /**
         * Feeds the next bytes of the stream, split anywhere; consumes {@code bytes} up to the stream's end (bytes
         * after it stay).
         *
         * @return true once the whole stream arrived and verified (the hash of hashes, the sizes)
         * @throws IOException when a file cannot be written, or the stream is malformed or does not verify; the
         *                     receive is then aborted and its scratch directory deleted
         */
        boolean feed(ByteBuffer bytes) throws IOException;

        /** @return how far the receive has come; may be called from any thread */
        Progress progress();

        /**
         * Stages the complete checkpoint with one atomic rename, fsynced.
         *
         * @throws IllegalStateException when the stream is not complete
         * @throws IOException when the rename or a sync fails (the receive is aborted)
         */
        Staged commit() throws IOException;

        /** Abandons the receive and deletes what it wrote; idempotent, no effect after a commit. */
        void abort(String reason);

        /** Aborts unless committed. */
        @Override
        void close();
    }

    /**
     * A received, verified checkpoint awaiting install.
     *
     * @param directory         where it lies, on the store's file system
     * @param replicationId     the trailer's replication id
     * @param replicationOffset the trailer's replication offset (unsigned)
     */
    record Staged(Path directory, String replicationId, long replicationOffset) {
    }

    /**
     * How far a transfer has come.
     *
     * @param bytes        bytes done so far
     * @param totalBytes   the stream's length, -1 when unknown
     * @param elapsedNanos since the transfer began
     */
    record Progress(long bytes, long totalBytes, long elapsedNanos) {

        /** @return the average rate since the transfer began, 0 before any time has passed */
        public double bytesPerSecond() {
            return elapsedNanos <= 0 ? 0 : bytes * 1e9 / elapsedNanos;
        }
    }
}
