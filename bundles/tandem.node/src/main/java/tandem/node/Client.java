package tandem.node;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import tandem.api.node.NodeClient;
import tandem.api.node.NodeSession;
import tandem.api.store.Command;
import tandem.api.store.Keyspace;

/**
 * One client as the node core sees it: the session its front end hands requests to, and the state of its
 * transaction, {@code WATCH} and {@code WAIT}. The session's methods queue onto the logic thread ({@link Inbox});
 * every field is the logic thread's alone.
 */
final class Client implements NodeSession {

    /** A request the front end refused ({@code NOAUTH}): answered with {@code error} at its turn. */
    record Refusal(Command command, String error) {
    }

    /** The client's input could not be decoded: {@code error} (or nothing) is answered, then it closes. */
    record Failure(String error) {
    }

    final NodeClient front;
    private final Inbox inbox;

    /** What the front end gave since its last flush; the I/O thread's. */
    private java.util.ArrayList<Object> given = new java.util.ArrayList<>();

    /** Set when QUIT or a protocol error has been seen: nothing after it is executed or journaled. */
    boolean ending;

    /**
     * The sequence of the last write whose reply was written: the client's replies are due only once the ack policy
     * holds for it, so that its later replies stay behind it while other clients are served.
     */
    long gatedSequence;
    /** Where the first reply the ack policy holds back begins, while {@link #gatedSequence} is set. */
    int heldMark;
    /**
     * Whether a write of this client is among the replies held back (not only a script's read, which waits for what
     * it read to be durable): a primary that turns replica can no longer acknowledge it.
     */
    boolean gatedWrite;

    /** The sequence of this client's last write, what {@code WAIT} waits for. */
    long lastWriteSequence;

    /** Set from {@code WAIT} until it is answered: what the client sends meanwhile waits in {@link #deferred}. */
    Waits.Wait waiting;
    /** Requests that arrived while the client waited in {@code WAIT} or was parked, in order. */
    final ArrayDeque<Object> deferred = new ArrayDeque<>();

    /** Set while a command finishes on another thread: what the client sends meanwhile waits. */
    boolean parked;

    /** Set while {@code CLIENT PAUSE} holds the client's next command ({@link Pause}): it and what follows wait. */
    boolean paused;

    /**
     * Set by {@code CLIENT UNBLOCK} while the client is parked in {@code WAIT} or a blocking command: it is answered
     * at the logic thread's next pass instead of served ({@link Parking#unblock}).
     */
    Unblock unblock;

    /** How {@code CLIENT UNBLOCK} answers a parked client: as its timeout would, or with Redis' error. */
    enum Unblock {
        TIMEOUT, ERROR
    }

    /** The database the client's next command works in ({@code SELECT}), as the node core dispatches it. */
    int db;
    /** Inside MULTI: the database of the next command queued (a queued SELECT changes it, and {@link #db} at EXEC). */
    int queuedDb;

    /**
     * @return the database a {@code SELECT} the front end will accept selects, or -1 for any other command (or a
     *         SELECT it answers with an error): the front end answers it and keeps the connection's, the node core
     *         keeps the database its commands are dispatched in
     */
    static int selected(Command command) {
        if (!command.isFrontend() || !command.name().equals("select") || command.args().length != 2) {
            return -1;
        }
        try {
            long index = tandem.protocol.command.String2ll.parse(command.args()[1]);
            return index >= 0 && index < Keyspace.DATABASES ? (int) index : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Commands queued since MULTI, or null outside a transaction. */
    List<Command> transaction;
    /** True when a queued command was refused: EXEC answers EXECABORT. */
    boolean transactionFailed;
    /** True when a watched key received a sequenced write since WATCH. */
    boolean watchTouched;
    /** The keys this client watches, as the watch registry knows them. */
    final List<WatchRegistry.Key> watched = new ArrayList<>();

    Client(NodeClient front, Inbox inbox) {
        this.front = front;
        this.inbox = inbox;
    }

    @Override
    public void request(Command command) {
        given.add(command);
    }

    @Override
    public void refuse(Command command, String error) {
        given.add(new Refusal(command, error));
    }

    @Override
    public void fail(String error) {
        given.add(new Failure(error));
    }

    @Override
    public void flush() {
        if (!given.isEmpty()) {
            inbox.submit(this, given.size() == 1 ? given.get(0) : given);
            given = new java.util.ArrayList<>();
        }
    }

    @Override
    public void closed() {
        flush();
        inbox.submit(this, Inbox.CLOSED);
    }
}
