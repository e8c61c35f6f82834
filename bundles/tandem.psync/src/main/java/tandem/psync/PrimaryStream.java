package tandem.psync;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import tandem.api.checkpoint.Checkpoints;
import tandem.api.frpl.FrplStreams;
import tandem.api.journal.Journal;
import tandem.api.replication.PsyncLink;
import tandem.api.replication.PsyncRequest;
import tandem.api.replication.PsyncSession;
import tandem.api.replication.ReplicationHub;
import tandem.api.replication.ReplicationStatus;
import tandem.protocol.checkpoint.CheckpointStreamWriter;
import tandem.protocol.frpl.Replconf;

/**
 * The primary's side of one psync replica: the phases {@code Connecting → PreparingCheckpoint →
 * StreamingCheckpoint → Streaming → Disconnecting} (forward only) on a thread of its own.
 *
 * <p>A full sync cuts a checkpoint for this replica alone ({@code fullsync_<replica>}), answers
 * {@code +FULLRESYNC <id> <offset>} with the checkpoint's position, streams the checkpoint (files zero-copy) and
 * then the journal from that position. A {@code +CONTINUE} streams the journal from the replica's offset. The
 * journal is streamed by the FRPL command stream ({@code tandem.frpl}), which also bounds the replica's lag; while
 * it is not active, or once it stops, the connection is dropped and the replica comes back with {@code PSYNC}.
 *
 * <p>{@code REPLCONF ACK <offset>} is mapped back to the journal sequence whose entry ends there, through the
 * offsets the stream sent, and reported to the response gate ({@code WAIT}, {@code min-replicas-to-write}).
 */
final class PrimaryStream implements PsyncSession {

    private static final Logger LOG = System.getLogger("tandem.psync");

    enum Phase { CONNECTING, PREPARING_CHECKPOINT, STREAMING_CHECKPOINT, STREAMING, DISCONNECTING }

    /** What a stream needs of its component. */
    interface Context {
        Journal journal();

        Checkpoints checkpoints();

        /** @return the FRPL command stream, or null while {@code tandem.frpl} is not active */
        FrplStreams frpl();

        String replicationId();

        PsyncSettings settings();

        void ended(PrimaryStream stream);
    }

    private final Context ctx;
    private final PsyncRequest request;
    private final PsyncLink link;
    private final ReplicationHub.ReplicaSlot slot;
    private final boolean full;
    private final Object signal = new Object();
    private final Thread thread;
    private volatile Phase phase = Phase.CONNECTING;
    private volatile boolean ackWanted;
    private volatile String closeReason;
    private volatile long position;
    private volatile long offset;
    private volatile long ackedOffset = -1;
    private volatile long ackedSequence = -1;
    private volatile long lastAckNanos;
    private volatile long transferBytes;
    private volatile long transferTotal = -1;
    private volatile long transferStartNanos;
    /** The FRPL stream once the journal streams, or null. */
    private volatile FrplStreams.Outbound outbound;

    /**
     * @param fromSequence for a {@code +CONTINUE}, the sequence after which the replica's offset lies; ignored for a
     *                     full sync
     */
    PrimaryStream(Context ctx, PsyncRequest request, PsyncLink link, ReplicationHub.ReplicaSlot slot, boolean full,
            long fromSequence, long fromOffset) {
        this.ctx = ctx;
        this.request = request;
        this.link = link;
        this.slot = slot;
        this.full = full;
        this.position = fromSequence;
        this.offset = fromOffset;
        if (!full) {
            slot.seed(fromSequence); // it holds everything up to there: it said so, with our history's id
        }
        this.thread = new Thread(this::run, "tandem-psync-" + request.announcedAddress());
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** @return the replica's announced address, {@code ip:listening-port}: its identity on this primary */
    String id() {
        return request.announcedAddress();
    }

    Phase phase() {
        return phase;
    }

    /** Asks the replica for an ACK ({@code REPLCONF GETACK *}) at the next opportunity. */
    void requestAck() {
        if (phase == Phase.STREAMING) {
            ackWanted = true;
            FrplStreams.Outbound o = outbound;
            if (o != null) {
                o.requestAck();
            }
        }
    }

    /** The journal made more durable: the stream looks again. */
    void wake() {
        synchronized (signal) {
            signal.notifyAll();
        }
        FrplStreams.Outbound o = outbound;
        if (o != null) {
            o.wake();
        }
    }

    /**
     * Ends the stream: the connection is closed, and its replica slot is free at once (a replica that reconnects
     * takes it over before this stream's thread has noticed).
     */
    void close(String reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
        phase = Phase.DISCONNECTING;
        slot.detach();
        link.close(reason);
        FrplStreams.Outbound o = outbound;
        if (o != null) {
            o.close(reason);
        }
        wake();
    }

    // ---- PsyncSession ----------------------------------------------------------------------------------------

    @Override
    public void command(byte[][] args) {
        long ack;
        try {
            ack = Replconf.parseAck(args);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.WARNING, "replica {0}: {1}; ignored", id(), e.getMessage());
            return;
        }
        if (ack < 0) {
            LOG.log(Level.DEBUG, () -> "replica " + id() + " sent " + new String(args[0], StandardCharsets.ISO_8859_1)
                    + " after PSYNC; ignored");
            return;
        }
        lastAckNanos = System.nanoTime();
        FrplStreams.Outbound o = outbound;
        long sequence = o == null ? -1 : o.sequenceAt(ack);
        if (ack > ackedOffset) {
            ackedOffset = ack;
        }
        if (sequence >= 0 && sequence > ackedSequence) {
            ackedSequence = sequence;
            slot.ack(sequence, sequence); // the replica journaled and applied it
        } else {
            slot.ack(Math.max(0, ackedSequence), Math.max(0, ackedSequence)); // liveness for min-replicas
        }
    }

    @Override
    public void writable() {
        wake();
    }

    @Override
    public void closed(String reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
        phase = Phase.DISCONNECTING;
        slot.detach();
        FrplStreams.Outbound o = outbound;
        if (o != null) {
            o.close(reason);
        }
        wake();
    }

    // ---- the stream's thread ---------------------------------------------------------------------------------

    private void run() {
        try {
            if (full) {
                fullSync();
            }
            phase = Phase.STREAMING;
            LOG.log(Level.INFO, "replica {0} ({1}): streaming from offset {2} (after sequence {3})", id(),
                    request.address(), Long.toString(offset), Long.toString(position));
            stream();
        } catch (InterruptedException e) {
            closeReason = closeReason == null ? "the primary stopped" : closeReason;
        } catch (IOException | RuntimeException | Error e) {
            // an Error too (out of memory while a large entry is read): the stream ends with a reason and the
            // replica resumes from its offset, rather than the thread dying with the slot still held
            if (closeReason == null) {
                closeReason = e.getMessage() == null ? e.toString() : e.getMessage();
                LOG.log(Level.WARNING, "replica {0}: {1}; disconnecting", id(), closeReason);
            }
        } finally {
            phase = Phase.DISCONNECTING;
            link.close(closeReason == null ? "the stream ended" : closeReason);
            slot.detach();
            ctx.ended(this);
        }
    }

    private void fullSync() throws IOException, InterruptedException {
        phase = Phase.PREPARING_CHECKPOINT;
        Checkpoints checkpoints = ctx.checkpoints();
        if (checkpoints == null) {
            throw new IOException("a full sync needs tandem.checkpoint, which is not active");
        }
        Journal journal = ctx.journal();
        try (Checkpoints.Cut cut = checkpoints.cut("fullsync_" + id())) {
            long s = cut.appliedSequence();
            long o = journal.offsetAfter(s);
            if (o < 0) {
                throw new IOException("the checkpoint at sequence " + s + " is not in the retained journal");
            }
            String id = ctx.replicationId();
            send(("+FULLRESYNC " + id + " " + o + "\r\n").getBytes(StandardCharsets.US_ASCII));
            phase = Phase.STREAMING_CHECKPOINT;
            transferTotal = cut.streamLength(id, o);
            transferStartNanos = System.nanoTime();
            long n = cut.send(id, o, new LinkChannel());
            LOG.log(Level.INFO, "replica {0}: full sync sent, {1} bytes, at offset {2} (sequence {3})", id(),
                    Long.toString(n), Long.toString(o), Long.toString(s));
            position = s;
            offset = o;
        }
    }

    /** Hands the connection to the FRPL command stream, from the replica's position, until it ends. */
    private void stream() throws IOException, InterruptedException {
        FrplStreams frpl = ctx.frpl();
        if (frpl == null) {
            throw new IOException("the FRPL stream (tandem.frpl) is not active; the replica reconnects and continues");
        }
        FrplStreams.Outbound o = frpl.stream(link, position, offset, ctx.settings().maxLagFrames(),
                ctx.settings().writeTimeoutMs());
        outbound = o;
        if (phase == Phase.DISCONNECTING) {
            o.close(closeReason == null ? "the connection closed" : closeReason); // closed while it was handed over
        }
        if (ackWanted) {
            ackWanted = false;
            o.requestAck();
        }
        String ended = o.run();
        if (closeReason == null) {
            closeReason = ended;
        }
    }

    private void send(byte[] bytes) throws IOException {
        send(ByteBuffer.wrap(bytes));
    }

    /** Queues bytes once the socket takes more, within {@code write.timeout.ms}. */
    private void send(ByteBuffer bytes) throws IOException {
        awaitWritable();
        link.send(bytes);
    }

    private void awaitWritable() throws IOException {
        int timeoutMs = ctx.settings().writeTimeoutMs();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (signal) {
            while (!link.writable()) {
                if (!link.open() || phase == Phase.DISCONNECTING) {
                    throw new IOException(closeReason == null ? "the connection closed" : closeReason);
                }
                long left = deadline - System.nanoTime();
                if (timeoutMs > 0 && left <= 0) {
                    throw new IOException("its socket took nothing for " + timeoutMs + " ms (write.timeout.ms)");
                }
                try {
                    signal.wait(timeoutMs > 0 ? Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)) : 100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted");
                }
            }
        }
    }

    /** The checkpoint stream's destination: bytes copied onto the link, files zero-copy, both flow-controlled. */
    private final class LinkChannel implements CheckpointStreamWriter.FileSink {

        @Override
        public int write(ByteBuffer src) throws IOException {
            int n = src.remaining();
            send(src);
            src.position(src.limit());
            transferBytes += n;
            return n;
        }

        @Override
        public void sendFile(Path file, long position, long count) throws IOException {
            awaitWritable();
            CompletionStage<Void> written = link.sendFile(file, position, count);
            int timeoutMs = ctx.settings().writeTimeoutMs();
            try {
                // a file region is not counted against the high-water mark: wait for it, so that progress and the
                // write timeout mean what they say (the timeout scaled for a file that takes longer than it)
                long budget = timeoutMs == 0 ? Long.MAX_VALUE : timeoutMs + count / (1 << 20);
                written.toCompletableFuture().get(budget, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IOException("its socket took less than 1 MiB/s of " + file.getFileName()
                        + " (write.timeout.ms)");
            } catch (ExecutionException e) {
                throw new IOException("sending " + file.getFileName() + ": " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            }
            transferBytes += count;
        }

        @Override
        public boolean isOpen() {
            return link.open();
        }

        @Override
        public void close() {
        }
    }

    // ---- status ----------------------------------------------------------------------------------------------

    /** @return the replica as {@code INFO replication} and {@code repl:status} show it */
    ReplicationStatus.Replica status(long lastSequence) {
        String state = switch (phase) {
            case CONNECTING, PREPARING_CHECKPOINT -> "wait_bgsave";
            case STREAMING_CHECKPOINT -> "send_bulk";
            case STREAMING -> "online";
            case DISCONNECTING -> "disconnecting";
        };
        long lastAck = lastAckNanos;
        long sinceAck = lastAck == 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastAck);
        ReplicationStatus.Transfer transfer = null;
        if (phase == Phase.STREAMING_CHECKPOINT) {
            long elapsed = System.nanoTime() - transferStartNanos;
            transfer = new ReplicationStatus.Transfer("full sync", transferBytes, transferTotal,
                    elapsed <= 0 ? 0 : transferBytes * 1e9 / elapsed);
        }
        long acked = Math.max(0, ackedSequence);
        FrplStreams.Outbound o = outbound;
        long sent = o == null ? position : o.sequence();
        return new ReplicationStatus.Replica(id(), request.announcedAddress(), state, sent, acked, acked,
                Math.max(0, lastSequence - acked), sinceAck, transfer);
    }
}
