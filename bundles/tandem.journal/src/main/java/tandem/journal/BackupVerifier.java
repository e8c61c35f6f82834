package tandem.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.TreeMap;

import tandem.protocol.checkpoint.CheckpointStreamException;
import tandem.protocol.checkpoint.CheckpointStreamReader;
import tandem.protocol.checkpoint.CheckpointTrailer;
import tandem.protocol.files.DurableFiles;
import tandem.protocol.frpl.FrplPayload;

/**
 * Checks a backup reading nothing but its directory, and unpacks its store: what {@code backup:verify},
 * {@code bin/tandem verify-backup} and {@code bin/tandem restore} share. Every check names the file and what is
 * wrong: the manifest; each file's size and SHA-256 against it; the checkpoint stream's own per-file SHA-256s, its
 * hash of hashes and its trailer; the seed's header, entry CRCs and sequences, its last sequence, chain value and
 * replication offset against the manifest.
 */
public final class BackupVerifier {

    /**
     * A backup that verified.
     *
     * @param manifest   its manifest
     * @param seedStart  the first sequence of the segment the seed is a prefix of
     * @param seedAnchor that segment's anchor
     * @param seedBytes  the seed's length: a prefix of the sealed segment, byte for byte
     */
    public record Verified(BackupManifest manifest, long seedStart, byte[] seedAnchor, long seedBytes) {

        /** @return the size of the backup's files */
        public long bytes() {
            return manifest.files().values().stream().mapToLong(BackupManifest.FileHash::size).sum();
        }
    }

    private BackupVerifier() {
    }

    /** Verifies the backup in {@code directory}. @throws IOException naming what is wrong */
    public static Verified verify(Path directory) throws IOException {
        return verify(directory, null);
    }

    /**
     * Verifies the backup in {@code directory} and, when {@code storeTarget} is given, writes the checkpoint's files
     * into it (created; it must not exist) on the way, each fsynced.
     *
     * @throws IOException naming what is wrong; {@code storeTarget} is then incomplete and its caller deletes it
     */
    public static Verified verify(Path directory, Path storeTarget) throws IOException {
        return verify(directory, BackupManifest.read(directory), storeTarget);
    }

    /** Verifies the files of {@code directory} against {@code m}, a manifest not necessarily written yet. */
    static Verified verify(Path directory, BackupManifest m, Path storeTarget) throws IOException {
        Path store = directory.resolve(BackupManifest.STORE);
        CheckpointTrailer trailer = readStore(store, m.files().get(BackupManifest.STORE), storeTarget);
        if (Long.compareUnsigned(trailer.replicationOffset(), m.replicationOffset()) != 0) {
            throw new IOException(store + ": its trailer names offset "
                    + Long.toUnsignedString(trailer.replicationOffset()) + ", the manifest "
                    + Long.toUnsignedString(m.replicationOffset()));
        }
        Path seed = directory.resolve(BackupManifest.SEED);
        hashed(seed, m.files().get(BackupManifest.SEED), null);
        SegmentScanner.Result r = SegmentScanner.scanFiles(new TreeMap<>(), seed, FrplPayload::length);
        if (r.broken != null || r.tornAt >= 0 || r.segments.size() != 1) {
            throw new IOException(seed + ": not a sound segment prefix: "
                    + (r.broken != null ? r.broken.openMessage() : r.tornReason));
        }
        Segment s = r.segments.get(0);
        String chain = ChainHash.hex(r.liveChain.value());
        if (s.lastSequence != m.appliedSequence()) {
            throw new IOException(seed + ": ends at sequence " + s.lastSequence + ", the store is at "
                    + m.appliedSequence());
        }
        if (!chain.equals(m.chainHex())) {
            throw new IOException(seed + ": its chain value at " + s.lastSequence + " is " + chain
                    + ", the manifest names " + m.chainHex());
        }
        if (s.endOffset != m.replicationOffset()) {
            throw new IOException(seed + ": ends at replication offset " + s.endOffset + ", the manifest names "
                    + m.replicationOffset());
        }
        return new Verified(m, s.startSequence, s.anchor.clone(), s.bytes);
    }

    /** Reads the checkpoint stream once: its hash against the manifest, its own checks, its files when asked. */
    private static CheckpointTrailer readStore(Path stream, BackupManifest.FileHash expected, Path target)
            throws IOException {
        Unpacker unpacker = new Unpacker(target);
        CheckpointStreamReader reader = new CheckpointStreamReader(unpacker);
        if (target != null) {
            Files.createDirectories(target.getParent());
            Files.createDirectory(target);
        }
        try {
            hashed(stream, expected, chunk -> {
                if (reader.isComplete() && chunk.hasRemaining()) {
                    throw new IOException("bytes follow the end of the stream at " + reader.bytesConsumed());
                }
                reader.feed(chunk);
                if (reader.isComplete() && chunk.hasRemaining()) {
                    throw new IOException("bytes follow the end of the stream at " + reader.bytesConsumed());
                }
            });
        } catch (CheckpointStreamException e) {
            throw new IOException(stream + ": " + e.getMessage() + " (" + reader.progress() + ")", e);
        } catch (IOException e) {
            throw e.getMessage() != null && e.getMessage().startsWith(stream.toString()) ? e
                    : new IOException(stream + ": " + e.getMessage(), e);
        }
        if (!reader.isComplete()) {
            throw new IOException(stream + ": the stream ends early (" + reader.progress() + ")");
        }
        if (target != null) {
            DurableFiles.syncDirectory(target);
            DurableFiles.syncDirectory(target.getParent());
        }
        return unpacker.trailer;
    }

    /** Receives one chunk of a file being hashed. */
    @FunctionalInterface
    interface ChunkSink {
        void accept(ByteBuffer chunk) throws IOException;
    }

    /** Reads {@code file} once, checking its size and SHA-256 against the manifest's, handing each chunk to sink. */
    static void hashed(Path file, BackupManifest.FileHash expected, ChunkSink sink) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": missing");
        }
        long size = Files.size(file);
        if (size != expected.size()) {
            throw new IOException(file + ": " + size + " bytes, the manifest says " + expected.size());
        }
        String actual = sha256Hex(file, sink);
        if (!actual.equals(expected.sha256())) {
            throw new IOException(file + ": SHA-256 " + actual + ", the manifest says " + expected.sha256());
        }
    }

    /** @return the SHA-256 of {@code file}, in hex */
    static String sha256Hex(Path file) throws IOException {
        return sha256Hex(file, null);
    }

    /** Reads {@code file} once, handing each chunk to {@code sink} (null: none). @return its SHA-256 in hex */
    private static String sha256Hex(Path file, ChunkSink sink) throws IOException {
        MessageDigest sha = sha256();
        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (ch.read(buf.clear()) > 0) {
                buf.flip();
                sha.update(buf.duplicate());
                if (sink != null) {
                    sink.accept(buf);
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /** Writes the stream's files into a directory, or only listens when it has none. */
    private static final class Unpacker implements CheckpointStreamReader.Listener {
        private final Path target;
        private FileChannel out;
        private CheckpointTrailer trailer;

        Unpacker(Path target) {
            this.target = target;
        }

        @Override
        public void fileStart(String name, long size) throws IOException {
            if (target != null) {
                out = FileChannel.open(target.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            }
        }

        @Override
        public void fileData(ByteBuffer data) throws IOException {
            if (out != null) {
                while (data.hasRemaining()) {
                    out.write(data);
                }
            }
        }

        @Override
        public void fileEnd(String name, byte[] sha256) throws IOException {
            if (out != null) {
                out.force(true);
                out.close();
                out = null;
            }
        }

        @Override
        public void end(CheckpointTrailer trailer) {
            this.trailer = trailer;
        }
    }
}
