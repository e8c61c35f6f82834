package tandem.api.frpl;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.ToIntFunction;

import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

import tandem.api.replication.PsyncLink;

/**
 * Opens FRPL streams. When the providing bundle stops (an update), every stream it opened ends: a primary's
 * {@link Outbound#run()} returns, a replica's {@link Inbound#feed} throws; the psync protocol drops those
 * connections and its replicas come back with {@code PSYNC <id> <offset>}, answered {@code +CONTINUE}.
 */
@ProviderType
public interface FrplStreams {

    /**
     * Primary: a stream of the durable journal after {@code fromSequence} to {@code link}, its frames' offsets
     * continuing from {@code fromOffset} (the offset after {@code fromSequence}). It sends nothing until
     * {@link Outbound#run()} is called.
     *
     * @param maxLagFrames   once the stream has caught up, a replica that falls more entries than this behind the
     *                       durable journal is disconnected (it reconnects and continues, or full-syncs)
     * @param writeTimeoutMs a replica whose socket takes nothing this long is disconnected; 0: never
     */
    Outbound stream(PsyncLink link, long fromSequence, long fromOffset, int maxLagFrames, int writeTimeoutMs);

    /**
     * Replica: the applier of a stream that starts at {@code fromOffset} (the offset this node's journal holds):
     * each complete command becomes an entry passed to {@code sink}, in this node's lineage with the primary's
     * timestamp. A command is journaled as it was received, sliced out of its frame, never decoded into arguments.
     *
     * @param maxPayload the largest frame payload accepted, in bytes
     * @param firstKey   where a command's first key is, from its name in lower case: the index of that argument
     *                   (the name is 0), or 0 when the command has no key; the applier hashes that argument
     *                   ({@code tandem.protocol.command.KeyHash}) for the entry's key hash
     * @since 2.0
     */
    Inbound receive(long fromOffset, long maxPayload, ToIntFunction<String> firstKey, Sink sink);

    /** A primary's stream to one replica. {@link #run()} on one thread; the other methods from any thread. */
    @ProviderType
    interface Outbound {

        /**
         * Streams until the stream is closed, the link closes, the replica falls behind or the provider stops, on
         * the calling thread.
         *
         * @return why the stream ended, for the log and the replica's status
         * @throws IOException          when the link failed (a write timed out, the connection broke)
         * @throws InterruptedException when the calling thread was interrupted
         */
        String run() throws IOException, InterruptedException;

        /** Asks the replica for an acknowledgement ({@code REPLCONF GETACK *}) at the stream's next turn. */
        void requestAck();

        /** The journal advanced or the link became writable: the stream looks again at once. */
        void wake();

        /**
         * @return the journal sequence whose entry ends exactly at {@code ackOffset} among those streamed (or the
         *         last one before it), or -1 when {@code ackOffset} is before what the stream still remembers
         */
        long sequenceAt(long ackOffset);

        /** @return the offset after the last frame sent */
        long offset();

        /** @return the sequence of the last entry sent */
        long sequence();

        /** Ends the stream: {@link #run()} returns {@code reason}. */
        void close(String reason);
    }

    /** A replica's applier of one stream. One thread at a time. */
    @ProviderType
    interface Inbound {

        /**
         * Feeds received bytes (consumed): complete frames are applied, a partial one is kept for the next call.
         *
         * @throws DivergenceException   when the stream cannot be applied to this journal (a frame's offset or
         *                               length is not the one that follows): the replica must full-sync
         * @throws IOException           when the bytes are not FRPL frames, or the provider stopped
         */
        void feed(ByteBuffer bytes) throws DivergenceException, IOException;

        /** @return the offset after the last entry passed to the sink */
        long offset();

        /**
         * @return the offset the primary asked to be acknowledged ({@code REPLCONF GETACK}) since the last call, or
         *         -1 when none was asked
         */
        long takeOwedAck();
    }

    /** Where a replica's entries go: its journal's {@code append}. */
    @ConsumerType
    @FunctionalInterface
    interface Sink {
        /**
         * @param payload      the entry's payload, its remaining bytes, valid only during the call
         * @param offsetLength the FRPL bytes the stream carried for the entry: how far it moves the offset
         * @return the journal sequence of the entry
         * @since 2.0
         */
        long append(long timestampNs, long keyHash, byte tag, ByteBuffer payload, long offsetLength);
    }

    /** The stream is no longer this replica's history: it must full-sync. */
    final class DivergenceException extends Exception {

        private static final long serialVersionUID = 1L;

        public DivergenceException(String message) {
            super(message);
        }
    }
}
