package tandem.failover;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

import tandem.failover.GroupCodec.Answer;
import tandem.failover.GroupCodec.Report;

/**
 * The group's Raft state machine. Entries ({@code JOIN}, {@code PROMOTE}) make the {@link GroupState}; every peer
 * applies them in log order, from the start after a restart (the log is small: it grows by one entry per join and per
 * change of primary, so no snapshot is taken). Reports arrive as read-only queries, which Ratis answers on the leader
 * after a ReadIndex round (linearizable reads): an answer proves a majority still followed this leader after the
 * report was sent, which is what the primary's lease rests on.
 */
final class GroupMachine extends BaseStateMachine {

    private static final Logger LOG = System.getLogger("tandem.failover");

    private final Liveness liveness;
    private final LongSupplier downNanos;
    private final Runnable changed;
    private volatile GroupState state = GroupState.EMPTY;

    /**
     * @param liveness  where the leader records reports
     * @param downNanos how long a silent member takes to count as down, for answers
     * @param changed   called after each applied entry (on Ratis' apply thread: it must not block)
     */
    GroupMachine(Liveness liveness, LongSupplier downNanos, Runnable changed) {
        this.liveness = liveness;
        this.downNanos = downNanos;
        this.changed = changed;
    }

    GroupState state() {
        return state;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
        try {
            state = apply(state, data);
        } catch (IllegalArgumentException e) {
            // written by a newer version, or damaged: the metadata stays as it was, loudly
            LOG.log(Level.ERROR, "failover group: entry " + entry.getIndex() + " of term " + entry.getTerm()
                    + " is not understood and was skipped: " + e.getMessage());
        }
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        changed.run();
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    /** @return the state after {@code entry} */
    static GroupState apply(GroupState state, ByteBuffer entry) {
        return switch (GroupCodec.type(entry)) {
            case GroupCodec.JOIN -> state.join(GroupCodec.readJoin(entry));
            case GroupCodec.PROMOTE -> {
                var f = GroupCodec.readPromote(entry);
                GroupState next = state.promote(f);
                if (next != state) {
                    LOG.log(Level.INFO, "failover group: epoch {0}: {1} is the primary{2} ({3})", f.epoch(), f.to(),
                            f.from().isEmpty() ? "" : ", after " + f.from(), f.reason());
                }
                yield next;
            }
            default -> throw new IllegalArgumentException("unknown entry type " + GroupCodec.type(entry));
        };
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        try {
            Report report = GroupCodec.readReport(request.getContent().asReadOnlyByteBuffer());
            GroupState s = state;
            long now = System.nanoTime();
            boolean leader = leader();
            if (leader) {
                liveness.heard(report, now);
            }
            Answer a = new Answer(leader, s.epoch(), s.primary(), leader ? liveness.heard(now, downNanos.getAsLong())
                    : java.util.List.of());
            return CompletableFuture.completedFuture(Message.valueOf(java.nio.ByteBuffer.wrap(GroupCodec.answer(a))));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private boolean leader() {
        try {
            return getServer().join().getDivision(getGroupId()).getInfo().isLeader();
        } catch (IOException e) {
            return false;
        }
    }
}
