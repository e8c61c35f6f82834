package tandem.checkpoint;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Properties;

import tandem.protocol.checkpoint.CheckpointTrailer;

/**
 * A received checkpoint as its {@value #METADATA_FILE} file describes it: where it came from (the trailer's
 * replication id and offset), what it holds (checksum, rdb size, file count) and where it lies now. The file is a
 * small properties file written inside {@code incoming} before the rename that commits it, so a {@code staged}
 * directory always has it; it travels into the store directory on install, where the caller reads it to adopt
 * the replication position, then may delete it (RocksDB ignores files it does not know).
 *
 * <pre>
 *  replication.id=8c1f0e3d5a7b9c2e4f6a8b0c1d2e3f4a5b6c7d8e
 *  replication.offset=1234          (unsigned decimal)
 *  checksum=4f…                     (64 hex digits, the stream's hash of hashes)
 *  rdb.size=21
 *  files=7
 * </pre>
 *
 * @param directory where the checkpoint lies: {@code staged}, or the store directory after install
 * @param replicationOffset an unsigned 64-bit value, as the trailer has it
 */
public record StagedCheckpoint(Path directory, String replicationId, long replicationOffset, String checksumHex,
        long rdbSize, long fileCount) {

    /** The metadata file's name: reserved, a stream may not carry a file of this name. */
    public static final String METADATA_FILE = "CHECKPOINT";

    static StagedCheckpoint of(Path directory, CheckpointTrailer trailer, long fileCount) {
        return new StagedCheckpoint(directory, trailer.replicationId(), trailer.replicationOffset(),
                trailer.checksumHex(), trailer.rdbSize(), fileCount);
    }

    /** @return this checkpoint's metadata, now at {@code directory} */
    public StagedCheckpoint movedTo(Path directory) {
        return new StagedCheckpoint(directory, replicationId, replicationOffset, checksumHex, rdbSize, fileCount);
    }

    /**
     * Reads the metadata of the checkpoint in {@code directory}.
     *
     * @throws IOException when the file is missing, unreadable or lacks a field (the directory is then not a
     *         committed checkpoint)
     */
    public static StagedCheckpoint read(Path directory) throws IOException {
        Path file = directory.resolve(METADATA_FILE);
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        try {
            return new StagedCheckpoint(directory, field(p, "replication.id", file),
                    Long.parseUnsignedLong(field(p, "replication.offset", file)), field(p, "checksum", file),
                    Long.parseLong(field(p, "rdb.size", file)), Long.parseLong(field(p, "files", file)));
        } catch (NumberFormatException e) {
            throw new IOException("bad number in " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes the metadata into {@code directory} and fsyncs it (the caller syncs the directory). */
    void write() throws IOException {
        Properties p = new Properties();
        p.setProperty("replication.id", replicationId);
        p.setProperty("replication.offset", Long.toUnsignedString(replicationOffset));
        p.setProperty("checksum", checksumHex);
        p.setProperty("rdb.size", Long.toString(rdbSize));
        p.setProperty("files", Long.toString(fileCount));
        StringWriter w = new StringWriter();
        p.store(w, null);
        // store() always writes a date comment; dropping it keeps the file a pure function of the checkpoint
        StringBuilder text = new StringBuilder();
        w.toString().lines().filter(l -> !l.startsWith("#")).sorted().forEach(l -> text.append(l).append('\n'));
        ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        try (FileChannel ch = FileChannel.open(directory.resolve(METADATA_FILE), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(true);
        }
    }

    private static String field(Properties p, String key, Path file) throws IOException {
        String v = p.getProperty(key);
        if (v == null || v.isEmpty()) {
            throw new IOException(file + " has no " + key);
        }
        return v;
    }
}
