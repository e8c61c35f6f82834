package tandem.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.List;

import tandem.api.fencing.SplitBrainAudit;
import tandem.api.journal.EntryTag;
import tandem.api.journal.EntryVisitor;
import tandem.api.journal.Journal;
import tandem.api.store.Keyspace;
import tandem.protocol.command.CommandPayload;

/**
 * The split-brain ring of spec 001, kept as the tail of this node's own journal: when a primary that took client
 * writes is made a replica, the highest sequence any replica had shown it holds is remembered; if a snapshot of the
 * new primary then replaces the history (the resync discards it), the journal entries after that sequence are read
 * before the store is replaced (newest first within the ring's bounds, the oldest beyond counted as evicted) and
 * handed to the {@link SplitBrainAudit} once the install is done. A resync that continues the history instead
 * (the new primary holds everything this node had) forgets them: nothing was discarded.
 *
 * <p>Why the journal and not a copy per write: the journal already holds every write, durable, so the write path
 * copies nothing; the whole old journal is also kept as a lineage archive by the install.
 */
final class SplitBrainTail {

    private static final Logger LOG = System.getLogger("tandem.node");

    /** A demotion whose history may still be discarded. */
    private record Demoted(long heldSequence, long lastSequence, String oldPrimary) {
    }

    /** The writes read before an install, recorded after it. */
    /** What an install discards; {@code writes} is null when no audit was bound to read them for. */
    record Captured(Demoted demoted, long epochOld, long lastSequence, List<SplitBrainAudit.Write> writes,
            long evictedWrites, long evictedBytes) {
    }

    private volatile Demoted demoted;
    private volatile SplitBrainAudit audit;

    void audit(SplitBrainAudit next) {
        audit = next;
    }

    void unaudit(SplitBrainAudit gone) {
        if (audit == gone) {
            audit = null;
        }
    }

    /** This node, a primary that took client writes, now follows another: what a replica held is where it diverges. */
    void demoted(long heldSequence, long lastSequence, String oldPrimary) {
        demoted = new Demoted(heldSequence, lastSequence, oldPrimary);
    }

    /** This node is a primary again: nothing of its history will be discarded by a resync. */
    void promoted() {
        demoted = null;
    }

    /** Replication appended past the history's end: the new primary continued it, nothing is discarded. */
    void continued(long sequence) {
        Demoted d = demoted;
        if (d != null && sequence > d.lastSequence()) {
            demoted = null;
        }
    }

    /**
     * Reads the divergent tail before an install replaces the store; null when this node was not a demoted primary
     * or nothing is after what a replica held.
     */
    Captured capture(Journal journal, Keyspace keyspace) {
        Demoted d = demoted;
        if (d == null || journal == null || keyspace == null) {
            return null;
        }
        long last = journal.lastSequence();
        if (last <= d.heldSequence()) {
            return null;
        }
        SplitBrainAudit a = audit;
        if (a == null) {
            // nobody to hand the writes to: they stay in the journal's lineage archive, record() names the range
            return new Captured(d, keyspace.epoch(), last, null, 0, 0);
        }
        int maxEntries = a.maxEntries();
        long maxBytes = a.maxBytes();
        ArrayDeque<SplitBrainAudit.Write> ring = new ArrayDeque<>();
        ArrayDeque<Integer> sizes = new ArrayDeque<>();
        long[] ringBytes = {0};
        long[] evicted = {0, 0};
        long from = Math.max(d.heldSequence(), 0);
        EntryVisitor visitor = (sequence, timestampNs, keyHash, tag, payload) -> {
            if (tag != EntryTag.APP || sequence > last) {
                return sequence < last;
            }
            List<byte[][]> commands;
            boolean transaction;
            try {
                commands = CommandPayload.decode(payload);
                transaction = CommandPayload.isTransaction(payload);
            } catch (RuntimeException undecodable) { // the journal's CRC passed: only a bug gets here; keep the rest
                byte[][] note = {("(undecodable payload of " + payload.length + " bytes)")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII)};
                commands = List.<byte[][]>of(note);
                transaction = false;
            }
            ring.addLast(new SplitBrainAudit.Write(sequence, timestampNs, transaction, commands));
            sizes.addLast(payload.length);
            ringBytes[0] += payload.length;
            // FIFO eviction: the oldest leave first, as in spec 001's ring
            while (ring.size() > maxEntries || (ringBytes[0] > maxBytes && ring.size() > 1)) {
                ring.removeFirst();
                long size = sizes.removeFirst();
                ringBytes[0] -= size;
                evicted[0]++;
                evicted[1] += size;
            }
            return sequence < last;
        };
        try {
            journal.read(from, visitor);
        } catch (IllegalArgumentException notRetained) {
            long first = journal.segments().get(0).startSequence();
            LOG.log(Level.WARNING, "split-brain audit: sequences {0}..{1} are no longer in the journal; the audit "
                    + "starts at {2}", from + 1, first - 1, first);
            journal.read(first - 1, visitor);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "split-brain audit: the divergent entries after sequence {0} could not be read ({1}); "
                    + "they stay in the lineage archive", from, e.toString());
            return null;
        }
        return new Captured(d, keyspace.epoch(), last, List.copyOf(ring), evicted[0], evicted[1]);
    }

    /** Hands what was captured to the audit, after the install; the history is gone either way. */
    void record(Captured c, Keyspace keyspace, String newPrimary, String protocol) {
        demoted = null;
        if (c == null) {
            return;
        }
        SplitBrainAudit a = audit;
        if (a == null || c.writes() == null) {
            LOG.log(Level.ERROR, "split brain: the entries after sequence {0} (up to {1}) were discarded by the resync "
                    + "to {2}, and no audit was active (tandem.fencing): they are only in the journal''s lineage "
                    + "archive", c.demoted().heldSequence(), c.lastSequence(), newPrimary);
            return;
        }
        SplitBrainAudit.Discard discard = new SplitBrainAudit.Discard(protocol, c.demoted().oldPrimary(), newPrimary,
                c.epochOld(), keyspace.epoch(), c.demoted().heldSequence(), c.lastSequence(), c.writes(),
                c.evictedWrites(), c.evictedBytes());
        try {
            a.discarded(discard);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "split-brain audit failed; the writes are in the journal''s lineage archive", e);
        }
    }
}
