package tandem.server.pipeline;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;

/**
 * The replies of one round, handed to each event loop in one task for all its connections. Writing to a channel
 * from the logic thread queues a task and wakes its event loop (an {@code eventfd} write) per channel: with fifty
 * pipelining clients that was fifty system calls a round on the logic thread. Replies keep their order: one
 * connection's replies of a round are one buffer, and tasks run in the order they are queued. Whether the channel
 * closes after them is decided when they are taken, on the logic thread, not when the task runs.
 */
final class Outbound {

    private final Map<EventLoop, List<Object>> byLoop = new IdentityHashMap<>();

    /** Takes {@code c}'s replies of this round, to be sent by {@link #send}. */
    void add(Connection c) {
        ByteBuf replies = c.takeReplies();
        boolean close = c.closesAfterReply();
        if (replies == null && !close) {
            return;
        }
        List<Object> batch = byLoop.computeIfAbsent(c.eventLoop(), l -> new ArrayList<>());
        batch.add(c);
        batch.add(replies);
        batch.add(close);
        batch.add(c.takeChanges());
    }

    /** Hands every event loop its connections' replies, in one task each. */
    @SuppressWarnings("unchecked")
    void send() {
        if (byLoop.isEmpty()) {
            return;
        }
        for (Map.Entry<EventLoop, List<Object>> e : byLoop.entrySet()) {
            Object[] batch = e.getValue().toArray();
            e.getValue().clear();
            if (batch.length == 0) {
                continue;
            }
            Runnable task = () -> {
                for (int i = 0; i < batch.length; i += 4) {
                    ((Connection) batch[i]).send((ByteBuf) batch[i + 1], (Boolean) batch[i + 2],
                            (java.util.List<tandem.server.pubsub.Subscriptions.Change>) batch[i + 3]);
                }
            };
            try {
                if (e.getKey().inEventLoop()) {
                    task.run(); // an embedded channel's loop (tests): no task queue to wait on
                } else {
                    e.getKey().execute(task);
                }
            } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
                for (int i = 1; i < batch.length; i += 4) {
                    if (batch[i] != null) {
                        ((ByteBuf) batch[i]).release();
                    }
                }
            }
        }
    }
}
