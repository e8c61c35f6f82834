package tandem.api.server;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Publishes to the RESP front end's subscribers, as PUBLISH does.
 *
 * <p>Registered by the server bundle while the front end is active. Safe from any thread; the message reaches every
 * connection subscribed to {@code channel} ({@code SUBSCRIBE}) or to a pattern that matches it ({@code PSUBSCRIBE}),
 * as a {@code message} or {@code pmessage} push, after what the subscriber was sent before. Messages of one caller
 * reach each subscriber in the order they were published. It never blocks on a subscriber: one that does not read
 * is disconnected once its output buffer passes {@code client-output-buffer-limit pubsub}.
 *
 * @since 1.5
 */
@ProviderType
public interface PubSub {

    /**
     * @param channel the channel's name, UTF-8 encoded on the wire
     * @param message the payload, sent as it is
     * @return the number of subscribers (channel and pattern) that received the message
     */
    long publish(String channel, byte[] message);

    /**
     * Delivers what a client published on the primary, as a replica's journal brings it ({@code PUBLISH} and
     * {@code SPUBLISH} propagate as Redis propagates them).
     *
     * @param channel the channel's name as the client sent it, any bytes
     * @param shard   true for a shard channel ({@code SPUBLISH}), whose subscribers are those of {@code SSUBSCRIBE}
     * @return the number of subscribers of this node that received the message
     * @since 1.6
     */
    long publish(byte[] channel, byte[] message, boolean shard);

    /**
     * @return the keyspace notification classes {@code notify-keyspace-events} selects now, as the bits of
     *         {@link tandem.api.store.KeyspaceEvents}; 0 when none would be published
     * @since 1.7
     */
    default int keyspaceEventClasses() {
        return 0;
    }

    /**
     * One keyspace event: published as {@code notify-keyspace-events} selects, to {@code __keyspace@<db>__:<key>}
     * (message: the event) and {@code __keyevent@<db>__:<event>} (message: the key); and, as a modified key, an
     * invalidation for the clients that track it ({@code CLIENT TRACKING}).
     *
     * @param writer the id of the client whose command raised it, 0 for none (a replicated write, a Tick)
     * @since 1.7
     */
    default void keyspaceEvent(int type, String event, int db, byte[] key, long writer) {
    }
}
