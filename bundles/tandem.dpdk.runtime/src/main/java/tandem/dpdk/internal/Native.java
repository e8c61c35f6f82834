package tandem.dpdk.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * The JNI binding of the DPDK shim, and the one place that loads it and initialises EAL.
 *
 * <p>Two libraries ship in the bundle under {@value #RESOURCES}: {@value #CORE} (the shim with DPDK linked
 * statically: EAL's state) and {@value #GLUE} (the stateless JNI glue, which needs the core next to it). A JVM binds
 * one JNI library file to one class loader, so each bundle generation (each class loader of this class) extracts both
 * into a fresh temporary directory and loads its own glue copy. The dynamic linker binds every glue copy by soname to
 * the core that the first generation loaded, which is never unloaded ({@code -z nodelete}): EAL is therefore
 * initialised once per process, and a later generation finds it up ({@code -EALREADY}) and reuses it. The extracted
 * files are deleted as soon as they are mapped.
 *
 * <p>EAL is initialised on a short-lived dedicated thread: the calling thread becomes EAL's main lcore, and with an
 * {@code -l} argument it and every thread it later starts would be pinned to a CPU. {@code rte_eal_cleanup} is never
 * called: EAL cannot start again in the same process, and {@code eal-intr-thread} runs the shim's code until exit.
 */
final class Native {

    private static final Logger LOG = System.getLogger("tandem.dpdk.runtime");

    static final String RESOURCES = "/native/linux-x86_64/";
    static final String CORE = "libtandem-dpx.so";
    static final String GLUE = "libtandem-dpxjni.so";

    /** dpx.h's DPX_ABI this class was written against. */
    static final int ABI = 1;

    static final int EALREADY = -114;
    static final int EAL_NOT_RETRYABLE = -131;

    static final String NOT_BUILT =
            "native library not built: libdpdk-dev was missing when tandem.dpdk.runtime was built";

    private static final long EAL_INIT_TIMEOUT_MILLIS = 60_000;

    /** Guarded by Native.class. Null until {@link #load()} ran; then "" when loaded, else the reason. */
    private static String loadResult;

    /** Guarded by Native.class. The outcome of EAL init for this generation once EAL is up; never reset. */
    private static Eal up;

    private Native() {
    }

    /**
     * The state of EAL as this bundle generation sees it.
     *
     * @param reason null when EAL is up; otherwise why DPDK is unavailable
     * @param arguments the arguments EAL runs with; while unavailable, those tried
     * @param initialisedHere true when this generation's call initialised EAL (false: it was up already)
     * @param retryable true when a later attempt with other arguments may succeed
     */
    record Eal(String reason, String arguments, boolean initialisedHere, boolean retryable) {
    }

    /**
     * Loads the glue (and through it the core) once per class loader.
     *
     * @return null when loaded, otherwise why not
     */
    static synchronized String load() {
        if (loadResult == null) {
            loadResult = doLoad();
        }
        return loadResult.isEmpty() ? null : loadResult;
    }

    private static String doLoad() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return "not x86_64 Linux (os.name=" + os + ", os.arch=" + arch + ")";
        }
        if (Native.class.getResource(RESOURCES + CORE) == null || Native.class.getResource(RESOURCES + GLUE) == null) {
            return NOT_BUILT;
        }
        Path dir = null;
        try {
            // A fresh directory per generation: the glue must sit next to a core (its RUNPATH is $ORIGIN) and its
            // file name must be new to this JVM.
            dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "tandem-dpx-");
            extract(CORE, dir);
            Path glue = extract(GLUE, dir);
            System.load(glue.toString());
        } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
            return "cannot load the native library: " + e;
        } finally {
            if (dir != null) {
                deleteQuietly(dir.resolve(GLUE));
                deleteQuietly(dir.resolve(CORE));
                deleteQuietly(dir);
            }
        }
        int abi = abi();
        if (abi != ABI) {
            return "a libtandem-dpx.so with ABI " + abi + " is already loaded in this process by an earlier "
                    + "generation of tandem.dpdk.runtime, this one needs ABI " + ABI + ": restart the JVM";
        }
        return "";
    }

    private static Path extract(String name, Path dir) throws IOException {
        Path target = dir.resolve(name);
        try (InputStream in = Native.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCES + name + " vanished");
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
    }

    /** The libraries are mapped once loaded: the files can go at once, and must not outlive a killed JVM. */
    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            p.toFile().deleteOnExit();
        }
    }

    /**
     * Initialises EAL with {@code args} unless it is up in the process already, in which case the running arguments
     * stay and are reported.
     */
    static synchronized Eal eal(String args) {
        if (up != null) {
            return new Eal(null, up.arguments(), false, false);
        }
        String why = load();
        if (why != null) {
            return new Eal(why, args, false, false);
        }
        int rc = initOnOwnThread(args);
        if (rc == 0 || rc == EALREADY) {
            String running = ealArgs();
            up = new Eal(null, running == null ? args : running, rc == 0, false);
            return up;
        }
        if (rc == EAL_NOT_RETRYABLE) {
            return new Eal("EAL init failed earlier in this process and EAL cannot be initialised again: restart "
                    + "the JVM", args, false, false);
        }
        if (rc == Integer.MIN_VALUE) {
            return new Eal("EAL init did not finish within " + EAL_INIT_TIMEOUT_MILLIS + " ms", args, false, false);
        }
        return new Eal("EAL init failed: " + strerror(rc) + " (arguments: " + args + ")", args, false, true);
    }

    /** @return dpx_eal_init's result, or Integer.MIN_VALUE when it did not return in time */
    private static int initOnOwnThread(String args) {
        int[] rc = {Integer.MIN_VALUE};
        Thread t = new Thread(() -> rc[0] = ealInit(args), "tandem-dpdk-eal-init");
        t.setDaemon(true);
        long start = System.nanoTime();
        t.start();
        boolean interrupted = false;
        long deadline = start + EAL_INIT_TIMEOUT_MILLIS * 1_000_000L;
        while (t.isAlive()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                t.join(Math.max(1, left / 1_000_000L));
            } catch (InterruptedException e) {
                interrupted = true; // EAL init cannot be abandoned half-way: wait it out, keep the interrupt
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        // isAlive() returning false orders the thread's write of rc[0] before the read below (JLS 17.4.4)
        if (!t.isAlive()) {
            LOG.log(Level.DEBUG, "dpx_eal_init returned {0} after {1} ms", rc[0],
                    (System.nanoTime() - start) / 1_000_000L);
        }
        return t.isAlive() ? Integer.MIN_VALUE : rc[0];
    }

    // --- the JNI surface; see src/main/c/dpx.h for each call's contract ---

    static native int abi();

    static native int ealInit(String args);

    static native String ealArgs();

    static native String strerror(int err);

    static native int nextId();

    static native int portOpen(String vdev, String devargs, int nbMbufs, int ring, boolean tolerateStartFailure)
            throws IOException;

    static native int portClose(int port);

    static native int linkUp(int port);

    static native int portRestart(int port);

    /** @return (frames &lt;&lt; 32) | bytes consumed */
    static native long tx(int port, ByteBuffer buf, int position, int limit);

    /** @return (frames &lt;&lt; 32) | bytes written */
    static native long rx(int port, ByteBuffer buf, int position, int limit, int maxFrames);

    static native int stats(int port, long[] out);

    /** @return 0, or -errno: pins the calling thread to {@code cpu} */
    static native int pinCurrentThread(int cpu);
}
