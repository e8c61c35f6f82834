package tandem.node;

import tandem.api.store.Command;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import tandem.protocol.command.String2ll;

/**
 * {@code WAIT numreplicas timeout}: the clients parked until enough replicas, of every protocol, acknowledged their
 * last write, or their time is up. Nothing else of a parked client runs meanwhile. The logic thread's alone, but
 * {@link #blocked()}.
 */
final class Waits {

    /** A {@code WAIT}: how many replicas must have acknowledged which sequence, until when. */
    record Wait(long sequence, long replicas, long deadlineNanos) {
    }

    static final String ON_REPLICA = "ERR WAIT cannot be used with replica instances. Please also note that "
            + "since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to "
            + "replicas are just local and are not propagated.";
    private static final String UNBLOCKED = "UNBLOCKED force unblock from blocking operation, instance state "
            + "changed (master -> replica?)";

    private final ResponseGate gate;
    private final List<Client> parked = new ArrayList<>();
    /** The size of {@link #parked}, for other threads. */
    private volatile int blocked;

    Waits(ResponseGate gate) {
        this.gate = gate;
    }

    /**
     * {@code WAIT} inside {@code MULTI}, run at {@code EXEC}: it cannot block there, so it answers at once how many
     * replicas acknowledged {@code sequence}, after Redis's checks of its arguments (Redis answers its
     * {@code replicationCountAcksByOffset} of the client's write before {@code EXEC}).
     *
     * @return false when {@code command} is not a WAIT (it runs as any other)
     */
    static boolean answerInTransaction(Client c, Command command, long sequence, boolean replica,
            ResponseGate gate) {
        if (!command.isFrontend() || !"wait".equals(command.name())) {
            return false;
        }
        tandem.api.store.Reply r = c.front.reply();
        Object parsed = replica ? ON_REPLICA : parse(command.args(), sequence);
        if (parsed instanceof String error) {
            r.error(error);
        } else {
            r.integer(gate.acknowledged(sequence));
        }
        return true;
    }

    /**
     * @return the wait {@code args} asks for after {@code lastWrite}, or the error it is answered with (a
     *         {@code String})
     */
    static Object parse(byte[][] args, long lastWrite) {
        if (args.length != 3) {
            return "ERR wrong number of arguments for 'wait' command";
        }
        long replicas;
        long timeout;
        try {
            replicas = String2ll.parse(args[1]);
        } catch (NumberFormatException e) {
            return "ERR value is not an integer or out of range";
        }
        try {
            timeout = String2ll.parse(args[2]);
        } catch (NumberFormatException e) {
            return "ERR timeout is not an integer or out of range";
        }
        if (timeout < 0) {
            return "ERR timeout is negative";
        }
        // a timeout beyond what nanoTime can count waits as long as 0 does: for good
        long deadline = timeout == 0 || timeout > TimeUnit.DAYS.toMillis(365L * 100) ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
        return new Wait(lastWrite, replicas, deadline);
    }

    /**
     * {@code c}'s {@code WAIT} takes its turn: answered at once when enough replicas acknowledged, else parked.
     *
     * @return true when answered
     */
    boolean start(Client c) {
        Wait w = c.waiting;
        int count = gate.acknowledged(w.sequence());
        if (count >= w.replicas()) {
            c.front.reply().integer(count);
            return true;
        }
        parked.add(c);
        blocked = parked.size();
        gate.wakeOnEveryAck(true);
        gate.requestAcks();
        return false;
    }

    /**
     * Answers the parked waits whose replicas acknowledged or whose time is up; all of them, with
     * {@code -UNBLOCKED}, once this node follows a primary.
     *
     * @return the clients answered, to be resumed
     */
    List<Client> answer(boolean following) {
        if (parked.isEmpty()) {
            return List.of();
        }
        long now = System.nanoTime();
        List<Client> done = new ArrayList<>();
        for (Iterator<Client> it = parked.iterator(); it.hasNext(); ) {
            Client c = it.next();
            Wait w = c.waiting;
            int count = gate.acknowledged(w.sequence());
            if (following) {
                it.remove(); // what it waited for will never come from here
                c.front.reply().error(UNBLOCKED);
                done.add(c);
            } else if (c.unblock == Client.Unblock.ERROR) {
                it.remove();
                c.front.reply().error(Blocked.UNBLOCKED_BY_CLIENT);
                done.add(c);
            } else if (count >= w.replicas() || now - w.deadlineNanos() >= 0 || c.unblock != null) {
                it.remove();
                c.front.reply().integer(count);
                done.add(c);
            }
        }
        gate.wakeOnEveryAck(!parked.isEmpty());
        blocked = parked.size();
        return done;
    }

    /** @return the client parked in {@code WAIT} whose front end's id is {@code id}, or null */
    Client parked(long id) {
        for (Client c : parked) {
            if (c.front.id() == id) {
                return c;
            }
        }
        return null;
    }

    /** @return how long the logic thread may sleep, at most {@code maxNanos}: until the nearest deadline */
    long pollNanos(long maxNanos) {
        long wait = maxNanos;
        long now = System.nanoTime();
        for (Client c : parked) {
            if (c.unblock != null) {
                return 0;
            }
            Wait w = c.waiting;
            if (w != null && w.deadlineNanos() != Long.MAX_VALUE) {
                wait = Math.min(wait, Math.max(0, w.deadlineNanos() - now));
            }
        }
        return wait;
    }

    /** {@code c} went away. */
    void remove(Client c) {
        parked.remove(c);
        blocked = parked.size();
    }

    /** @return the clients parked now ({@code INFO}'s {@code blocked_clients}); any thread */
    int blocked() {
        return blocked;
    }
}
