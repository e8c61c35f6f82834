package tandem.replication;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;

/**
 * The replication transports the protocol uses, chosen by configuration ({@code transports}, by preference) among
 * those bound: a primary listens on every configured transport that is active and available, on the same port, so
 * that replicas on either reach it while an operator moves a cluster from one to another; a replica connects
 * through the first of them. Installing the DPDK transport (feature {@code transport-dpdk}) therefore moves a
 * replica's link to it, and uninstalling it moves the link back to TCP, without restarting the protocol.
 *
 * <p>What it reads without a lock is safe so: the settings are read through the component's volatile field, the
 * bound transports are a copy-on-write list and the listeners a synchronized map.
 */
final class TransportChoice {

    private static final Logger LOG = System.getLogger("tandem.replication");

    private final Supplier<ReplicationSettings> settings;
    private final List<FrameTransport> bound = new CopyOnWriteArrayList<>();
    /** A primary's listeners, one per transport it listens on, in the order they started. */
    private final Map<FrameTransport, FrameListener> listeners = Collections.synchronizedMap(new LinkedHashMap<>());
    /** The transport a replica's link uses now, to move the link only when the choice changes. */
    private volatile FrameTransport upstream;

    TransportChoice(Supplier<ReplicationSettings> settings) {
        this.settings = settings;
    }

    /** A transport was bound; one that is unavailable is kept (it may become available) but not used. */
    void add(FrameTransport t) {
        bound.add(t);
        String why = t.unavailableReason();
        if (why != null) {
            LOG.log(Level.WARNING, "journal replication: transport {0} is installed but unavailable, not used: {1}",
                    t.name(), why);
        }
    }

    /** @return whether {@code t} was bound */
    boolean remove(FrameTransport t) {
        return bound.remove(t);
    }

    /** @return the bound transports that are configured and available, in the configured order */
    private List<FrameTransport> preferred() {
        List<FrameTransport> out = new ArrayList<>();
        for (String name : settings.get().transports()) {
            FrameTransport t = named(name);
            if (t != null && t.unavailableReason() == null) {
                out.add(t);
            }
        }
        return out;
    }

    /** @return the bound transport of that name, or null */
    private FrameTransport named(String name) {
        for (FrameTransport t : bound) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    private FrameTransport first() {
        List<FrameTransport> chosen = preferred();
        return chosen.isEmpty() ? null : chosen.get(0);
    }

    /**
     * The transport a replica connects through now: the first preferred one, remembered as the one its link uses.
     * Never takes the component's monitor: the link calls it holding its own, while a transport binding holds the
     * component's and calls into the link ({@link ReplicaLink#transportChanged}); the two orders deadlocked a replica
     * whose first try found no transport and whose retry ran just as the TCP transport bound (it never streamed
     * again).
     *
     * @return the transport, or null while none is bound and available
     */
    FrameTransport upstream() {
        upstream = first();
        return upstream;
    }

    /** @return whether a replica's first choice is no longer the transport its link uses (the link must move) */
    boolean upstreamMoved() {
        FrameTransport first = first();
        if (first == upstream) {
            return false;
        }
        LOG.log(Level.INFO, "journal replication: the replication transport is now {0}",
                first == null ? "none" : first.name());
        return true;
    }

    /** A primary's listeners: one on each preferred transport that is not listening yet. */
    void listen(Supplier<FrameSession> sessions, String ackPolicy) {
        ReplicationSettings s = settings.get();
        List<FrameTransport> chosen = preferred();
        if (chosen.isEmpty()) {
            LOG.log(Level.WARNING, "journal replication: primary, not listening: none of the transports {0} is "
                    + "active and available (feature transport-tcp); replicas connect once one is",
                    String.join(",", s.transports()));
            return;
        }
        for (FrameTransport t : chosen) {
            if (listeners.containsKey(t)) {
                continue;
            }
            // every listener on one port, so that a replica reaches the primary at the same address whichever
            // transport it prefers; a port of 0 is chosen by the first
            int port = s.port();
            for (FrameListener other : listeners.values()) {
                port = port == 0 ? other.port() : port;
            }
            FrameListener l;
            try {
                l = t.listen(s.bind(), port, s.maxFrameBytes(), sessions);
            } catch (IOException | RuntimeException e) {
                // stay active: a configuration change (another port) can still bring the listener up
                LOG.log(Level.ERROR, "journal replication cannot listen on {0}:{1} ({2}): {3}; waiting for a "
                        + "configuration change", s.bind(), Integer.toString(port), t.name(), e.getMessage());
                continue;
            }
            listeners.put(t, l);
            LOG.log(Level.INFO, "journal replication: primary, listening for replicas on {0}:{1} ({2}), ack "
                    + "policy {3}", s.bind(), Integer.toString(l.port()), t.name(), ackPolicy);
        }
    }

    /** Closes a primary's listeners; each closes the links it accepted. */
    void closeListeners() {
        List<FrameListener> open;
        synchronized (listeners) {
            open = new ArrayList<>(listeners.values());
            listeners.clear();
        }
        for (FrameListener l : open) {
            l.close();
        }
    }

    /** Closes the listeners of transports no longer chosen, with their links, and leaves the others alone. */
    void closeUnchosen() {
        List<FrameTransport> chosen = preferred();
        List<FrameListener> dropped = new ArrayList<>();
        synchronized (listeners) {
            listeners.entrySet().removeIf(e -> {
                if (chosen.contains(e.getKey())) {
                    return false;
                }
                LOG.log(Level.INFO, "journal replication: no longer listening on {0}", e.getKey().name());
                dropped.add(e.getValue());
                return true;
            });
        }
        dropped.forEach(FrameListener::close); // a listener closes the links it accepted
    }

    /** @return {@code bind:port} of the listeners (one port for all), or null when none listens */
    String listening() {
        synchronized (listeners) {
            for (FrameListener l : listeners.values()) {
                return settings.get().bind() + ":" + l.port();
            }
        }
        return null;
    }

    /**
     * @param replica whether this node is a replica (it connects) rather than a primary (it listens)
     * @return what the links use, then each configured transport that is not installed or not available, and why
     */
    String status(boolean replica) {
        List<String> parts = new ArrayList<>();
        if (replica) {
            FrameTransport t = upstream;
            parts.add(t == null ? "none available" : "connects through " + t.name());
        } else {
            List<String> names = new ArrayList<>();
            synchronized (listeners) {
                listeners.keySet().forEach(t -> names.add(t.name()));
            }
            parts.add(names.isEmpty() ? "not listening" : "listening on " + String.join(", ", names));
        }
        for (String name : settings.get().transports()) {
            FrameTransport found = named(name);
            if (found == null) {
                parts.add(name + " not installed");
            } else if (found.unavailableReason() != null) {
                parts.add(name + " unavailable: " + found.unavailableReason());
            }
        }
        return String.join("; ", parts);
    }

    /** @return each bound transport's counters, a line per transport, or null when none has any */
    String counters() {
        StringBuilder sb = new StringBuilder();
        for (FrameTransport t : bound) {
            Map<String, Long> c = t.counters();
            if (!c.isEmpty()) {
                sb.append(sb.length() == 0 ? "" : "\n").append(t.name()).append(':');
                String sep = " ";
                for (Map.Entry<String, Long> e : c.entrySet()) {
                    sb.append(sep).append(e.getKey()).append('=').append(e.getValue());
                    sep = ", ";
                }
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }
}
