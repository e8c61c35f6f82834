package tandem.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import tandem.api.store.Reply;

/**
 * A reply kept as a value, for a script's {@code redis.call}, which hands it to Lua: integers as {@code Long}, bulk
 * strings as {@code byte[]}, the rest as the records below. Speaks the protocol the script chose
 * ({@code redis.setresp}): under RESP2 a map is an array, a double a bulk string, as the connection would send them.
 */
final class TreeReply implements Reply {

    enum Kind { ARRAY, MAP, SET }

    record Status(String text) {
    }

    record Error(String text) {
    }

    /** A null bulk string or array (RESP3's one null). */
    record Null() {
    }

    record Double(double value) {
    }

    record Verbatim(byte[] text) {
    }

    /** An array, map (keys and values alternating) or set, with its elements. */
    record Aggregate(Kind kind, List<Object> items) {
    }

    private static final Null NULL = new Null();

    private final int protocol;
    private final Deque<Open> open = new ArrayDeque<>();
    private Object root;
    private boolean done;

    private record Open(Aggregate aggregate, int expected) {
    }

    TreeReply(int protocol) {
        this.protocol = protocol;
    }

    /** @return the reply, once complete */
    Object value() {
        if (!done) {
            throw new IllegalStateException("the reply is not complete");
        }
        return root;
    }

    @Override
    public int protocol() {
        return protocol;
    }

    @Override
    public Reply simple(String text) {
        return add(new Status(text));
    }

    @Override
    public Reply error(String text) {
        return add(new Error(text));
    }

    @Override
    public Reply integer(long value) {
        return add(value);
    }

    @Override
    public Reply bulk(byte[] value) {
        return add(value);
    }

    @Override
    public Reply nullBulk() {
        return add(NULL);
    }

    @Override
    public Reply nullArray() {
        return add(NULL);
    }

    @Override
    public Reply array(int count) {
        return aggregate(Kind.ARRAY, count, count);
    }

    @Override
    public Reply map(int pairs) {
        return protocol == 3 ? aggregate(Kind.MAP, pairs, 2 * pairs) : array(2 * pairs);
    }

    @Override
    public Reply set(int count) {
        return protocol == 3 ? aggregate(Kind.SET, count, count) : array(count);
    }

    @Override
    public Reply doubleValue(byte[] text) {
        return protocol == 3 ? add(new Double(java.lang.Double.parseDouble(
                new String(text, java.nio.charset.StandardCharsets.US_ASCII).replace("inf", "Infinity"))))
                : bulk(text);
    }

    @Override
    public Reply verbatim(byte[] text) {
        return protocol == 3 ? add(new Verbatim(text)) : bulk(text);
    }

    private Reply aggregate(Kind kind, int count, int elements) {
        Aggregate a = new Aggregate(kind, new ArrayList<>(Math.min(elements, 1024)));
        place(a);
        if (elements > 0) {
            open.push(new Open(a, elements)); // complete once its elements are in
        } else {
            completed();
        }
        return this;
    }

    private Reply add(Object value) {
        place(value);
        completed();
        return this;
    }

    private void place(Object value) {
        if (done) {
            throw new IllegalStateException("a command wrote a second reply");
        }
        if (open.isEmpty()) {
            root = value;
        } else {
            open.peek().aggregate().items().add(value);
        }
    }

    /** A value is complete: so is every aggregate it filled. */
    private void completed() {
        while (!open.isEmpty() && open.peek().aggregate().items().size() == open.peek().expected()) {
            open.pop();
        }
        if (open.isEmpty()) {
            done = true;
        }
    }
}
