package tandem.dpdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Assumptions;

import tandem.dpdk.MemifPort;

/**
 * What the native tests share: one runtime for the whole test JVM (EAL starts once per process), unique socket paths
 * under target/, and loops that send or receive with a deadline.
 */
final class TestDpdk {

    /** Set by the pom's dpdk-native profile, which is what builds the shim. */
    static final boolean NATIVE = Boolean.getBoolean("tandem.dpdk.native");

    private static final AtomicInteger SOCKETS = new AtomicInteger();
    private static DpdkRuntimeComponent runtime;

    private TestDpdk() {
    }

    /**
     * @return the shared runtime, with EAL up. Where the shim was not built the test is skipped, but only where it
     *         could not have been: without DPDK's development files, outside CI. Where they are installed
     *         ({@code pkg-config --exists libdpdk}, as {@code .ci/test} makes sure) or in CI ({@code -Dtandem.ci=true})
     *         a missing shim fails the test.
     */
    static synchronized DpdkRuntimeComponent runtime() {
        if (!NATIVE) {
            assertThat(dpdkInstalled() || Boolean.getBoolean("tandem.ci"))
                    .as("libdpdk is installed (or this is CI) but the shim was not built: the dpdk-native profile "
                            + "builds it where /usr/lib/x86_64-linux-gnu/pkgconfig/libdpdk.pc exists").isFalse();
            Assumptions.abort("the native shim is built only where libdpdk-dev is installed");
        }
        if (runtime == null) {
            runtime = new DpdkRuntimeComponent("");
        }
        assertThat(runtime.unavailableReason()).as("unavailableReason").isNull();
        return runtime;
    }

    /** @return whether pkg-config finds DPDK's development files */
    static boolean dpdkInstalled() {
        try {
            return new ProcessBuilder("pkg-config", "--exists", "libdpdk").start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false; // no pkg-config: nothing could have built against DPDK
        }
    }

    /** @return an absolute socket path under target/ that no other test uses; its directory exists */
    static String socketPath(String name) throws IOException {
        Path dir = Path.of("target", "memif").toAbsolutePath();
        Files.createDirectories(dir);
        return dir.resolve(name + "-" + ProcessHandle.current().pid() + "-" + SOCKETS.incrementAndGet() + ".sock")
                .toString();
    }

    static void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + timeout.toMillis() + " ms waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    static void awaitLinkUp(MemifPort a, MemifPort b) {
        await(() -> a.linkUp() && b.linkUp(), Duration.ofSeconds(10), "link up of " + a + " and " + b);
    }

    /** @return frames packed as records [u16 LE length][bytes] in a direct buffer, ready to send */
    static ByteBuffer pack(List<byte[]> frames) {
        int size = 0;
        for (byte[] f : frames) {
            size += 2 + f.length;
        }
        ByteBuffer b = ByteBuffer.allocateDirect(Math.max(size, 1)).order(ByteOrder.LITTLE_ENDIAN);
        for (byte[] f : frames) {
            b.putShort((short) f.length).put(f);
        }
        return b.flip();
    }

    /** @return a frame of {@code length} bytes whose content depends on {@code seed} */
    static byte[] frame(int length, int seed) {
        byte[] f = new byte[length];
        for (int i = 0; i < length; i++) {
            f[i] = (byte) (seed * 31 + i * 7);
        }
        return f;
    }

    /**
     * Sends every record of {@code frames} on {@code from} while polling {@code to}, as an I/O loop does, and
     * returns what {@code to} received. Both sides must be polled: a memif server can transmit only into ring slots
     * its client handed back by polling receive.
     */
    static List<byte[]> exchange(MemifPort from, MemifPort to, List<byte[]> frames) {
        ByteBuffer src = pack(frames);
        ByteBuffer dst = ByteBuffer.allocateDirect(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        int[] sent = {0};
        List<byte[]> got = new ArrayList<>();
        await(() -> {
            if (src.hasRemaining()) {
                sent[0] += from.send(src);
            }
            drain(to, dst, frames.size() - got.size(), got);
            return got.size() >= frames.size() && !src.hasRemaining();
        }, Duration.ofSeconds(10), "exchanging " + frames.size() + " frames from " + from + " to " + to);
        assertThat(sent[0]).isEqualTo(frames.size());
        return got;
    }

    private static void drain(MemifPort port, ByteBuffer dst, int max, List<byte[]> got) {
        dst.clear();
        int n = port.receive(dst, max);
        dst.flip();
        for (int i = 0; i < n; i++) {
            byte[] f = new byte[dst.getShort() & 0xFFFF];
            dst.get(f);
            got.add(f);
        }
        assertThat(dst.hasRemaining()).as("bytes after the last record").isFalse();
    }

    /** @return exactly {@code count} frames received on {@code port}, in order */
    static List<byte[]> receive(MemifPort port, int count) {
        ByteBuffer dst = ByteBuffer.allocateDirect(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        List<byte[]> got = new ArrayList<>();
        await(() -> {
            drain(port, dst, count - got.size(), got);
            return got.size() >= count;
        }, Duration.ofSeconds(10), "receiving " + count + " frames on " + port);
        return got;
    }
}
