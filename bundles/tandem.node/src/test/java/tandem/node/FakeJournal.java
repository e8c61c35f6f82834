package tandem.node;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.journal.JournalStatus;
import tandem.api.journal.JournalStoppedException;

/** An in-memory journal: durability advances when the test allows it, one "fsync" per advance. */
public final class FakeJournal implements Journal {
    public record Entry(long sequence, long timestampNs, byte tag, byte[] payload) {
    }

    public final List<Entry> entries = new CopyOnWriteArrayList<>();
    public volatile int syncs;
    private volatile boolean hold;
    private volatile long durable;
    private volatile String stopped;

    public synchronized void holdDurability(boolean h) {
        hold = h;
        if (!h) {
            sync();
        }
    }

    final List<tandem.api.journal.DurabilityListener> listeners = new CopyOnWriteArrayList<>();

    public synchronized void stop(String reason) {
        stopped = reason;
        notifyAll();
        listeners.forEach(l -> l.stopped(reason));
    }

    private synchronized void sync() {
        if (!hold && durable < entries.size()) {
            durable = entries.size();
            syncs++;
            notifyAll();
            listeners.forEach(l -> l.durable(durable));
        }
    }

    @Override
    public void addDurabilityListener(tandem.api.journal.DurabilityListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeDurabilityListener(tandem.api.journal.DurabilityListener listener) {
        listeners.remove(listener);
    }

    /** An entry of the test's own (a replica's, as replication would append it). */
    public long append(long timestampNs, long keyHash, byte tag, byte[] payload) {
        return append(timestampNs, keyHash, tag, java.nio.ByteBuffer.wrap(payload), 0);
    }

    @Override
    public long append(long timestampNs, long keyHash, byte tag, java.nio.ByteBuffer payload, long offsetLength) {
        if (stopped != null) {
            throw new JournalStoppedException(stopped, null);
        }
        byte[] bytes = new byte[payload.remaining()];
        payload.get(payload.position(), bytes);
        entries.add(new Entry(entries.size() + 1, timestampNs, tag, bytes));
        long sequence = entries.size();
        sync(); // like a journal thread that syncs at once unless the test holds it
        return sequence;
    }

    @Override
    public long lastSequence() {
        return entries.size();
    }

    @Override
    public long durableSequence() {
        return durable;
    }

    @Override
    public long lastTimestampNs() {
        return entries.isEmpty() ? 0 : entries.get(entries.size() - 1).timestampNs();
    }

    @Override
    public synchronized void awaitDurable(long sequence) throws InterruptedException {
        while (durable < sequence) {
            if (stopped != null) {
                throw new JournalStoppedException(stopped, null);
            }
            sync();
            if (durable < sequence) {
                wait(5);
            }
        }
    }

    @Override
    public void read(long afterSequence, EntryVisitor visitor) {
        for (Entry e : entries) {
            if (e.sequence() > afterSequence && e.sequence() <= durable
                    && !visitor.entry(e.sequence(), e.timestampNs(), 0, e.tag(), e.payload())) {
                return;
            }
        }
    }

    @Override
    public void rotate() {
    }

    @Override
    public int purge(long appliedAndFlushed) {
        return 0;
    }

    @Override
    public String verify() {
        return null;
    }

    @Override
    public JournalStatus status() {
        return new JournalStatus("mem", 1, lastSequence(), durable, lastTimestampNs(), 0, 1, 0, "", stopped);
    }

    // replication: not used by these tests
    @Override
    public void appendReplicated(long sequence, long timestampNs, long keyHash, long requestSeq, byte tag,
            java.nio.ByteBuffer payload, long offsetLength) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void adopt(long startSequence, byte[] anchor, long replicationOffset) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void rotateAt(long boundarySequence, byte[] tailHash) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void rotateBySize(boolean enabled) {
    }

    @Override
    public java.util.concurrent.CompletionStage<Boolean> checkChain(long sequence, byte[] expected) {
        throw new UnsupportedOperationException();
    }

    /** The chain values a test gives the journal's history, and its first segment's anchor. */
    public final Map<Long, byte[]> chains = new java.util.concurrent.ConcurrentHashMap<>();
    volatile byte[] firstAnchor = new byte[32];

    @Override
    public byte[] chainAt(long sequence) {
        return sequence > durable ? null : chains.get(sequence);
    }

    public volatile long generation;

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public long offsetAfter(long sequence) {
        return -1;
    }

    @Override
    public long sequenceAtOffset(long offset) {
        return -1;
    }

    @Override
    public void reset(long startSequence, byte[] anchor, long replicationOffset) {
        throw new UnsupportedOperationException("not used by these tests");
    }

    @Override
    public List<tandem.api.journal.SegmentInfo> segments() {
        return List.of(new tandem.api.journal.SegmentInfo("journal", 1, durable, firstAnchor, 0, false));
    }

    @Override
    public void readSlots(long afterSequence, tandem.api.journal.SlotVisitor visitor) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long writeSeed(long snapSequence, java.nio.channels.WritableByteChannel out) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void installSeed(java.nio.file.Path seed) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void tap(tandem.api.journal.JournalTap tap) {
    }

    @Override
    public void untap(tandem.api.journal.JournalTap tap) {
    }
}
