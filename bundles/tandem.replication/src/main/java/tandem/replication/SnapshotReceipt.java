package tandem.replication;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.replication.ReplicationStatus;
import tandem.protocol.journal.SegmentHeader;
import tandem.protocol.replication.FrameException;
import tandem.protocol.replication.Frames;
import tandem.protocol.replication.SegmentSeedBegin;
import tandem.protocol.replication.SnapshotBegin;
import tandem.protocol.replication.SnapshotChunk;
import tandem.protocol.replication.SnapshotEnd;

/**
 * A replica's side of one snapshot transfer, after NeedSnapshot or HashMismatch, up to the point where both halves
 * are on disk and verified:
 *
 * <pre>
 *  SnapshotBegin(len, S, chain)  a checkpoint stream of len bytes follows; it is received into the checkpoint
 *                                service's scratch directory, verified while it arrives (hash of hashes, sizes)
 *  SnapshotChunk*                its bytes; every byte also enters a CRC32C
 *  SnapshotEnd(crc)              the CRC32C must match and the stream be complete: it is staged (one rename)
 *  SegmentSeedBegin(seed_len)    the prefix of the primary's segment that holds S+1 follows, into a file beside
 *                                the journal (same file system: the journal takes it over by a rename)
 *  SnapshotChunk*                its bytes, CRC32C'd
 *  SnapshotEnd(crc)              the CRC32C and the length must match: the seed is fsynced and the receipt done
 * </pre>
 *
 * Nothing the node holds is touched here: the caller installs the staged checkpoint and the seed afterwards. Any
 * failure (a frame out of order, a length over what was announced, a CRC or checksum mismatch, a disk error)
 * throws; {@link #close} then deletes what was received, and the replica's journal and store are as they were.
 */
final class SnapshotReceipt implements AutoCloseable {

    /** A segment seed is at most one segment: journal.segment.size is at most 2^40. */
    static final long MAX_SEED = 1L << 40;

    private enum Phase { BEGIN, BODY, SEED_BEGIN, SEED, DONE, CLOSED }

    private final Checkpoints checkpoints;
    private final Path seedPath;
    private final CRC32C crc = new CRC32C();
    private Phase phase = Phase.BEGIN;
    private Checkpoints.Receive receive;
    private Checkpoints.Staged staged;
    private long sequence;
    private byte[] chain;
    private long length;
    private FileChannel seed;
    private volatile long seedLength;
    private volatile long seedWritten;
    private volatile long seedStartedNanos;

    /**
     * @param seedPath where the seed is written, beside the journal; a file left there by an earlier attempt is
     *                 replaced
     */
    SnapshotReceipt(Checkpoints checkpoints, Path seedPath) {
        this.checkpoints = checkpoints;
        this.seedPath = seedPath;
    }

    /**
     * Takes the next frame of the transfer.
     *
     * @return true once the seed is complete: {@link #staged()}, {@link #seed()}, {@link #sequence()} and
     *         {@link #chain()} are then ready for the install
     * @throws FrameException when the frame is not the one expected or its content breaks the transfer
     * @throws IOException    when the checkpoint or the seed cannot be written, or the checkpoint does not verify
     */
    boolean frame(ByteBuffer p, byte tag) throws IOException {
        switch (phase) {
            case BEGIN -> {
                expect(tag, Frames.TAG_SNAPSHOT_BEGIN);
                SnapshotBegin.check(p);
                length = SnapshotBegin.snapshotLen(p);
                sequence = SnapshotBegin.snapSequence(p);
                chain = SnapshotBegin.snapChainHash(p);
                if (length < 0 || sequence < 0) {
                    throw new FrameException("SnapshotBegin announces a length of " + Long.toUnsignedString(length)
                            + " bytes at sequence " + Long.toUnsignedString(sequence));
                }
                receive = checkpoints.receive(length);
                crc.reset();
                phase = Phase.BODY;
            }
            case BODY -> {
                if (tag == Frames.TAG_SNAPSHOT_END) {
                    SnapshotEnd.check(p);
                    requireCrc(SnapshotEnd.crc32c(p), "checkpoint");
                    long got = receive.progress().bytes();
                    if (got != length) {
                        throw new FrameException("the checkpoint ended after " + got + " of its " + length
                                + " bytes");
                    }
                    staged = receive.commit();
                    phase = Phase.SEED_BEGIN;
                    return false;
                }
                ByteBuffer data = chunk(p, tag);
                crc.update(data.duplicate());
                boolean complete = receive.feed(data);
                if (data.hasRemaining() || complete && receive.progress().bytes() != length) {
                    throw new FrameException("the checkpoint stream ended before its announced " + length
                            + " bytes; " + data.remaining() + " more arrived");
                }
            }
            case SEED_BEGIN -> {
                expect(tag, Frames.TAG_SEGMENT_SEED_BEGIN);
                SegmentSeedBegin.check(p);
                long n = SegmentSeedBegin.seedLen(p);
                if (n < SegmentHeader.SIZE || n > MAX_SEED) {
                    throw new FrameException("SegmentSeedBegin announces " + Long.toUnsignedString(n) + " bytes; a "
                            + "seed holds " + SegmentHeader.SIZE + " to " + MAX_SEED);
                }
                Files.deleteIfExists(seedPath);
                seed = FileChannel.open(seedPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                seedLength = n;
                seedStartedNanos = System.nanoTime();
                crc.reset();
                phase = Phase.SEED;
            }
            case SEED -> {
                if (tag == Frames.TAG_SNAPSHOT_END) {
                    SnapshotEnd.check(p);
                    requireCrc(SnapshotEnd.crc32c(p), "segment seed");
                    if (seedWritten != seedLength) {
                        throw new FrameException("the segment seed ended after " + seedWritten + " of its "
                                + seedLength + " bytes");
                    }
                    seed.force(true);
                    seed.close();
                    seed = null;
                    phase = Phase.DONE;
                    return true;
                }
                ByteBuffer data = chunk(p, tag);
                if (data.remaining() > seedLength - seedWritten) {
                    throw new FrameException("the segment seed gets more than its announced " + seedLength
                            + " bytes");
                }
                crc.update(data.duplicate());
                int n = data.remaining();
                while (data.hasRemaining()) {
                    seed.write(data, seedWritten + (n - data.remaining()));
                }
                seedWritten += n;
            }
            default -> throw new FrameException("a " + Frames.name(tag) + " frame after the snapshot ended");
        }
        return false;
    }

    private static void expect(byte tag, byte expected) {
        if (tag != expected) {
            throw new FrameException("expected " + Frames.name(expected) + ", got " + Frames.name(tag));
        }
    }

    private static ByteBuffer chunk(ByteBuffer p, byte tag) {
        expect(tag, Frames.TAG_SNAPSHOT_CHUNK);
        SnapshotChunk.check(p);
        return p.duplicate().position(SnapshotChunk.dataOffset(p)).slice();
    }

    private void requireCrc(int announced, String what) {
        int computed = (int) crc.getValue();
        if (announced != computed) {
            throw new FrameException(String.format("the %s's CRC32C is %08x, SnapshotEnd says %08x: corrupted in "
                    + "transit", what, computed, announced));
        }
    }

    /** @return the applied sequence the snapshot holds */
    long sequence() {
        return sequence;
    }

    /** @return the primary's chain value at {@link #sequence()} */
    byte[] chain() {
        return chain.clone();
    }

    /** @return the staged checkpoint, once its SnapshotEnd arrived */
    Checkpoints.Staged staged() {
        return staged;
    }

    /** @return the received seed's file */
    Path seed() {
        return seedPath;
    }

    /** @return how far the transfer has come, for status */
    ReplicationStatus.Transfer status() {
        Phase ph = phase;
        if (ph == Phase.SEED || ph == Phase.SEED_BEGIN) {
            long elapsed = System.nanoTime() - seedStartedNanos;
            long done = seedWritten;
            return new ReplicationStatus.Transfer("segment seed", done, seedLength,
                    elapsed <= 0 || seedStartedNanos == 0 ? 0 : done * 1e9 / elapsed);
        }
        Checkpoints.Receive r = receive;
        if (r == null) {
            return new ReplicationStatus.Transfer("snapshot", 0, -1, 0);
        }
        Checkpoints.Progress pr = r.progress();
        return new ReplicationStatus.Transfer("snapshot", pr.bytes(), pr.totalBytes(), pr.bytesPerSecond());
    }

    /** Deletes what was received unless it was installed (the installer took the staged directory and the seed). */
    @Override
    public void close() {
        if (phase == Phase.CLOSED) {
            return;
        }
        boolean done = phase == Phase.DONE;
        phase = Phase.CLOSED;
        if (receive != null) {
            receive.close();
        }
        if (seed != null) {
            try {
                seed.close();
            } catch (IOException ignored) {
                // deleted next
            }
        }
        if (!done) {
            try {
                Files.deleteIfExists(seedPath);
            } catch (IOException ignored) {
                // replaced by the next attempt's seed
            }
        }
    }
}
