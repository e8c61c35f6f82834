package tandem.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.journal.JournalReader;
import tandem.api.journal.SegmentInfo;
import tandem.api.replication.ReplicationStatus;
import tandem.protocol.journal.SegmentHeader;
import tandem.protocol.replication.SegmentSeedBegin;
import tandem.protocol.replication.SnapshotBegin;
import tandem.protocol.replication.SnapshotEnd;

/**
 * A primary's side of one snapshot transfer, the counterpart of {@link SnapshotReceipt}: a checkpoint of the store
 * at its applied sequence S, the chain value at S, and the segment seed (the raw prefix of the segment that holds
 * S+1), all cut before anything is sent, so that a rotation or a purge during the transfer cannot change them and a
 * primary that cannot serve a snapshot leaves the replica's journal as it is (the replica only retries). Then sent:
 *
 * <pre>
 *  SnapshotBegin(len, S, chain)  SnapshotChunk*  SnapshotEnd(crc)     the checkpoint stream
 *  SegmentSeedBegin(seed_len)    SnapshotChunk*  SnapshotEnd(crc)     the seed
 * </pre>
 *
 * Progress is visible in {@code repl:status} meanwhile ({@link #status}).
 */
final class OutgoingSnapshot implements AutoCloseable {

    /**
     * The checkpoint stream's trailer names a psync replication id; the journal protocol's snapshot is positioned
     * by SnapshotBegin's sequence instead, so its trailer carries this token and offset 0.
     */
    static final String TRAILER_ID = "journal";

    private static final Logger LOG = System.getLogger("tandem.replication");

    private final Checkpoints.Cut cut;
    private final long sequence;
    private final byte[] chain;
    private final Path seed;
    private final long seedLength;
    private final SegmentInfo seedSegment;
    private volatile Transfer transfer;

    private OutgoingSnapshot(Checkpoints.Cut cut, long sequence, byte[] chain, Path seed, long seedLength,
            SegmentInfo seedSegment) {
        this.cut = cut;
        this.sequence = sequence;
        this.chain = chain;
        this.seed = seed;
        this.seedLength = seedLength;
        this.seedSegment = seedSegment;
    }

    /**
     * Cuts a checkpoint for replica {@code id} and copies the segment seed at its sequence into a temporary file of
     * {@code stateDirectory}.
     *
     * @throws IOException or a RuntimeException when the snapshot cannot be prepared; nothing is left behind
     */
    static OutgoingSnapshot cut(Checkpoints checkpoints, JournalReader journal, String id, Path stateDirectory)
            throws IOException {
        Checkpoints.Cut cut = null;
        Path seed = null;
        try {
            cut = checkpoints.cut(id);
            long s = cut.appliedSequence();
            byte[] chain = journal.chainAt(s);
            if (chain == null) {
                throw new IllegalStateException("the journal has no chain value at the checkpoint's sequence " + s);
            }
            Files.createDirectories(stateDirectory);
            seed = Files.createTempFile(stateDirectory, "seed-", ".tmp");
            long seedLength;
            try (FileChannel out = FileChannel.open(seed, StandardOpenOption.WRITE)) {
                seedLength = journal.writeSeed(s, out);
            }
            return new OutgoingSnapshot(cut, s, chain, seed, seedLength, seedSegment(seed));
        } catch (IOException | RuntimeException e) {
            if (cut != null) {
                cut.close();
            }
            if (seed != null) {
                try {
                    Files.deleteIfExists(seed);
                } catch (IOException ignored) {
                    // a temporary file in the state directory; the next seed gets another name
                }
            }
            throw e;
        }
    }

    /** The identity of the segment a seed is the prefix of: its header, as the replica will have it. */
    private static SegmentInfo seedSegment(Path seed) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(SegmentHeader.SIZE);
        try (FileChannel in = FileChannel.open(seed)) {
            while (header.hasRemaining() && in.read(header) >= 0) {
                // fill the header
            }
        }
        SegmentHeader h = new SegmentHeader().wrap(header, 0);
        String bad = h.check(new CRC32C());
        if (bad != null) {
            throw new IOException("the segment seed's header is not sound: " + bad);
        }
        return new SegmentInfo("seed", h.startingSequence(), h.startingSequence() - 1, h.anchor(),
                h.replicationOffset(), false);
    }

    /** @return S, the checkpoint's applied sequence: the replica continues after it */
    long sequence() {
        return sequence;
    }

    /** @return the segment the seed is the prefix of, which the replica's journal starts with */
    SegmentInfo seedSegment() {
        return seedSegment;
    }

    /** @return the checkpoint stream's length in bytes */
    long streamLength() {
        return cut.streamLength(TRAILER_ID, 0);
    }

    long seedLength() {
        return seedLength;
    }

    /**
     * Sends the snapshot through {@code sink}, which waits while the link is not writable.
     *
     * @param closed whether the session closed: a failure to read then only means the transfer was cut short
     * @throws InterruptedException when the session closed during the transfer
     */
    void send(ChunkChannel.Sink sink, BooleanSupplier closed) throws InterruptedException {
        long length = streamLength();
        long started = System.nanoTime();
        sink.send(ByteBuffer.wrap(SnapshotBegin.frame(length, sequence, chain)));
        sendBody(sink, closed, new Part("snapshot", "checkpoint", length, started),
                body -> cut.send(TRAILER_ID, 0, body));
        sink.send(ByteBuffer.wrap(SegmentSeedBegin.frame(seedLength)));
        sendBody(sink, closed, new Part("segment seed", "segment seed", seedLength, System.nanoTime()),
                this::copySeed);
        transfer = null;
    }

    /** One body of the transfer and how it is named: in the status, and when sending it fails. */
    private record Part(String status, String body, long length, long startedNanos) {
    }

    /** Writes a body into a channel. */
    private interface BodyWriter {
        void write(ChunkChannel body) throws IOException;
    }

    /** A body in SnapshotChunks, then the SnapshotEnd with its CRC32C. */
    private void sendBody(ChunkChannel.Sink sink, BooleanSupplier closed, Part part, BodyWriter writer)
            throws InterruptedException {
        ChunkChannel body = new ChunkChannel(sink);
        transfer = new Transfer(part, body);
        try {
            writer.write(body);
        } catch (IOException e) {
            if (closed.getAsBoolean() || Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("closed during the " + part.status());
            }
            throw new UncheckedIOException("sending the " + part.body() + ": " + e.getMessage(), e);
        }
        flush(body);
        sink.send(ByteBuffer.wrap(SnapshotEnd.frame(body.crc())));
    }

    private void copySeed(ChunkChannel body) throws IOException {
        try (FileChannel in = FileChannel.open(seed)) {
            long at = 0;
            while (at < seedLength) {
                long n = in.transferTo(at, seedLength - at, body);
                if (n <= 0) {
                    throw new IOException("the seed copy ends at byte " + at + " of " + seedLength);
                }
                at += n;
            }
        }
    }

    private static void flush(ChunkChannel body) throws InterruptedException {
        try {
            body.flush();
        } catch (IOException e) {
            throw new InterruptedException("closed during the transfer");
        }
    }

    /** @return the part being sent and how far it got, or null when none is */
    ReplicationStatus.Transfer status() {
        Transfer t = transfer;
        return t == null ? null : t.status();
    }

    @Override
    public void close() {
        cut.close();
        try {
            Files.deleteIfExists(seed);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot delete the segment seed copy {0}: {1}", seed, e.getMessage());
        }
    }

    /** A body being sent, for status. */
    private record Transfer(Part part, ChunkChannel channel) {
        ReplicationStatus.Transfer status() {
            long elapsed = System.nanoTime() - part.startedNanos();
            long done = channel.written();
            return new ReplicationStatus.Transfer(part.status(), done, part.length(),
                    elapsed <= 0 ? 0 : done * 1e9 / elapsed);
        }
    }
}
