package tandem.api.store;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Where a keyspace reports the events of Redis's keyspace notifications while it applies: the node relays them to
 * its Pub/Sub subscribers ({@code __keyspace@<db>__:<key>} and {@code __keyevent@<db>__:<event>}, as
 * {@code notify-keyspace-events} selects).
 *
 * <p>The keyspace raises the events a command raises in Redis 7.0, in Redis's order, as each journaled entry applies
 * on every node (a Tick raises {@code expired}), and {@code keymiss} on a read that misses. It asks {@link #classes()}
 * once per apply and raises nothing when it is 0, so that a node nobody listens to pays nothing. Events are handed
 * over on the logic thread once the apply has succeeded; an apply that fails raises none.
 */
@ConsumerType
public interface KeyspaceEvents {

    /** {@code K}: publish to {@code __keyspace@<db>__:<key>}. Redis's {@code NOTIFY_KEYSPACE}. */
    int KEYSPACE = 1;
    /** {@code E}: publish to {@code __keyevent@<db>__:<event>}. */
    int KEYEVENT = 1 << 1;
    /** {@code g}: generic commands (DEL, EXPIRE, RENAME, …). */
    int GENERIC = 1 << 2;
    /** {@code $}: string commands. */
    int STRING = 1 << 3;
    /** {@code l}: list commands. */
    int LIST = 1 << 4;
    /** {@code s}: set commands. */
    int SET = 1 << 5;
    /** {@code h}: hash commands. */
    int HASH = 1 << 6;
    /** {@code z}: sorted set commands. */
    int ZSET = 1 << 7;
    /** {@code x}: a key deleted because its deadline passed. */
    int EXPIRED = 1 << 8;
    /** {@code e}: a key evicted for memory (never raised: Tandem does not evict). */
    int EVICTED = 1 << 9;
    /** {@code t}: stream commands. */
    int STREAM = 1 << 10;
    /** {@code m}: a read of a key that does not exist. */
    int KEY_MISS = 1 << 11;
    /** {@code d}: module events (never raised: Tandem has no modules). */
    int MODULE = 1 << 13;
    /** {@code n}: a key created. */
    int NEW = 1 << 14;
    /**
     * Tandem's, never published: a database was emptied ({@code FLUSHDB}, {@code FLUSHALL}); the key is empty. For
     * client-side caching, which tells every tracking client.
     */
    int FLUSHED = 1 << 16;

    /**
     * @return the event classes wanted now (the bits above, or 0 for none); asked on the logic thread before each
     *         apply, so it must be cheap
     */
    int classes();

    /**
     * One event, on the logic thread.
     *
     * @param type  its class, one of the bits above
     * @param event its name, as Redis publishes it ({@code set}, {@code lpush}, {@code expired}, …)
     * @param db    the database of the key
     * @param key   the key; not to be modified
     */
    void event(int type, String event, int db, byte[] key);
}
