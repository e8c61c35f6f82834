package tandem.server.pubsub;

import io.netty.buffer.ByteBuf;

/**
 * One push ({@code message}, {@code pmessage}, {@code smessage}) on its way to the subscribers of one channel or
 * pattern: the frame is built once and shared, each subscriber's queue holding a reference to it.
 *
 * @param kind  the namespace of the subscription that receives it; null for a {@code MONITOR} line
 * @param name  the channel (or pattern) subscribed to, which the subscriber must still hold when it is written
 * @param frame the push's bytes
 */
record Delivery(Kind kind, Name name, ByteBuf frame) {
}
