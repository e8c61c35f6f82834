package tandem.transport.dpdk;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.api.transport.FrameListener;
import tandem.api.transport.FrameSession;
import tandem.api.transport.FrameTransport;
import tandem.protocol.config.ConfigChange;
import tandem.protocol.net.IpLiteral;
import tandem.protocol.replication.Frames;
import tandem.dpdk.DpdkRuntime;
import tandem.dpdk.MemifPort;

/**
 * The journal protocol's frame transport over DPDK: each link is a {@code net_memif} shared-memory port between
 * two processes of this host, carrying the {@link ReliableStream reliability layer}'s raw frames, plus a unix
 * control socket ({@link Rendezvous}) that starts the link and tells either end at once when the other is gone.
 *
 * <p>Addresses map onto the host as the TCP transport's do onto sockets: a primary listening on port {@code P}
 * binds {@code <socket.directory>/tandem-P.sock}; a replica connecting to {@code 127.0.0.1:P} opens that socket.
 * memif reaches only this host, so a connect to an address that is not local fails with that reason.
 *
 * <p>EAL lives in {@code tandem.dpdk.runtime}, which a swap of this bundle never refreshes: stopping this bundle
 * closes its listeners, links and memif ports (hot-unplugging the vdevs), and the next generation opens new ones
 * on the same EAL, which reads its arguments ({@code eal.args}) from this component's PID too. When DPDK cannot run
 * here the component still registers, so that the replication protocol can
 * name the reason ({@link #unavailableReason}) while it carries on over TCP.
 */
@Component(service = FrameTransport.class, immediate = true, configurationPid = DpdkSettings.PID,
        property = "transport=dpdk")
@Designate(ocd = DpdkTransport.Config.class)
public final class DpdkTransport implements FrameTransport {

    private static final Logger LOG = System.getLogger("tandem.transport.dpdk");

    static final String STOPPED = "transport stopped";

    @ObjectClassDefinition(id = DpdkSettings.PID, name = "Tandem DPDK transport",
            description = "Carries the journal replication protocol's frames over DPDK net_memif between the "
                    + "processes of one host. Opt-in: a link's I/O thread polls, so it needs a spare core to "
                    + "beat TCP.")
    public @interface Config {

        @AttributeDefinition(description = "The directory of the control sockets and memif sockets, shared by "
                + "the primary and its replicas on this host (at most 80 characters); empty means "
                + "<java.io.tmpdir>/tandem-dpdk. Applies to listeners and links opened after a change.")
        String socket_directory() default "";

        @AttributeDefinition(description = "How a link's I/O thread waits when it has nothing to do: busy-spin "
                + "(lowest latency, a whole core per link), spin-then-yield, or back-off (default: spin, yield, "
                + "then park up to back.off.max.park.us). Applies to links opened after a change.")
        String wait_strategy() default "back-off";

        @AttributeDefinition(description = "The longest park of the back-off wait strategy, in microseconds "
                + "(1..10000, default 100): the most it adds to the receive side's latency.")
        int back_off_max_park_us() default 100;

        @AttributeDefinition(description = "The CPU to pin each link's I/O thread to (-1, the default: none). "
                + "Pin only to a core kept free of other work; with busy-spin that core is fully used.")
        int dedicated_core() default -1;

        @AttributeDefinition(description = "How often an idle link sends an acknowledgement as a heartbeat, in "
                + "milliseconds (1..60000, default 100).")
        int heartbeat_ms() default 100;

        @AttributeDefinition(description = "How long a peer may stay silent before its link is closed, in "
                + "milliseconds (10..600000, more than twice heartbeat.ms, default 3000). A peer that dies is "
                + "noticed at once through its control socket; this catches one that hangs.")
        int peer_timeout_ms() default 3000;

        @AttributeDefinition(description = "Bytes queued on a link above which it reports itself not writable "
                + "(1024..2^30, default 4 MiB).")
        int write_buffer_high_bytes() default 4 * 1024 * 1024;

        @AttributeDefinition(description = "Bytes queued below which a link that was not writable is writable "
                + "again (less than write.buffer.high.bytes, default 1 MiB).")
        int write_buffer_low_bytes() default 1024 * 1024;
    }

    private final DpdkRuntime runtime;
    private final Counters counters = new Counters();
    private final Set<DpdkListener> listeners = ConcurrentHashMap.newKeySet();
    private final Set<DpdkLink> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger outbound = new AtomicInteger();
    private volatile DpdkSettings settings;
    private volatile boolean stopped;

    /** @param runtime the process's DPDK; the tests give an in-memory one */
    @Activate
    public DpdkTransport(Config config, @Reference DpdkRuntime runtime) {
        this.runtime = runtime;
        this.settings = DpdkSettings.of(config);
        String reason = runtime.unavailableReason();
        if (reason == null) {
            LOG.log(Level.INFO, "DPDK frame transport ready (memif sockets in {0}, {1})",
                    settings.socketDirectory(), settings.waitStrategy().label);
        } else {
            LOG.log(Level.ERROR, "DPDK frame transport unavailable, replication stays on TCP: {0}", reason);
        }
    }

    @Modified
    void modified(Config config) {
        DpdkSettings next = ConfigChange.validated(LOG, () -> DpdkSettings.of(config));
        if (next == null) {
            return;
        }
        settings = next;
        for (DpdkLink link : links) {
            link.settings(next);
        }
    }

    @Deactivate
    void deactivate() {
        stopped = true;
        for (DpdkListener l : listeners) {
            l.close(STOPPED);
        }
        for (DpdkLink link : links) {
            link.close(STOPPED);
        }
        for (DpdkLink link : links) {
            if (!link.join(3000)) {
                LOG.log(Level.WARNING, "{0}: its thread still runs 3 s after the transport stopped", link);
            }
        }
        LOG.log(Level.INFO, "DPDK frame transport stopped");
    }

    @Override
    public String name() {
        return "dpdk";
    }

    @Override
    public String unavailableReason() {
        return runtime.unavailableReason();
    }

    @Override
    public Map<String, Long> counters() {
        return counters.snapshot();
    }

    @Override
    public FrameListener listen(String bindAddress, int port, int maxFrame, Supplier<FrameSession> sessions)
            throws IOException {
        Frames.checkMaxFrame(maxFrame);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port=" + port + " must be between 0 and 65535");
        }
        String reason = unavailableReason();
        if (reason != null) {
            throw new IOException("cannot listen on DPDK port " + port + ": " + reason);
        }
        if (stopped) {
            throw new IOException("cannot listen on DPDK port " + port + ": " + STOPPED);
        }
        DpdkListener l = DpdkListener.open(this, settings.socketDirectory(), port, maxFrame, sessions);
        listeners.add(l);
        if (stopped) {
            l.close(STOPPED);
        }
        LOG.log(Level.INFO, "replication transport listening on {0} (dpdk, port {1})", l, Integer.toString(l.port()));
        return l;
    }

    @Override
    public void connect(String host, int port, int maxFrame, int connectMillis, FrameSession session) {
        Frames.checkMaxFrame(maxFrame);
        String target = host + ":" + port;
        DpdkSettings s = settings;
        String refused = refusal(host, port);
        DpdkLink link = new DpdkLink(this, target, maxFrame, s, l -> {
            if (refused != null) {
                throw new IOException("connect to " + target + " failed: " + refused);
            }
            return dial(target, s.socketDirectory(), port, Math.max(1, connectMillis), session);
        }, session);
        track(link);
        if (stopped) {
            link.close(STOPPED);
        }
        link.start("tandem-dpdk-link-out-" + outbound.incrementAndGet());
    }

    private String refusal(String host, int port) {
        if (port < 1 || port > 65535) {
            return "port must be between 1 and 65535";
        }
        String reason = unavailableReason();
        if (reason != null) {
            return reason;
        }
        if (stopped) {
            return STOPPED;
        }
        if (!isLocal(host)) {
            return "memif reaches only processes of this host, and " + host + " is not one of its addresses";
        }
        return null;
    }

    /** A literal address of this host; never a name lookup. */
    static boolean isLocal(String host) {
        InetAddress a;
        try {
            a = IpLiteral.parse(host);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (a.isLoopbackAddress() || a.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** The replica's half of {@link Rendezvous}, on the new link's thread. */
    private DpdkLink.Ready dial(String target, Path dir, int port, int connectMillis, FrameSession session)
            throws IOException {
        long deadline = System.nanoTime() + connectMillis * 1_000_000L;
        Path control = DpdkListener.controlPath(dir, port);
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        MemifPort data = null;
        try {
            try {
                ch.connect(UnixDomainSocketAddress.of(control));
            } catch (IOException e) {
                throw new IOException("connect to " + target + " failed: no DPDK listener at " + control + " ("
                        + e.getMessage() + ")", e);
            }
            ch.configureBlocking(false);
            Rendezvous.writeLine(ch, Rendezvous.HELLO, deadline);
            String answer = Rendezvous.readLine(ch, deadline);
            String[] parts = answer.split(" ", 3);
            if (parts[0].equals("ERR")) {
                throw new IOException("connect to " + target + " refused: " + answer.substring(3).trim());
            }
            if (parts.length != 3 || !parts[0].equals("OK") || !parts[1].matches("[0-9a-f]{8}")) {
                throw new IOException("connect to " + target + " failed: rendezvous answer \"" + answer + "\"");
            }
            int epoch = Integer.parseUnsignedInt(parts[1], 16);
            Path memif = Path.of(parts[2]);
            if (!memif.isAbsolute() || !memif.getFileName().toString().endsWith(".memif")) {
                throw new IOException("connect to " + target + " failed: not a memif socket: " + parts[2]);
            }
            data = runtime.openMemif(memif.toString(), false);
            long lastRestart = System.nanoTime();
            while (!data.linkUp()) {
                long now = System.nanoTime();
                if (now - deadline > 0) {
                    throw new IOException("connect to " + target + " failed: the memif link to " + memif
                            + " did not come up within " + connectMillis + " ms");
                }
                if (now - lastRestart > 100_000_000L) {
                    lastRestart = now;
                    data.restart();
                }
                LockSupport.parkNanos(200_000);
            }
            return new DpdkLink.Ready(ch, data, epoch, true, session);
        } catch (IOException | RuntimeException e) {
            if (data != null) {
                data.close();
            }
            ch.close();
            throw e;
        }
    }

    // ---- for links and listeners ---------------------------------------------------------------------------

    DpdkSettings settings() {
        return settings;
    }

    DpdkRuntime runtime() {
        return runtime;
    }

    Counters counterSet() {
        return counters;
    }

    boolean pin(int cpu) {
        return runtime.pinCurrentThread(cpu);
    }

    void track(DpdkLink link) {
        links.add(link);
    }

    void ended(DpdkLink link) {
        links.remove(link);
        for (DpdkListener l : listeners) {
            l.forget(link);
        }
    }

    void forget(DpdkListener l) {
        listeners.remove(l);
    }

    int openLinks() {
        return links.size();
    }
}
