package tandem.store;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import tandem.api.store.Reply;

/** A reply held back until it is known that the command that wrote it may be answered (a refused write). */
final class RecordedReply implements Reply {

    private final List<Consumer<Reply>> parts = new ArrayList<>();

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
