package tandem.frpl;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import tandem.api.frpl.FrplStreams;
import tandem.api.journal.EntryTag;
import tandem.api.journal.JournalReader;
import tandem.api.journal.SlotVisitor;
import tandem.api.replication.PsyncLink;
import tandem.protocol.frpl.FrplFrame;
import tandem.protocol.frpl.FrplPayload;
import tandem.protocol.frpl.FrplWriter;
import tandem.protocol.replication.InputBatch;

/**
 * A primary's FRPL stream to one replica: the durable journal after a sequence, each entry turned into its frames
 * ({@link FrplPayload}) whose offsets continue the replica's. The entries are read as the journal holds them (slots,
 * {@link JournalReader#readSlots}) and their frames written straight from those bytes into one outgoing buffer
 * ({@link FrplWriter}), sent once a pass or once it is full: a command's bytes are copied from the file's read
 * window into the buffer, and from there by the link, as the journal protocol's slot fan-out copies them; only a
 * command split into fragments is joined first. The stream is read from the durable journal,
 * never from memory: a slow replica costs the primary no buffer beyond the socket's high-water mark, and a replica
 * that falls more than {@code maxLagFrames} entries behind once it was live, or whose socket accepts nothing for
 * {@code writeTimeoutMs}, is disconnected (it reconnects and continues from the journal, or full-syncs when its
 * offset is no longer retained).
 *
 * <p>The (offset, sequence) pairs sent are remembered, a bounded number of them, so that an acknowledged offset
 * maps back to the journal sequence whose entry ends there.
 */
final class JournalStreamer implements FrplStreams.Outbound {

    private static final Logger LOG = System.getLogger("tandem.frpl");
    /** Entries read from the journal per pass: the stream re-checks acks, lag and closing between passes. */
    private static final int ENTRIES_PER_PASS = 1024;
    /** Frames are sent once this many bytes are waiting, and at the end of each pass. */
    private static final int SEND_BYTES = 64 * 1024;

    private final JournalReader journal;
    private final PsyncLink link;
    private final int maxLagFrames;
    private final int writeTimeoutMs;
    private final Runnable ended;
    private final Object signal = new Object();
    /** (end offset, sequence) of what was sent, oldest first: maps an ACK's offset to a sequence. */
    private final ArrayDeque<long[]> sent = new ArrayDeque<>();
    private long baseSequence;
    private long baseOffset;
    private volatile boolean ackWanted;
    private volatile String closeReason;
    private volatile long position;
    private volatile long offset;

    /**
     * @param ended told once {@link #run()} returned or threw, so that the provider forgets the stream
     */
    JournalStreamer(JournalReader journal, PsyncLink link, long fromSequence, long fromOffset, int maxLagFrames,
            int writeTimeoutMs, Runnable ended) {
        this.journal = journal;
        this.link = link;
        this.position = fromSequence;
        this.offset = fromOffset;
        this.baseSequence = fromSequence;
        this.baseOffset = fromOffset;
        this.maxLagFrames = maxLagFrames;
        this.writeTimeoutMs = writeTimeoutMs;
        this.ended = ended;
    }

    @Override
    public String run() throws IOException, InterruptedException {
        try {
            return stream();
        } finally {
            ended.run();
        }
    }

    private String stream() throws IOException, InterruptedException {
        boolean live = false;
        FrplWriter frames = new FrplWriter();
        Pass pass = new Pass(frames);
        while (closeReason == null && link.open()) {
            if (ackWanted) {
                ackWanted = false;
                send(ByteBuffer.wrap(FrplFrame.getAck(offset)));
            }
            long durable = journal.durableSequence();
            if (position >= durable) {
                live = true;
                synchronized (signal) {
                    if (journal.durableSequence() <= position && !ackWanted && closeReason == null) {
                        signal.wait(100);
                    }
                }
                continue;
            }
            if (live && durable - position > maxLagFrames) {
                String why = "fell more than " + maxLagFrames + " entries behind (max.lag.frames); it reconnects and "
                        + "continues";
                LOG.log(Level.WARNING, "replica {0}: {1}", link.remoteAddress(), why);
                return why;
            }
            pass.start();
            journal.readSlots(position, pass);
            if (pass.failure == null) {
                pass.flush();
            }
            if (pass.failure != null) {
                throw pass.failure;
            }
        }
        return closeReason == null ? "the connection closed" : closeReason;
    }

    /**
     * One read of the journal: each slot's frames into the outgoing buffer, a command's fragments joined until its
     * last one; a group that another entry cuts short is dropped (its sequences carry no command), one the read ends
     * inside is read again next pass from its start.
     */
    private final class Pass implements SlotVisitor {
        private final FrplWriter frames;
        /** The fragments of the command being joined; dropped after a pass when a large command grew it. */
        private ByteBuffer group = ByteBuffer.allocate(0);
        private long groupLast = -1;
        private int count;
        IOException failure;

        Pass(FrplWriter frames) {
            this.frames = frames;
        }

        void start() {
            group = group.capacity() > SEND_BYTES ? ByteBuffer.allocate(0) : group.clear();
            groupLast = -1;
            count = 0;
            failure = null;
        }

        @Override
        public boolean slot(long sequence, ByteBuffer slot) {
            int at = slot.position();
            byte tag = slot.get(at + InputBatch.SLOT_TAG_OFFSET);
            long timestampNs = slot.getLong(at + InputBatch.SLOT_TIMESTAMP_OFFSET);
            ByteBuffer payload = slot.duplicate().position(at + InputBatch.SLOT_PAYLOAD_OFFSET);
            boolean follows = groupLast >= 0 && sequence == groupLast + 1;
            if (tag == EntryTag.APP_CONTINUATION) {
                if (!follows) {
                    group.clear();
                }
                add(payload);
                groupLast = sequence;
                return true;
            }
            if (tag == EntryTag.APP && follows) {
                add(payload);
                payload = group.duplicate().flip();
            }
            group.clear();
            groupLast = -1;
            try {
                long after = frames.entry(tag, timestampNs, payload, offset);
                if (after != offset) {
                    offset = after;
                    remember(after, sequence);
                }
                position = sequence;
                if (frames.size() >= SEND_BYTES) {
                    flush();
                }
            } catch (IOException e) {
                failure = e;
                return false;
            }
            return ++count < ENTRIES_PER_PASS && closeReason == null;
        }

        private void add(ByteBuffer fragment) {
            if (group.remaining() < fragment.remaining()) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(group.capacity() * 2,
                        group.position() + fragment.remaining()));
                group = bigger.put(group.flip());
            }
            group.put(fragment.duplicate());
        }

        /** Sends the frames written so far. */
        void flush() throws IOException {
            if (frames.size() > 0) {
                try {
                    send(frames.written());
                } catch (IOException e) {
                    failure = e;
                    throw e;
                } finally {
                    frames.clear();
                }
            }
        }
    }

    private void remember(long endOffset, long sequence) {
        synchronized (sent) {
            sent.addLast(new long[] {endOffset, sequence});
            if (sent.size() > 4 * maxLagFrames) {
                long[] dropped = sent.pollFirst();
                baseOffset = dropped[0];
                baseSequence = dropped[1];
            }
        }
    }

    /** Queues bytes once the socket takes more, within {@code writeTimeoutMs}. */
    private void send(ByteBuffer bytes) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(writeTimeoutMs);
        synchronized (signal) {
            while (!link.writable()) {
                if (!link.open() || closeReason != null) {
                    throw new IOException(closeReason == null ? "the connection closed" : closeReason);
                }
                long left = deadline - System.nanoTime();
                if (writeTimeoutMs > 0 && left <= 0) {
                    throw new IOException("its socket took nothing for " + writeTimeoutMs + " ms (write.timeout.ms)");
                }
                try {
                    signal.wait(writeTimeoutMs > 0 ? Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)) : 100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted");
                }
            }
        }
        link.send(bytes);
    }

    @Override
    public void requestAck() {
        ackWanted = true;
        wake();
    }

    @Override
    public void wake() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    @Override
    public long sequenceAt(long ackOffset) {
        synchronized (sent) {
            long best = ackOffset >= baseOffset ? baseSequence : -1;
            while (!sent.isEmpty() && sent.peekFirst()[0] <= ackOffset) {
                long[] e = sent.pollFirst();
                best = e[1];
                baseOffset = e[0];
                baseSequence = e[1];
            }
            return best;
        }
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public long sequence() {
        return position;
    }

    @Override
    public void close(String reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
        wake();
    }
}
