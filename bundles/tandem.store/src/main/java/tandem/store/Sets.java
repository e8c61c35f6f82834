package tandem.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import tandem.api.store.KeyspaceEvents;
import tandem.store.Tx.Rec;

/**
 * How a set is stored, and the reads and writes its commands ({@link SetCommands}) are made of. A set's members are
 * records of their own in the {@code fields} family ({@code [key_len][key][member] -> empty}), counted in the key
 * record, so SADD, SREM and SISMEMBER touch one record per member whatever the set's size. Members come back in
 * member byte order (Redis: an intset's numeric order or hash order; clients must rely on neither). Deleting the
 * last member deletes the key.
 *
 * <p>Encoding (OBJECT ENCODING): Redis 7.0 keeps a set whose members are all integers ({@code string2ll}) and at
 * most {@value #MAX_INTSET} as an "intset" and converts it to a "hashtable" for good when it is given another
 * member; the {@link Tx#ENC_RAW} flag records that conversion.
 */
final class Sets {

    /** Redis' default {@code set-max-intset-entries}. */
    static final int MAX_INTSET = 512;
    private static final byte[] EMPTY = new byte[0];

    private Sets() {
    }

    /** The live set at {@code key}, or null; WRONGTYPE when it holds another type. */
    static Rec set(Tx tx, byte[] key) {
        return tx.typed(key, Tx.SET);
    }

    /**
     * The encoding flags of a set left with {@code count} members after it was given {@code given}: a hashtable once
     * it held a member that is not an integer or more than {@value #MAX_INTSET} members.
     */
    static int encoding(int oldFlags, long count, Iterable<byte[]> given) {
        boolean table = (oldFlags & Tx.ENC_RAW) != 0 || count > MAX_INTSET;
        if (!table) {
            for (byte[] m : given) {
                if (!Numbers.isLong(m)) {
                    table = true;
                    break;
                }
            }
        }
        return table ? Tx.ENC_RAW : 0;
    }

    static String encodingName(Rec rec) {
        return rec.has(Tx.ENC_RAW) || rec.fieldCount() > MAX_INTSET ? "hashtable" : "intset";
    }

    static boolean isMember(Tx tx, byte[] key, byte[] member) {
        return tx.field(key, member) != null;
    }

    /** Every member, in byte order. */
    static List<byte[]> members(Tx tx, byte[] key) {
        return tx.names(Tx.fieldPrefix(key));
    }

    /**
     * Replaces whatever {@code key} holds with a set of {@code members} (sorted, distinct), as SINTERSTORE and its
     * kin do: an empty result deletes the key; the deadline goes. Raises {@code event}, or {@code del} when an
     * empty result deleted the key.
     */
    static void store(Tx tx, byte[] key, List<byte[]> members, String event) {
        Rec old = tx.meta(key);
        if (old != null) {
            tx.delete(key, old);
        }
        if (members.isEmpty()) {
            if (old != null) {
                tx.event(KeyspaceEvents.GENERIC, "del", key);
            }
            return;
        }
        for (byte[] m : members) {
            add(tx, key, m);
        }
        tx.putCollection(key, null, Tx.SET, members.size(), Tx.NO_EXPIRY, encoding(0, members.size(), members));
        if (old != null) {
            tx.unraise(KeyspaceEvents.NEW, key); // Redis overwrites the key in place
        }
        tx.event(KeyspaceEvents.SET, event, key);
    }

    /** Adds {@code member}, which must not be there yet. */
    static void add(Tx tx, byte[] key, byte[] member) {
        tx.putField(key, member, EMPTY);
    }

    /** An intset's members (all integers) in Redis' order: ascending value. */
    static List<byte[]> intsetOrder(List<byte[]> members) {
        List<byte[]> sorted = new ArrayList<>(members);
        sorted.sort(Comparator.comparingLong(Numbers::parseLong));
        return sorted;
    }
}
