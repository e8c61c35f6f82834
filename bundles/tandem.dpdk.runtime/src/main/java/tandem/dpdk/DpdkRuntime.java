package tandem.dpdk;

import java.io.IOException;

/**
 * The process's DPDK environment, registered as an OSGi service by this bundle's DS component. It is always
 * registered, so that a transport can report why DPDK cannot run instead of silently missing a dependency: when DPDK
 * cannot run, {@link #unavailableReason()} says why.
 *
 * <p>Thread-safe: ports may be opened and closed from any thread.
 */
public interface DpdkRuntime {

    /**
     * @return null when EAL runs in this process and ports can be opened; otherwise a precise reason, for example
     *         "native library not built: libdpdk-dev was missing when tandem.dpdk.runtime was built",
     *         "EAL init failed: &lt;rte_errno text&gt;" or "not x86_64 Linux"
     */
    String unavailableReason();

    /**
     * @return the EAL arguments this process was initialised with. They are fixed at the first initialisation in the
     *         process: a later configuration change applies after a JVM restart and is logged as such. While DPDK is
     *         unavailable, the arguments that were tried (or would be).
     */
    String ealArguments();

    /**
     * Opens a {@code net_memif} port (socket-abstract=no, id=0) on the unix socket {@code socketPath}.
     *
     * <p>{@code server=true}: a stale file at {@code socketPath} (left by a killed server) is unlinked first, then the
     * port listens as role=server. {@code server=false}: role=client; when the server is not there yet the port still
     * opens with its link down, and the caller retries with {@link MemifPort#restart()}: a memif client never
     * reconnects on its own.
     *
     * @param socketPath the socket file; at most 105 bytes, without ',', '=', '[' or ']' (they delimit devargs)
     * <p>A server and its client may live in the same process, opened in either order (the in-JVM test topology);
     * a second server on the same path in this process is refused.
     *
     * @throws IOException with the reason when DPDK is unavailable or the vdev cannot be added or configured
     */
    MemifPort openMemif(String socketPath, boolean server) throws IOException;

    /**
     * Pins the calling thread to one CPU (a link's I/O thread on a core kept for it); nothing else is pinned.
     *
     * @return false, with the reason logged, when that cannot be done (DPDK unavailable, a CPU this process may not
     *         use)
     */
    boolean pinCurrentThread(int cpu);
}
