package tandem.server.pubsub;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import tandem.api.server.PubSub;
import tandem.api.store.KeyspaceEvents;
import tandem.protocol.command.Glob;
import tandem.server.resp.RespWriter;

/**
 * Who is subscribed to what, across the node's connections, and publishing to them: the server's one registry,
 * private to the server bundle and also offered as {@link PubSub} (the failover component's {@code +switch-master}).
 *
 * <p>Publishing is safe from any thread and takes no lock but each subscriber's mailbox's, never while writing to a
 * socket: a connection's I/O happens on its own event loop ({@link Subscriber}). Subscriptions change only on the
 * event loops, when their confirmations are written ({@link #apply}); the per-name subscriber lists are copied on
 * write, so a publisher reads them without locking and without allocating.
 */
public final class PubSubRegistry implements PubSub {

    private final Map<Kind, ConcurrentHashMap<Name, CopyOnWriteArrayList<Subscriber>>> byKind =
            new EnumMap<>(Kind.class);
    private static final ThreadLocal<RespWriter> WRITERS = ThreadLocal.withInitial(RespWriter::new);
    private volatile OutputLimit limit = OutputLimit.PUBSUB_DEFAULT;
    /** The keyspace notification classes, {@code NOTIFY_*} bits; 0: none. */
    private volatile int keyspaceEvents;
    private volatile Tracking tracking = new Tracking(id -> null);
    private final Monitors monitors = new Monitors();

    public PubSubRegistry() {
        for (Kind kind : Kind.values()) {
            byKind.put(kind, new ConcurrentHashMap<>());
        }
    }

    /** @return the output buffer limit of subscribers */
    OutputLimit limit() {
        return limit;
    }

    /** Sets the output buffer limit of subscribers ({@code client-output-buffer-limit pubsub}), live. */
    public void limit(OutputLimit next) {
        limit = next;
    }

    /** Sets the keyspace notification classes ({@code notify-keyspace-events}), live. */
    public void keyspaceEvents(int classes) {
        keyspaceEvents = classes;
    }

    /** The events client-side caching needs: every modification, a flush. */
    private static final int MODIFICATIONS = KeyspaceEvents.GENERIC | KeyspaceEvents.STRING | KeyspaceEvents.LIST
            | KeyspaceEvents.SET | KeyspaceEvents.HASH | KeyspaceEvents.ZSET | KeyspaceEvents.EXPIRED
            | KeyspaceEvents.FLUSHED;

    /** The clients that track keys ({@code CLIENT TRACKING}). */
    public Tracking tracking() {
        return tracking;
    }

    /** Sets where tracking clients are found (the server's connections). */
    public void tracking(Tracking next) {
        tracking = next;
    }

    @Override
    public int keyspaceEventClasses() {
        int classes = keyspaceEvents;
        // notifyKeyspaceEvent publishes only to the K and E channels: without either, nothing is raised at all
        int published = (classes & (KeyspaceEvents.KEYSPACE | KeyspaceEvents.KEYEVENT)) == 0 ? 0 : classes;
        return tracking.active() ? published | MODIFICATIONS : published;
    }

    /**
     * {@code notifyKeyspaceEvent}: {@code __keyspace@<db>__:<key>} first, then {@code __keyevent@<db>__:<event>};
     * and the invalidations of the clients that track the key ({@code signalModifiedKey}).
     */
    @Override
    public void keyspaceEvent(int type, String event, int db, byte[] key, long writer) {
        if (type == KeyspaceEvents.FLUSHED) {
            tracking.flushed();
            return;
        }
        if ((type & MODIFICATIONS) != 0) {
            tracking.modified(key, writer);
        }
        int classes = keyspaceEvents;
        if ((classes & type) == 0) {
            return;
        }
        byte[] name = event.getBytes(StandardCharsets.US_ASCII);
        if ((classes & KeyspaceEvents.KEYSPACE) != 0) {
            publish(Kind.CHANNEL, concat("__keyspace@" + db + "__:", key), name);
        }
        if ((classes & KeyspaceEvents.KEYEVENT) != 0) {
            publish(Kind.CHANNEL, concat("__keyevent@" + db + "__:", name), key);
        }
    }

    private static byte[] concat(String prefix, byte[] tail) {
        byte[] head = prefix.getBytes(StandardCharsets.US_ASCII);
        byte[] out = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, out, head.length, tail.length);
        return out;
    }

    @Override
    public long publish(String channel, byte[] message) {
        return publish(Kind.CHANNEL, channel.getBytes(StandardCharsets.UTF_8), message);
    }

    @Override
    public long publish(byte[] channel, byte[] message, boolean shard) {
        return publish(shard ? Kind.SHARD : Kind.CHANNEL, channel, message);
    }

    /**
     * {@code PUBLISH} ({@link Kind#CHANNEL}: to the channel's subscribers, then to every matching pattern's) or
     * {@code SPUBLISH} ({@link Kind#SHARD}).
     *
     * @return the number of subscriptions that received it (a client subscribed to the channel and to a matching
     *         pattern counts twice, as in Redis)
     */
    public long publish(Kind kind, byte[] channel, byte[] message) {
        Name name = new Name(channel);
        long received = deliver(byKind.get(kind).get(name), kind, name, null, channel, message);
        if (kind == Kind.CHANNEL) {
            ConcurrentHashMap<Name, CopyOnWriteArrayList<Subscriber>> patterns = byKind.get(Kind.PATTERN);
            if (!patterns.isEmpty()) {
                for (Map.Entry<Name, CopyOnWriteArrayList<Subscriber>> e : patterns.entrySet()) {
                    if (Glob.matches(e.getKey().bytes, channel, false)) {
                        received += deliver(e.getValue(), Kind.PATTERN, e.getKey(), e.getKey().bytes, channel,
                                message);
                    }
                }
            }
        }
        return received;
    }

    private long deliver(List<Subscriber> subscribers, Kind kind, Name name, byte[] pattern, byte[] channel,
            byte[] message) {
        if (subscribers == null || subscribers.isEmpty()) {
            return 0;
        }
        Delivery d = new Delivery(kind, name, frame(kind, pattern, channel, message));
        long received = 0;
        try {
            for (Subscriber s : subscribers) {
                if (s.offer(d)) {
                    received++;
                }
            }
        } finally {
            d.frame().release();
        }
        return received;
    }

    /** The push of RESP2: {@code *3 message <channel> <message>} or {@code *4 pmessage <pattern> <channel> …}. */
    static ByteBuf frame(Kind kind, byte[] pattern, byte[] channel, byte[] message) {
        int size = 48 + channel.length + message.length + (pattern == null ? 0 : pattern.length + 16);
        ByteBuf frame = ByteBufAllocator.DEFAULT.buffer(size);
        RespWriter w = WRITERS.get().target(frame);
        w.array(pattern == null ? 3 : 4).bulk(kind.push());
        if (pattern != null) {
            w.bulk(pattern);
        }
        w.bulk(channel).bulk(message);
        return frame;
    }

    /**
     * Makes {@code changes} of {@code s} take effect, right before their confirmations are written, on its event
     * loop: what publishers queued for it so far is written first, so a message published before an unsubscription
     * ran still precedes its confirmation; what is queued from now on is written after the confirmations, and only
     * for the subscriptions then in effect.
     */
    public void apply(Subscriber s, List<Subscriptions.Change> changes) {
        s.drain();
        for (Subscriptions.Change c : changes) {
            if (c.kind() == null) { // MONITOR, or RESET leaving it
                if (c.add()) {
                    monitors.add(s);
                } else {
                    monitors.remove(s);
                }
                continue;
            }
            ConcurrentHashMap<Name, CopyOnWriteArrayList<Subscriber>> map = byKind.get(c.kind());
            if (c.add()) {
                if (s.effective.get(c.kind()).add(c.name())) {
                    map.computeIfAbsent(c.name(), n -> new CopyOnWriteArrayList<>()).add(s);
                }
            } else if (s.effective.get(c.kind()).remove(c.name())) {
                remove(map, c.name(), s);
            }
        }
    }

    /** @return the connections in {@code MONITOR} mode */
    public Monitors monitors() {
        return monitors;
    }

    /** {@code s}'s connection closed: every subscription of it ends, what it had queued is dropped. */
    public void closed(Subscriber s) {
        s.dropQueued();
        monitors.remove(s);
        for (Kind kind : Kind.values()) {
            for (Name n : s.effective.get(kind)) {
                remove(byKind.get(kind), n, s);
            }
            s.effective.get(kind).clear();
        }
    }

    private static void remove(ConcurrentHashMap<Name, CopyOnWriteArrayList<Subscriber>> map, Name name,
            Subscriber s) {
        map.computeIfPresent(name, (n, list) -> {
            list.remove(s);
            return list.isEmpty() ? null : list;
        });
    }

    /** @return the channels of {@code kind} with a subscriber, those matching {@code pattern} when it is not null */
    public List<byte[]> channels(Kind kind, byte[] pattern) {
        List<byte[]> out = new ArrayList<>();
        for (Name n : byKind.get(kind).keySet()) {
            if (pattern == null || Glob.matches(pattern, n.bytes, false)) {
                out.add(n.bytes);
            }
        }
        return out;
    }

    /** @return the number of subscribers of {@code channel} ({@code PUBSUB NUMSUB}, patterns not counted) */
    public long subscribers(Kind kind, byte[] channel) {
        List<Subscriber> list = byKind.get(kind).get(new Name(channel));
        return list == null ? 0 : list.size();
    }

    /** @return how many channels (or distinct patterns) of {@code kind} have a subscriber, for INFO and NUMPAT */
    public int size(Kind kind) {
        return byKind.get(kind).size();
    }
}
