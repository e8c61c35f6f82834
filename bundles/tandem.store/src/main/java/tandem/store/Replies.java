package tandem.store;

import java.util.List;

import tandem.api.store.Reply;

/** Reply shapes that many commands share. */
final class Replies {

    private Replies() {
    }

    /** An array of bulk strings. */
    static void bulks(Reply r, List<byte[]> items) {
        r.array(items.size());
        items.forEach(r::bulk);
    }

    /** A set of bulk strings (RESP3 {@code ~}, RESP2 an array). */
    static void set(Reply r, List<byte[]> items) {
        r.set(items.size());
        items.forEach(r::bulk);
    }

    /** A double formatted as Redis does ({@link Reply#doubleValue}), or a nil bulk for null. */
    static void doubleOrNil(Reply r, byte[] formatted) {
        if (formatted == null) {
            r.nullBulk();
        } else {
            r.doubleValue(formatted);
        }
    }

    /** A bulk string, or a nil bulk for null. */
    static void bulkOrNil(Reply r, byte[] value) {
        if (value == null) {
            r.nullBulk();
        } else {
            r.bulk(value);
        }
    }
}
