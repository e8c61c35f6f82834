package tandem.server.pubsub;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one connection is subscribed to, as its commands decided it, in the order they ran (on the thread that runs
 * them: the node's logic thread). This is the state the confirmations count and that puts the connection in
 * subscribed mode.
 *
 * <p>The subscriptions take effect for publishers only when their confirmations are sent ({@link #takeChanges},
 * applied by {@link PubSubRegistry#apply} on the connection's event loop as it writes them): so no message
 * overtakes the confirmation of its subscription, and none follows the confirmation of its unsubscription.
 *
 * <p>The counts are also readable from other threads ({@code CLIENT LIST}, the connection's reader).
 */
public final class Subscriptions {

    /** One change on its way to the registry; {@code kind} null for entering or leaving {@code MONITOR}. */
    public record Change(Kind kind, Name name, boolean add) {
    }

    private volatile boolean monitoring;

    /** @return whether the connection is in {@code MONITOR} mode */
    public boolean monitoring() {
        return monitoring;
    }

    /** Enters ({@code MONITOR}) or leaves ({@code RESET}) monitor mode; it takes effect as the reply is sent. */
    public void monitor(boolean on) {
        if (monitoring != on) {
            monitoring = on;
            if (changes == null) {
                changes = new ArrayList<>();
            }
            changes.add(new Change(null, null, on));
        }
    }

    private final Map<Kind, Set<Name>> names = new EnumMap<>(Kind.class);
    private List<Change> changes;
    private volatile int channels;
    private volatile int patterns;
    private volatile int shards;

    public Subscriptions() {
        for (Kind kind : Kind.values()) {
            names.put(kind, new LinkedHashSet<>());
        }
    }

    /**
     * @param allowed whether a channel ({@code false}) or a pattern ({@code true}) may still be used
     * @return whether every subscription of the connection is still allowed; false also when they could not be read
     *         consistently now (they changed on the connection's thread meanwhile)
     */
    public boolean allowedBy(java.util.function.BiPredicate<String, Boolean> allowed) {
        try {
            for (Kind kind : Kind.values()) {
                for (Name n : List.copyOf(names.get(kind))) {
                    String name = new String(n.bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
                    if (!allowed.test(name, kind == Kind.PATTERN)) {
                        return false;
                    }
                }
            }
            return true;
        } catch (java.util.ConcurrentModificationException e) {
            return false;
        }
    }

    /** @return whether {@code name} was new; the count of the confirmation is {@link #count(Kind)} after it */
    public boolean subscribe(Kind kind, byte[] name) {
        return change(kind, new Name(name), true);
    }

    /** @return whether {@code name} was subscribed */
    public boolean unsubscribe(Kind kind, byte[] name) {
        return change(kind, new Name(name), false);
    }

    /** @return the names of {@code kind} subscribed now, in the order they were subscribed */
    public List<byte[]> names(Kind kind) {
        List<byte[]> out = new ArrayList<>();
        names.get(kind).forEach(n -> out.add(n.bytes));
        return out;
    }

    /** Drops every subscription and leaves monitor mode ({@code RESET}). */
    public void clear() {
        monitor(false);
        for (Kind kind : Kind.values()) {
            for (byte[] name : names(kind)) {
                unsubscribe(kind, name);
            }
        }
    }

    /**
     * @return the count a confirmation of {@code kind} reports, as Redis 7.0 does: channels and patterns together,
     *         shard channels apart
     */
    public int count(Kind kind) {
        return kind == Kind.SHARD ? shards : channels + patterns;
    }

    /** @return whether the connection is in subscribed mode: subscribed to anything */
    public boolean active() {
        return channels + patterns + shards > 0;
    }

    /** @return {@code sub=}, the number of channels, for {@code CLIENT LIST} */
    public int channels() {
        return channels;
    }

    /** @return {@code psub=}, the number of patterns, for {@code CLIENT LIST} */
    public int patterns() {
        return patterns;
    }

    /** @return {@code ssub=}, the number of shard channels, for {@code CLIENT LIST} */
    public int shards() {
        return shards;
    }

    /** @return the changes since the last call, for {@link PubSubRegistry#apply}, or null when none */
    public List<Change> takeChanges() {
        List<Change> c = changes;
        changes = null;
        return c;
    }

    private boolean change(Kind kind, Name name, boolean add) {
        Set<Name> set = names.get(kind);
        if (!(add ? set.add(name) : set.remove(name))) {
            return false;
        }
        if (changes == null) {
            changes = new ArrayList<>();
        }
        changes.add(new Change(kind, name, add));
        int size = names.get(kind).size();
        switch (kind) {
            case CHANNEL -> channels = size;
            case PATTERN -> patterns = size;
            case SHARD -> shards = size;
            default -> throw new IllegalStateException(kind.toString());
        }
        return true;
    }
}
