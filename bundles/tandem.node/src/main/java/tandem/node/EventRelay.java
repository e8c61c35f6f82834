package tandem.node;

import tandem.api.server.PubSub;
import tandem.api.store.KeyspaceEvents;

/**
 * Relays the keyspace's notifications to the front end's subscribers, as they apply live: on the primary as it
 * applies its writes, on a replica as its primary's entries arrive, never while a journal is replayed into the store
 * (after a restart, into a new store), for those events were raised once already, when the entries were new.
 * Redis publishes them from within the command; here they follow the apply that raised them.
 */
final class EventRelay implements KeyspaceEvents {

    /** Where the events go; null while the front end is away. */
    private volatile PubSub to;
    /** True while a journal is replayed; the logic thread's alone. */
    private boolean muted;
    /** The id of the client whose write applies now, 0 for none; the logic thread's alone. */
    private long writer;

    /** The write of client {@code id} (0: none) applies from now on; returns the previous writer. */
    long writer(long id) {
        long was = writer;
        writer = id;
        return was;
    }

    void to(PubSub next) {
        to = next;
    }

    PubSub to() {
        return to;
    }

    /** Mutes the relay while entries that were applied before are applied again; returns the previous state. */
    boolean mute(boolean mute) {
        boolean was = muted;
        muted = mute;
        return was;
    }

    @Override
    public int classes() {
        PubSub p = to;
        return muted || p == null ? 0 : p.keyspaceEventClasses();
    }

    @Override
    public void event(int type, String event, int db, byte[] key) {
        PubSub p = to;
        if (p != null && !muted) {
            p.keyspaceEvent(type, event, db, key, writer);
        }
    }
}
