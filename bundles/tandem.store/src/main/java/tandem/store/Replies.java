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

    /** A bulk string, or a nil bulk for null. */
    static void bulkOrNil(Reply r, byte[] value) {
        if (value == null) {
            r.nullBulk();
        } else {
            r.bulk(value);
        }
    }
}
