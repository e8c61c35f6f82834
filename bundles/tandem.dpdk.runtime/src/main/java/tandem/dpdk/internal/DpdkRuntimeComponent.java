package tandem.dpdk.internal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import tandem.dpdk.DpdkRuntime;
import tandem.dpdk.MemifPort;

/**
 * Registers the process's {@link DpdkRuntime}. The bundle is part of the node's runtime (started at boot, never
 * swapped by a feature) because EAL starts once per process; so that a node that never uses DPDK pays nothing, EAL
 * starts only when a caller first asks ({@link #unavailableReason} or {@link #openMemif}): when the DPDK transport
 * activates. Starting never fails: when the native library is missing or EAL
 * cannot start, the reason is logged at ERROR once and the service is registered with
 * {@link #unavailableReason()} saying why, so that the DPDK transport reports it instead of waiting for a service
 * that never comes.
 *
 * <p>The configuration PID is the DPDK transport's ({@value #PID}), so that one file configures DPDK; this component
 * reads only {@code eal.args} and ignores the transport's properties. EAL arguments are fixed at the first
 * initialisation in the process: a changed {@code eal.args} is logged as applying after a JVM restart, unless EAL
 * never came up, in which case the new arguments are tried at once.
 *
 * <p>Ports a caller left open when the component deactivates (the bundle stops or is updated) are closed then, with
 * a warning: a port outliving its runtime would hold a vdev name and a mempool until the JVM exits.
 */
@Component(service = DpdkRuntime.class, immediate = true, configurationPid = DpdkRuntimeComponent.PID)
@Designate(ocd = DpdkRuntimeComponent.Config.class, factory = false)
public final class DpdkRuntimeComponent implements DpdkRuntime {

    private static final Logger LOG = System.getLogger("tandem.dpdk.runtime");

    static final String PID = "tandem.transport.dpdk";

    /** mbufs per port: memif copies frames in and out, so a port holds at most two bursts and its stash. */
    static final int MBUFS_PER_PORT = 2047;
    /** descriptors per queue; memif's own ring is 1024 slots (rsize=10) whatever is asked */
    static final int RING = 1024;
    /** sun_path is 108 bytes including the terminating NUL, and a client's spelling adds 2 (see clientSpelling) */
    static final int MAX_SOCKET_PATH_BYTES = 105;

    static final String STOPPED = "the DPDK runtime component was deactivated";

    @ObjectClassDefinition(id = "tandem.dpdk.runtime", name = "Tandem DPDK runtime",
            description = "The process-wide DPDK environment (EAL) used by the DPDK replication transport. Shares "
                    + "its configuration PID with the transport and reads only eal.args from it.")
    public @interface Config {

        @AttributeDefinition(name = "EAL arguments", description = "EAL arguments, separated by whitespace, without quoting. Empty (the "
                + "default) means '--lcores=0@(<the CPUs this process may use>) --no-huge --no-pci -m 256 "
                + "--no-shconf --no-telemetry': no hugepages, no NIC touched, no CPU pinned. Never use -l N inside a "
                + "JVM unless a core is dedicated: it pins threads. EAL starts once per process, so a change "
                + "applies after a JVM restart.")
        String eal_args() default "";
    }

    private final Set<NativeMemifPort> ports = ConcurrentHashMap.newKeySet();
    /** The arguments EAL starts with when first asked for; what {@code eal.args} says now. */
    private volatile String wanted;
    /** Null until a caller first asks for DPDK. */
    private volatile Native.Eal eal;
    private volatile boolean stopped;

    @Activate
    public DpdkRuntimeComponent(Config config) {
        this(config.eal_args());
    }

    /** @param ealArgs the configured eal.args; blank for the default */
    DpdkRuntimeComponent(String ealArgs) {
        this.wanted = EalArguments.resolve(ealArgs);
    }

    /** @return EAL as this process has it, started now with {@link #wanted} if nobody asked before */
    private synchronized Native.Eal eal() {
        Native.Eal e = eal;
        if (e != null) {
            return e;
        }
        e = Native.eal(wanted);
        eal = e;
        if (e.reason() != null) {
            LOG.log(Level.ERROR, "DPDK is unavailable: {0}", e.reason());
        } else if (e.initialisedHere()) {
            LOG.log(Level.INFO, "DPDK EAL initialised with: {0}", e.arguments());
        } else {
            LOG.log(Level.INFO, "DPDK EAL already up in this process, reused with: {0}", e.arguments());
            warnIfDifferent(wanted, e);
        }
        return e;
    }

    @Modified
    synchronized void modified(Config config) {
        String wanted = EalArguments.resolve(config.eal_args());
        this.wanted = wanted;
        Native.Eal e = eal;
        if (e == null) {
            return; // not started yet: it starts with these
        }
        if (e.reason() == null) {
            warnIfDifferent(wanted, e);
            return;
        }
        if (!e.retryable() || wanted.equals(e.arguments())) {
            return; // same failure again: already logged
        }
        Native.Eal next = Native.eal(wanted);
        eal = next;
        if (next.reason() != null) {
            LOG.log(Level.ERROR, "DPDK is unavailable: {0}", next.reason());
        } else {
            LOG.log(Level.INFO, "DPDK EAL initialised with: {0}", next.arguments());
        }
    }

    private static void warnIfDifferent(String wanted, Native.Eal running) {
        if (!wanted.equals(running.arguments())) {
            LOG.log(Level.WARNING, "{0}: eal.args ''{1}'' applies after a JVM restart: EAL runs once per process and "
                    + "keeps ''{2}''", PID, wanted, running.arguments());
        }
    }

    @Deactivate
    void deactivate() {
        stopped = true;
        List<NativeMemifPort> left = new ArrayList<>(ports);
        if (!left.isEmpty()) {
            LOG.log(Level.WARNING, "closing {0} DPDK port(s) their owner left open: {1}", left.size(), left);
        }
        for (NativeMemifPort p : left) {
            p.close();
        }
    }

    @Override
    public String unavailableReason() {
        return eal().reason();
    }

    @Override
    public String ealArguments() {
        return eal().arguments();
    }

    @Override
    public boolean pinCurrentThread(int cpu) {
        if (eal().reason() != null) {
            return false;
        }
        int rc = Native.pinCurrentThread(cpu);
        if (rc != 0) {
            LOG.log(Level.WARNING, "cannot pin thread {0} to CPU {1}: {2}", Thread.currentThread().getName(), cpu,
                    Native.strerror(-rc));
            return false;
        }
        LOG.log(Level.INFO, "thread {0} pinned to CPU {1}", Thread.currentThread().getName(), cpu);
        return true;
    }

    @Override
    public MemifPort openMemif(String socketPath, boolean server) throws IOException {
        if (socketPath == null) {
            throw new NullPointerException("socketPath");
        }
        String reason = eal().reason();
        if (reason != null) {
            throw new IOException("DPDK is unavailable: " + reason);
        }
        if (stopped) {
            throw new IOException("cannot open a memif port: " + STOPPED);
        }
        checkSocketPath(socketPath);
        String vdev = "net_memif" + Native.nextId();
        String devargs = "role=" + (server ? "server" : "client") + ",id=0,socket="
                + (server ? socketPath : clientSpelling(socketPath)) + ",socket-abstract=no";
        NativeMemifPort p;
        synchronized (ports) {
            if (server) {
                for (NativeMemifPort other : ports) {
                    if (other.isServer() && other.socketPath().equals(socketPath)) {
                        throw new IOException("memif socket " + socketPath + " is already served by " + other);
                    }
                }
                removeStale(Paths.get(socketPath));
            }
            int port = Native.portOpen(vdev, devargs, MBUFS_PER_PORT, RING, !server);
            p = new NativeMemifPort(port, vdev, socketPath, server, ports::remove);
            ports.add(p);
        }
        LOG.log(Level.INFO, "opened DPDK port {0}", p);
        if (stopped) {
            p.close(); // deactivated while opening: deactivate() may have missed it
            throw new IOException("cannot open a memif port: " + STOPPED);
        }
        return p;
    }

    /**
     * The socket path as a client port names it: the same file, spelled differently ({@code /dir/./name}).
     *
     * <p>Why: DPDK 22.11's memif shares one socket object among all ports of the process that name the same path,
     * and that object is a listener only if the first port to name it was a server. A client opened before its
     * server in the same process would thus leave the server attached to a non-listening socket, and the pair would
     * never link. A client spelling of its own keeps every client's socket object apart from the server's, as it is
     * between two processes; the kernel resolves both spellings to the same file.
     */
    static String clientSpelling(String socketPath) {
        int slash = socketPath.lastIndexOf('/');
        return slash < 0 ? "./" + socketPath : socketPath.substring(0, slash) + "/." + socketPath.substring(slash);
    }

    /** memif takes the path from devargs, where ',' '=' '[' ']' are syntax, and binds it as a sun_path. */
    static void checkSocketPath(String socketPath) throws IOException {
        if (socketPath.isEmpty()) {
            throw new IOException("memif socket path is empty");
        }
        for (char c : new char[] {',', '=', '[', ']'}) {
            if (socketPath.indexOf(c) >= 0) {
                throw new IOException("memif socket path '" + socketPath + "' contains '" + c
                        + "', which DPDK devargs cannot carry");
            }
        }
        for (int i = 0; i < socketPath.length(); i++) {
            if (Character.isWhitespace(socketPath.charAt(i)) || Character.isISOControl(socketPath.charAt(i))) {
                throw new IOException("memif socket path '" + socketPath + "' contains whitespace or a control "
                        + "character");
            }
        }
        int bytes = socketPath.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOCKET_PATH_BYTES) {
            throw new IOException("memif socket path is " + bytes + " bytes long, a unix socket path takes at most "
                    + MAX_SOCKET_PATH_BYTES + ": " + socketPath);
        }
    }

    /**
     * A killed server leaves its socket file behind, and binding over it fails with an opaque "Driver cannot attach
     * the device": the server removes whatever non-directory is there.
     */
    private static void removeStale(Path path) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IOException("directory of memif socket " + path + " does not exist");
        }
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("memif socket path " + path + " is a directory");
        }
        if (Files.deleteIfExists(path)) {
            LOG.log(Level.INFO, "removed stale memif socket file {0}", path);
        }
    }

    /** @return the ports opened through this component and not closed yet */
    int openPorts() {
        return ports.size();
    }
}
