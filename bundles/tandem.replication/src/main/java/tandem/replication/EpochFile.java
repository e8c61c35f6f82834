package tandem.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import tandem.protocol.files.DurableFiles;

/**
 * The highest epoch this node has seen (spec 000: a node never goes back on one), kept in the file {@value #FILE}
 * of the replication state directory. A higher epoch is recorded durably before the node acts on it: a node that
 * forgot, after a crash, the epoch it had seen could accept a deposed primary again.
 */
final class EpochFile {

    static final String FILE = "epoch";

    private Path directory;
    private volatile long epoch;

    /** Reads the epoch recorded in {@code dir} (0 when none is); a higher one is recorded there from now on. */
    synchronized void load(Path dir) throws IOException {
        epoch = read(dir);
        directory = dir;
    }

    /** @return the highest epoch this node has seen */
    long current() {
        return epoch;
    }

    /**
     * Records {@code seen} when it is above the current epoch, before it becomes current.
     *
     * @throws UncheckedIOException when it cannot be recorded: the epoch then stays as it was
     */
    synchronized void advance(long seen) {
        if (seen <= epoch) {
            return;
        }
        try {
            write(directory, seen);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record epoch " + seen + " in " + directory, e);
        }
        epoch = seen;
    }

    /** @return the epoch recorded in {@code dir}; 0 when none is */
    static long read(Path dir) throws IOException {
        Path f = dir.resolve(FILE);
        if (!Files.exists(f)) {
            return 0;
        }
        try {
            return Long.parseLong(Files.readString(f, StandardCharsets.US_ASCII).trim());
        } catch (NumberFormatException e) {
            throw new IOException(f + ": not an epoch: " + e.getMessage(), e);
        }
    }

    /** Records {@code epoch} in {@code dir}, replaced whole and durably. */
    static void write(Path dir, long epoch) throws IOException {
        DurableFiles.writeAtomically(dir.resolve(FILE), (epoch + "\n").getBytes(StandardCharsets.US_ASCII));
    }
}
