package tandem.transport.dpdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.osgi.util.converter.Converters;

import tandem.api.transport.FrameLink;
import tandem.api.transport.FrameListener;
import tandem.dpdk.DpdkRuntime;
import tandem.dpdk.internal.DpdkRuntimeComponent;

/**
 * The DPDK transport over real {@code net_memif} ports: a listener and a connecting link in one JVM, on one EAL
 * (EAL starts once per process, as in a node), through two generations of the transport, as a bundle update makes.
 * Runs wherever the native library was built (Debian's {@code libdpdk-dev} present at build time, as
 * {@code .ci/test} makes sure); where it was not, there is nothing to run it on, and the test is skipped, but
 * fails where DPDK's development files are installed or in CI ({@code -Dtandem.ci=true}).
 */
@Timeout(60)
class MemifTransportTest {

    private static DpdkRuntime runtime;
    private static Path dir;

    @BeforeAll
    static void eal() throws IOException {
        runtime = new DpdkRuntimeComponent(Converters.standardConverter().convert(Map.of())
                .to(DpdkRuntimeComponent.Config.class));
        String reason = runtime.unavailableReason();
        if (reason != null && reason.startsWith("native library not built")) {
            // a skip only where the shim could not have been built: without DPDK's development files, outside CI
            assertThat(Boolean.getBoolean("tandem.ci") || dpdkInstalled())
                    .as("libdpdk is installed (or this is CI), yet: " + reason).isFalse();
            Assumptions.abort(reason);
        }
        assertThat(reason).as("EAL starts here").isNull();
        dir = Files.createTempDirectory("tmemif");
    }

    /** @return whether pkg-config finds DPDK's development files (no pkg-config: nothing built against them) */
    private static boolean dpdkInstalled() {
        try {
            return new ProcessBuilder("pkg-config", "--exists", "libdpdk").start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @AfterAll
    static void clean() throws IOException {
        if (dir != null) {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void framesCrossMemifBothWaysThroughTwoGenerationsOfTheTransport() throws Exception {
        for (int generation = 1; generation <= 2; generation++) {
            // the second generation waits politely, on link threads pinned to CPU 0
            Map<String, Object> config = generation == 1 ? Map.of("wait.strategy", "busy-spin")
                    : Map.of("wait.strategy", "back-off", "dedicated.core", 0);
            DpdkTransport t = new DpdkTransport(DpdkTransportTest.config(dir, config), runtime);
            try {
                exchange(t, generation);
            } finally {
                t.deactivate(); // closes every port: the next generation hot-plugs new ones on the same EAL
            }
        }
    }

    private static void exchange(DpdkTransport t, int generation) throws Exception {
        DpdkTransportTest.Session server = new DpdkTransportTest.Session();
        try (FrameListener l = t.listen("127.0.0.1", 0, 1 << 20, () -> server)) {
            DpdkTransportTest.Session client = new DpdkTransportTest.Session();
            t.connect("127.0.0.1", l.port(), 1 << 20, 5000, client);
            FrameLink c = client.awaitOpened();
            FrameLink s = server.awaitOpened();
            Random random = new Random(generation);
            List<byte[]> up = new ArrayList<>();
            List<byte[]> down = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                byte[] f = new byte[i % 100 == 0 ? 200_000 + random.nextInt(800_000) : 1 + random.nextInt(2000)];
                random.nextBytes(f);
                (i % 2 == 0 ? up : down).add(f);
            }
            for (byte[] f : up) {
                c.send(DpdkTransportTest.framed(f));
            }
            for (byte[] f : down) {
                s.send(DpdkTransportTest.framed(f));
            }
            server.awaitFrames(up.size());
            client.awaitFrames(down.size());
            assertThat(server.frames).containsExactlyElementsOf(up);
            assertThat(client.frames).containsExactlyElementsOf(down);
            c.close("done");
            assertThat(server.awaitClosed()).isEqualTo(DpdkLink.PEER_CLOSED);
            assertThat(client.awaitClosed()).isEqualTo("done");
        }
        assertThat(t.counters().get("dropped_corrupt")).isZero();
        assertThat(t.counters().get("frames_received")).isPositive();
    }
}
