package tandem.node;

import java.util.List;

import tandem.api.store.Command;

/**
 * A request, or an entry of the node's own, waiting for its turn on the logic thread; {@code sequence} > 0 when it
 * waits for its journal entry to be durable.
 *
 * @param client    whose request it is; null for the node's own entries (Tick, EpochBump, Publish)
 * @param command   the request; null for a transaction's EXEC (see {@code commands}) and the node's own entries
 * @param commands  a transaction's commands
 * @param immediate the reply of an {@link Kind#IMMEDIATE} request ({@code +OK}, {@code -ERR …}, {@code *-1}), the
 *                  error of an {@link Kind#ERROR}
 * @param epoch     an EpochBump's epoch
 */
record Pending(Client client, Kind kind, long sequence, long timestampNs, Command command, List<Command> commands,
        String immediate, long epoch) {

    enum Kind {
        /** Answered with a line fixed when it was sequenced. */
        IMMEDIATE,
        /** The front end's command (or an unknown one), run by the front end at its turn. */
        CONNECTION,
        /** A keyspace read. */
        READ,
        /** A write its check refused: answered at its turn, as the state then makes Redis answer. */
        REFUSED,
        /** A journaled client write. */
        WRITE,
        /** A journaled transaction. */
        TRANSACTION,
        /** A transaction of reads only: never journaled. */
        READ_TRANSACTION,
        /** The node's Tick: active expiry. */
        TICK,
        /** The node's EpochBump: a promotion. */
        EPOCH_BUMP,
        /** A PUBLISH journaled for the replicas' subscribers: answered already, it only advances the keyspace. */
        PUBLISH,
        /** {@code WAIT}: answered, or parked, at its turn. */
        WAIT,
        /** The client's input failed to decode: answered (when there is an error), then the connection closes. */
        ERROR
    }

    static Pending immediate(Client c, Command command, String reply) {
        return new Pending(c, Kind.IMMEDIATE, 0, 0, command, null, reply, 0);
    }

    static Pending of(Client c, Kind kind, Command command) {
        return new Pending(c, kind, 0, 0, command, null, null, 0);
    }

    static Pending write(Client c, long sequence, long timestampNs, Command command) {
        return new Pending(c, Kind.WRITE, sequence, timestampNs, command, null, null, 0);
    }

    static Pending transaction(Client c, long sequence, long timestampNs, List<Command> commands) {
        return new Pending(c, sequence == 0 ? Kind.READ_TRANSACTION : Kind.TRANSACTION, sequence, timestampNs, null,
                commands, null, 0);
    }

    static Pending error(Client c, String error) {
        return new Pending(c, Kind.ERROR, 0, 0, null, null, error, 0);
    }

    static Pending tick(long sequence, long timestampNs) {
        return new Pending(null, Kind.TICK, sequence, timestampNs, null, null, null, 0);
    }

    static Pending publish(long sequence, long timestampNs) {
        return new Pending(null, Kind.PUBLISH, sequence, timestampNs, null, null, null, 0);
    }

    static Pending epochBump(long sequence, long timestampNs, long epoch) {
        return new Pending(null, Kind.EPOCH_BUMP, sequence, timestampNs, null, null, null, epoch);
    }

    /** @return true when it needs the keyspace at its turn */
    boolean needsKeyspace() {
        return kind != Kind.IMMEDIATE && kind != Kind.CONNECTION && kind != Kind.ERROR && kind != Kind.WAIT;
    }

    /** @return how the log and the stall watchdog name what it runs */
    String describe() {
        if (command != null) {
            return command.toString();
        }
        return kind.toString().toLowerCase(java.util.Locale.ROOT);
    }
}
