package tandem.store;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import tandem.api.store.Reply;

/** A reply held back until it is known that the command that wrote it may be answered (a refused write). */
final class RecordedReply implements Reply {

    private final List<Consumer<Reply>> parts = new ArrayList<>();
    private final int protocol;

    /** @param protocol that of the reply it is replayed to: a command's shape may depend on it */
    RecordedReply(int protocol) {
        this.protocol = protocol;
    }

    @Override
    public int protocol() {
        return protocol;
    }

    @Override
    public Reply map(int pairs) {
        parts.add(r -> r.map(pairs));
        return this;
    }

    @Override
    public Reply set(int count) {
        parts.add(r -> r.set(count));
        return this;
    }

    @Override
    public Reply doubleValue(byte[] text) {
        parts.add(r -> r.doubleValue(text));
        return this;
    }

    @Override
    public Reply verbatim(byte[] text) {
        parts.add(r -> r.verbatim(text));
        return this;
    }

    @Override
    public Reply simple(String text) {
        parts.add(r -> r.simple(text));
        return this;
    }

    @Override
    public Reply error(String text) {
        parts.add(r -> r.error(text));
        return this;
    }

    @Override
    public Reply integer(long value) {
        parts.add(r -> r.integer(value));
        return this;
    }

    @Override
    public Reply bulk(byte[] value) {
        parts.add(r -> r.bulk(value));
        return this;
    }

    @Override
    public Reply nullBulk() {
        parts.add(Reply::nullBulk);
        return this;
    }

    @Override
    public Reply nullArray() {
        parts.add(Reply::nullArray);
        return this;
    }

    @Override
    public Reply array(int count) {
        parts.add(r -> r.array(count));
        return this;
    }

    void replayTo(Reply reply) {
        parts.forEach(p -> p.accept(reply));
    }
}
