package tandem.server.pubsub;

import java.nio.charset.StandardCharsets;

/**
 * The three namespaces of Redis 7.0's Pub/Sub: channels, patterns, and shard channels (which, outside a cluster,
 * behave as channels of their own namespace). Each names its commands and the push that delivers a message.
 */
public enum Kind {

    CHANNEL("subscribe", "unsubscribe", "message"),
    PATTERN("psubscribe", "punsubscribe", "pmessage"),
    SHARD("ssubscribe", "sunsubscribe", "smessage");

    private final byte[] subscribe;
    private final byte[] unsubscribe;
    private final byte[] push;

    Kind(String subscribe, String unsubscribe, String push) {
        this.subscribe = subscribe.getBytes(StandardCharsets.US_ASCII);
        this.unsubscribe = unsubscribe.getBytes(StandardCharsets.US_ASCII);
        this.push = push.getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the name of the confirmation of a subscription ({@code subscribe}) */
    public byte[] subscribe() {
        return subscribe;
    }

    /** @return the name of the confirmation of an unsubscription ({@code unsubscribe}) */
    public byte[] unsubscribe() {
        return unsubscribe;
    }

    /** @return the name of the push that delivers a message ({@code message}) */
    byte[] push() {
        return push;
    }
}
