package tandem.node;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import tandem.api.node.NodeClient;
import tandem.api.store.Command;
import tandem.api.store.Reply;

/**
 * The replies of a journaled transaction's keyspace commands, held while its entry applies, then written to the
 * client with the front end's queued commands run in their places ({@code MULTI}, {@code PING}, {@code SET k v},
 * {@code CLIENT SETNAME n}, {@code EXEC}). The keyspace writes one array, its header first; each of its elements is
 * one command's reply, told apart by counting the elements of nested aggregates.
 */
final class TransactionReplies implements Reply {

    private final int protocol;
    /** Each keyspace command's reply, as the calls that write it. */
    private final List<List<Consumer<Reply>>> replies = new ArrayList<>();
    private List<Consumer<Reply>> current = new ArrayList<>();
    /** How many elements each open aggregate still waits for, innermost last. */
    private final List<Long> open = new ArrayList<>();
    private boolean headerSeen;

    /** @param protocol that of the client: a reply's shape may depend on it */
    TransactionReplies(int protocol) {
        this.protocol = protocol;
    }

    /** @return whether every command of a transaction is the keyspace's (its entry's replies go to the client as they are) */
    static boolean allKeyspace(List<Command> commands) {
        for (Command c : commands) {
            if (!c.isKeyspace()) {
                return false;
            }
        }
        return true;
    }

    /** @return the keyspace's commands among {@code commands}, in order: what the journal entry holds */
    static List<Command> keyspace(List<Command> commands) {
        List<Command> out = new ArrayList<>(commands.size());
        for (Command c : commands) {
            if (c.isKeyspace()) {
                out.add(c);
            }
        }
        return out;
    }

    /** Writes EXEC's array: each keyspace command's held reply, each front-end command run where it was queued. */
    /** @param own answers a command the node core runs itself (WAIT) and says so; the front end runs the rest */
    void writeTo(NodeClient client, List<Command> commands, java.util.function.Predicate<Command> own) {
        client.reply().array(commands.size());
        int next = 0;
        for (Command c : commands) {
            if (c.isKeyspace()) {
                Reply r = client.reply();
                replies.get(next++).forEach(part -> part.accept(r));
            } else if (!own.test(c)) {
                client.run(c); // queueable: it answers at once
            }
        }
    }

    @Override
    public int protocol() {
        return protocol;
    }

    private Reply scalar(Consumer<Reply> part) {
        current.add(part);
        element();
        return this;
    }

    private Reply aggregate(Consumer<Reply> part, long elements) {
        if (!headerSeen) {
            headerSeen = true; // the transaction's own array: EXEC's is written with every command counted
            return this;
        }
        current.add(part);
        if (elements <= 0) {
            element();
        } else {
            open.add(elements);
        }
        return this;
    }

    /** One element ended: it closes the aggregates it completes, and the reply when none is open. */
    private void element() {
        while (!open.isEmpty()) {
            int last = open.size() - 1;
            long left = open.get(last) - 1;
            if (left > 0) {
                open.set(last, left);
                return;
            }
            open.remove(last);
        }
        replies.add(current);
        current = new ArrayList<>();
    }

    @Override
    public Reply simple(String text) {
        return scalar(r -> r.simple(text));
    }

    @Override
    public Reply error(String text) {
        return scalar(r -> r.error(text));
    }

    @Override
    public Reply integer(long value) {
        return scalar(r -> r.integer(value));
    }

    @Override
    public Reply bulk(byte[] value) {
        return scalar(r -> r.bulk(value));
    }

    @Override
    public Reply nullBulk() {
        return scalar(Reply::nullBulk);
    }

    @Override
    public Reply nullArray() {
        return scalar(Reply::nullArray);
    }

    @Override
    public Reply doubleValue(byte[] text) {
        return scalar(r -> r.doubleValue(text));
    }

    @Override
    public Reply verbatim(byte[] text) {
        return scalar(r -> r.verbatim(text));
    }

    @Override
    public Reply array(int count) {
        return aggregate(r -> r.array(count), count);
    }

    @Override
    public Reply set(int count) {
        return aggregate(r -> r.set(count), count);
    }

    @Override
    public Reply map(int pairs) {
        return aggregate(r -> r.map(pairs), 2L * pairs);
    }
}
