package tandem.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The journal's writes, behind an interface so that a test can make a write or an {@code fdatasync} fail (fail-stop)
 * or count them (group commit). Reads go straight to {@link FileChannel}.
 */
interface FileIo {

    FileIo STANDARD = new FileIo() {
    };

    /** A segment file open for writing: positional writes, {@code fdatasync}, truncation. */
    interface SegmentChannel extends Closeable {

        int write(ByteBuffer src, long position) throws IOException;

        /** {@code fdatasync}: the data and the size, not the timestamps. */
        void force() throws IOException;

        void truncate(long size) throws IOException;

        long size() throws IOException;
    }

    default SegmentChannel open(Path file, boolean create) throws IOException {
        return new FileSegmentChannel(channel(file, create));
    }

    /** @return {@code file} open for reading and writing, created new when {@code create} */
    static FileChannel channel(Path file, boolean create) throws IOException {
        return create
                ? FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                        StandardOpenOption.READ)
                : FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
    }

    /** A segment file's {@link FileChannel}; a test extends it to intercept writes and syncs. */
    class FileSegmentChannel implements SegmentChannel {

        private final FileChannel channel;

        FileSegmentChannel(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return channel.write(src, position);
        }

        @Override
        public void force() throws IOException {
            channel.force(false);
        }

        @Override
        public void truncate(long size) throws IOException {
            channel.truncate(size);
        }

        @Override
        public long size() throws IOException {
            return channel.size();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** Makes renames, creations and deletions in {@code directory} durable. */
    default void syncDirectory(Path directory) throws IOException {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
