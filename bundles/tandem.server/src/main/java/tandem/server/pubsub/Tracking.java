package tandem.server.pubsub;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import tandem.server.resp.RespWriter;

/**
 * Client-side caching as Redis 7.0 has it ({@code CLIENT TRACKING}): which clients track, in which mode, which keys
 * each has read (the default mode) or which prefixes it watches ({@code BCAST}), and the invalidation messages a
 * modified key sends them: a RESP3 push {@code invalidate [keys]}, or, redirected to a RESP2 connection subscribed
 * to anything, a message on {@code __redis__:invalidate}. A flushed database sends every tracking client
 * {@code invalidate} with a null.
 *
 * <p>Reads are remembered once they have run ({@link #read}), modifications arrive as the keyspace applies them
 * ({@link #modified}); both on the node's logic thread, in its order, so no write can fall between a read and its
 * being remembered. The tables are concurrent all the same: connections end on their own event loops.
 */
public final class Tracking {

    /** Where a client's invalidations go. */
    public interface Target {

        /** Queues {@code frame} (written as it is, retained by the callee); false when the client is gone. */
        boolean push(ByteBuf frame);

        /** @return the connection's protocol, 2 or 3 */
        int protocol();

        /** @return whether the connection is subscribed to anything (Redis's {@code CLIENT_PUBSUB}) */
        boolean subscribed();
    }

    /** One client's tracking, as {@code CLIENT TRACKING ON} set it. */
    static final class Mode {
        final long redirect;
        final boolean bcast;
        final boolean optin;
        final boolean optout;
        final boolean noloop;
        final List<byte[]> prefixes;
        /** {@code CLIENT CACHING YES} (OPTIN) or {@code NO} (OPTOUT) was the client's last command. */
        volatile boolean caching;
        volatile boolean brokenRedirect;

        Mode(long redirect, boolean bcast, boolean optin, boolean optout, boolean noloop, List<byte[]> prefixes) {
            this.redirect = redirect;
            this.bcast = bcast;
            this.optin = optin;
            this.optout = optout;
            this.noloop = noloop;
            this.prefixes = List.copyOf(prefixes);
        }
    }

    /** {@code CLIENT TRACKINGINFO}'s fields. */
    public record Info(List<String> flags, long redirect, List<byte[]> prefixes) {
    }

    private static final byte[] INVALIDATE = "invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<RespWriter> WRITERS = ThreadLocal.withInitial(RespWriter::new);

    private final ConcurrentHashMap<Long, Mode> modes = new ConcurrentHashMap<>();
    /** The default mode's table: each key read, and who read it since its last invalidation. */
    private final ConcurrentHashMap<Name, Set<Long>> table = new ConcurrentHashMap<>();
    private final LongFunction<Target> targets;

    /** @param targets the connection of an id, or null when there is none */
    public Tracking(LongFunction<Target> targets) {
        this.targets = targets;
    }

    /** @return whether any client tracks: the keyspace then reports every modification */
    public boolean active() {
        return !modes.isEmpty();
    }

    /**
     * {@code CLIENT TRACKING ON} with its options, checked as Redis checks them against each other and the client's
     * current mode.
     *
     * @return the error to answer, or null when tracking is on
     */
    public String on(long id, long redirect, boolean bcast, boolean optin, boolean optout, boolean noloop,
            List<byte[]> prefixes) {
        Mode current = modes.get(id);
        if (!bcast && !prefixes.isEmpty()) {
            return "ERR PREFIX option requires BCAST mode to be enabled";
        }
        if (current != null && current.bcast != bcast) {
            return "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then "
                    + "re-enabling it with a different mode.";
        }
        if (bcast && (optin || optout)) {
            return "ERR OPTIN and OPTOUT are not compatible with BCAST";
        }
        if (optin && optout) {
            return "ERR You can't specify both OPTIN mode and OPTOUT mode";
        }
        if (current != null && (optin && current.optout || optout && current.optin)) {
            return "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
                    + "re-enabling it with a different mode.";
        }
        List<byte[]> all = new ArrayList<>();
        if (bcast) {
            String collision = collision(current == null ? List.of() : current.prefixes, prefixes);
            if (collision != null) {
                return collision;
            }
            if (current != null) {
                all.addAll(current.prefixes);
            }
            all.addAll(prefixes);
            if (all.isEmpty()) {
                all.add(new byte[0]); // every key
            }
        }
        modes.put(id, new Mode(redirect, bcast, optin, optout, noloop, all));
        return null;
    }

    /** {@code checkPrefixCollisionsOrReply}: no prefix of a client may be a prefix of another of its prefixes. */
    private static String collision(List<byte[]> existing, List<byte[]> given) {
        for (int i = 0; i < given.size(); i++) {
            for (byte[] p : existing) {
                if (overlap(p, given.get(i))) {
                    return "ERR Prefix '" + text(given.get(i)) + "' overlaps with an existing prefix '" + text(p)
                            + "'. Prefixes for a single client must not overlap.";
                }
            }
            for (int j = i + 1; j < given.size(); j++) {
                if (overlap(given.get(i), given.get(j))) {
                    return "ERR Prefix '" + text(given.get(i)) + "' overlaps with another provided prefix '"
                            + text(given.get(j)) + "'. Prefixes for a single client must not overlap.";
                }
            }
        }
        return null;
    }

    private static boolean overlap(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        return Arrays.equals(a, 0, n, b, 0, n);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** {@code CLIENT TRACKING OFF}, and a connection that ends. */
    public void off(long id) {
        modes.remove(id);
    }

    /** @return the id {@code CLIENT GETREDIR} answers: -1 without tracking, 0 without a redirection */
    public long redirect(long id) {
        Mode m = modes.get(id);
        return m == null ? -1 : m.redirect;
    }

    /** @return the error {@code CLIENT CACHING} answers whatever its argument, or null */
    public String cachingRefusal(long id) {
        Mode m = modes.get(id);
        return m == null ? "ERR CLIENT CACHING can be called only when the client is in "
                + "tracking mode with OPTIN or OPTOUT mode enabled" : null;
    }

    /** {@code CLIENT CACHING YES|NO}: @return the error to answer, or null */
    public String caching(long id, boolean yes) {
        String refused = cachingRefusal(id);
        if (refused != null) {
            return refused;
        }
        Mode m = modes.get(id);
        if (yes && !m.optin) {
            return "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
        }
        if (!yes && !m.optout) {
            return "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";
        }
        m.caching = true;
        return null;
    }

    /** {@code CLIENT TRACKINGINFO}. */
    public Info info(long id) {
        Mode m = modes.get(id);
        List<String> flags = new ArrayList<>();
        if (m == null) {
            return new Info(List.of("off"), -1, List.of());
        }
        flags.add("on");
        if (m.bcast) {
            flags.add("bcast");
        }
        if (m.optin) {
            flags.add("optin");
            if (m.caching) {
                flags.add("caching-yes");
            }
        }
        if (m.optout) {
            flags.add("optout");
            if (m.caching) {
                flags.add("caching-no");
            }
        }
        if (m.noloop) {
            flags.add("noloop");
        }
        if (m.brokenRedirect) {
            flags.add("broken_redirect");
        }
        List<byte[]> prefixes = new ArrayList<>(m.prefixes);
        prefixes.sort(Arrays::compareUnsigned); // Redis lists them from its radix tree: in byte order
        return new Info(flags, m.redirect, prefixes);
    }

    /**
     * A command of client {@code id} has run: the keys of a read are remembered for it ({@code trackingRememberKeys},
     * in the default mode, as OPTIN/OPTOUT and the {@code CLIENT CACHING} before it say), and the caching flag lasts
     * for this one command.
     *
     * @param keys    the read's keys, or null for any other command
     * @param caching whether the command is {@code CLIENT CACHING} itself
     */
    public void ran(long id, List<byte[]> keys, boolean caching) {
        Mode m = modes.get(id);
        if (m == null) {
            return;
        }
        if (keys != null && !m.bcast && !(m.optin && !m.caching) && !(m.optout && m.caching)) {
            for (byte[] k : keys) {
                table.computeIfAbsent(new Name(k.clone()), n -> ConcurrentHashMap.newKeySet()).add(id);
            }
        }
        if (!caching) {
            m.caching = false;
        }
    }

    /** Key {@code key} was modified, by client {@code writer}'s command (0: by none, a replicated write, a Tick). */
    public void modified(byte[] key, long writer) {
        if (modes.isEmpty()) {
            return;
        }
        Set<Long> readers = table.isEmpty() ? null : table.remove(new Name(key));
        if (readers != null) {
            for (long id : readers) {
                Mode m = modes.get(id);
                if (m != null && !m.bcast && !(m.noloop && id == writer)) {
                    send(id, m, key);
                }
            }
        }
        for (java.util.Map.Entry<Long, Mode> e : modes.entrySet()) {
            Mode m = e.getValue();
            if (m.bcast && !(m.noloop && e.getKey() == writer) && matches(m.prefixes, key)) {
                send(e.getKey(), m, key);
            }
        }
    }

    private static boolean matches(List<byte[]> prefixes, byte[] key) {
        for (byte[] p : prefixes) {
            if (key.length >= p.length && Arrays.equals(key, 0, p.length, p, 0, p.length)) {
                return true;
            }
        }
        return false;
    }

    /** A database was emptied ({@code FLUSHDB}, {@code FLUSHALL}): every tracking client is told, with a null. */
    public void flushed() {
        table.clear();
        for (java.util.Map.Entry<Long, Mode> e : modes.entrySet()) {
            send(e.getKey(), e.getValue(), null);
        }
    }

    /** A connection ended: it tracks no more; the table forgets it as its keys are next modified. */
    public void closed(long id) {
        modes.remove(id);
    }

    /** {@code sendTrackingMessage}: to the client, or to its redirection; {@code key} null for a flush. */
    private void send(long id, Mode m, byte[] key) {
        int ownProtocol = 0;
        Target to;
        boolean redirected = m.redirect != 0;
        if (redirected) {
            to = targets.apply(m.redirect);
            if (to == null) {
                m.brokenRedirect = true;
                Target self = targets.apply(id);
                if (self != null && self.protocol() == 3) {
                    ByteBuf frame = frame(3, w -> w.push(2).bulk("tracking-redir-broken").integer(m.redirect));
                    push(self, frame);
                }
                return;
            }
            Target self = targets.apply(id);
            ownProtocol = self == null ? 2 : self.protocol();
        } else {
            to = targets.apply(id);
            if (to == null) {
                return;
            }
            ownProtocol = to.protocol();
        }
        int protocol = to.protocol();
        int nullOf = ownProtocol;
        ByteBuf frame;
        if (protocol == 3) {
            frame = frame(3, w -> {
                w.push(2).bulk(INVALIDATE);
                keys(w, key, nullOf);
            });
        } else if (redirected && to.subscribed()) {
            frame = frame(2, w -> {
                w.array(3).bulk("message").bulk(CHANNEL);
                keys(w, key, nullOf);
            });
        } else {
            return; // RESP2 has no pushes of its own connection
        }
        push(to, frame);
    }

    /** The keys of an invalidation; a flush's null is the tracking client's protocol's, as Redis writes it. */
    private static void keys(RespWriter w, byte[] key, int nullProtocol) {
        if (key != null) {
            w.array(1).bulk(key);
        } else {
            int was = w.protocol();
            w.protocol(nullProtocol).nullBulk().protocol(was);
        }
    }

    private static void push(Target to, ByteBuf frame) {
        try {
            to.push(frame);
        } finally {
            frame.release();
        }
    }

    private static ByteBuf frame(int protocol, java.util.function.Consumer<RespWriter> body) {
        ByteBuf frame = ByteBufAllocator.DEFAULT.buffer(64);
        body.accept(WRITERS.get().target(frame).protocol(protocol));
        return frame;
    }
}
