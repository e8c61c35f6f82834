package tandem.dpdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.dpdk.internal.TestDpdk.await;
import static tandem.dpdk.internal.TestDpdk.awaitLinkUp;
import static tandem.dpdk.internal.TestDpdk.frame;
import static tandem.dpdk.internal.TestDpdk.pack;
import static tandem.dpdk.internal.TestDpdk.receive;
import static tandem.dpdk.internal.TestDpdk.exchange;
import static tandem.dpdk.internal.TestDpdk.socketPath;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.dpdk.MemifPort;

/**
 * A memif server and client port on one socket in this JVM, the in-process stand-in for a primary and a replica.
 * Runs only where the shim was built; every test shares the JVM's one EAL.
 */
@Timeout(60)
class MemifPortTest {

    private DpdkRuntimeComponent runtime;
    private final List<MemifPort> opened = new ArrayList<>();

    @BeforeEach
    void runtime() {
        runtime = TestDpdk.runtime();
    }

    @AfterEach
    void closePorts() {
        if (runtime == null) {
            return; // skipped: no shim
        }
        opened.forEach(MemifPort::close);
        assertThat(runtime.openPorts()).as("ports left open").isZero();
    }

    private MemifPort open(String socket, boolean server) throws IOException {
        MemifPort p = runtime.openMemif(socket, server);
        opened.add(p);
        return p;
    }

    /** @return {server, client}, linked */
    private MemifPort[] pair(String name) throws IOException {
        String socket = socketPath(name);
        MemifPort server = open(socket, true);
        MemifPort client = open(socket, false);
        awaitLinkUp(server, client);
        return new MemifPort[] {server, client};
    }

    private static void assertExchange(MemifPort from, MemifPort to, List<byte[]> frames) {
        List<byte[]> got = exchange(from, to, frames);
        assertThat(got).hasSameSizeAs(frames);
        for (int i = 0; i < frames.size(); i++) {
            assertThat(got.get(i)).as("frame %d", i).isEqualTo(frames.get(i));
        }
    }

    @Test
    void aThreadIsPinnedToAnAllowedCpuAndRefusedAnImpossibleOne() throws Exception {
        int[] affinity = new int[1];
        Thread t = new Thread(() -> {
            if (runtime.pinCurrentThread(0)) {
                affinity[0] = 1;
            }
            if (!runtime.pinCurrentThread(4095)) {
                affinity[0] |= 2;
            }
        });
        t.start();
        t.join(10_000);
        assertThat(affinity[0]).as("pinned to CPU 0 (1), CPU 4095 refused (2)").isEqualTo(3);
    }

    @Test
    void framesOf1And64And1500BytesCrossBothWaysByteExact() throws IOException {
        MemifPort[] p = pair("sizes");
        assertThat(p[0].name()).startsWith("net_memif").isNotEqualTo(p[1].name());
        for (int size : new int[] {1, 64, MemifPort.MAX_FRAME}) {
            assertExchange(p[0], p[1], List.of(frame(size, size)));
            assertExchange(p[1], p[0], List.of(frame(size, size + 1)));
        }
        long[] server = p[0].stats();
        assertThat(server).hasSize(8);
        assertThat(server[0]).as("ipackets").isEqualTo(3);
        assertThat(server[1]).as("opackets").isEqualTo(3);
        assertThat(server[3]).as("obytes").isEqualTo(1 + 64 + 1500);
    }

    @Test
    void aBatchOf100FramesArrivesInOrder() throws IOException {
        MemifPort[] p = pair("batch");
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            frames.add(frame(1 + (i * 97) % MemifPort.MAX_FRAME, i));
        }
        assertExchange(p[0], p[1], frames);
        assertExchange(p[1], p[0], frames);
    }

    @Test
    void aRecordOver1500BytesIsRefusedBeforeAnythingIsSent() throws IOException {
        MemifPort[] p = pair("oversize");
        ByteBuffer b = ByteBuffer.allocateDirect(3 + 2 + 1501).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 1).put((byte) 7).putShort((short) 1501).put(new byte[1501]).flip();
        assertThatIllegalArgumentException().isThrownBy(() -> p[0].send(b))
                .withMessageContaining("position 3 has length 1501, not in 1..1500");
        assertThat(b.position()).isZero();

        ByteBuffer empty = ByteBuffer.allocateDirect(2);
        assertThatIllegalArgumentException().isThrownBy(() -> p[0].send(empty)).withMessageContaining("length 0");
        ByteBuffer truncated = ByteBuffer.allocateDirect(4).order(ByteOrder.LITTLE_ENDIAN);
        truncated.putShort((short) 10).flip().limit(4);
        assertThatIllegalArgumentException().isThrownBy(() -> p[0].send(truncated))
                .withMessageContaining("truncated record at position 0");
        assertThatIllegalArgumentException().isThrownBy(() -> p[0].send(ByteBuffer.allocate(8)))
                .withMessageContaining("direct");
        assertThat(p[0].stats()[1]).as("opackets").isZero();

        // the port is still usable, and the valid first record was not sent on its own
        assertExchange(p[0], p[1], List.of(frame(5, 5)));
        assertThat(p[1].stats()[0]).as("ipackets").isEqualTo(1);
    }

    @Test
    void aFrameThatDoesNotFitStaysForTheNextCall() throws IOException {
        MemifPort[] p = pair("stash");
        byte[] first = frame(100, 1);
        byte[] second = frame(10, 2);
        // client to server: a client can transmit before its server ever polled
        ByteBuffer src = pack(List.of(first, second));
        await(() -> p[1].send(src) >= 0 && !src.hasRemaining(), Duration.ofSeconds(10), "sending 2 frames");
        ByteBuffer tiny = ByteBuffer.allocateDirect(50);
        await(() -> tryTiny(p[0], tiny), Duration.ofSeconds(10), "a frame to arrive");
        assertThat(tiny.position()).as("nothing written").isZero();

        ByteBuffer exact = ByteBuffer.allocateDirect(102).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(p[0].receive(exact, 10)).isEqualTo(1); // the second frame would not fit after it
        assertThat(exact.position()).isEqualTo(102);
        exact.flip();
        assertThat(exact.getShort()).isEqualTo((short) 100);
        byte[] got = new byte[100];
        exact.get(got);
        assertThat(got).isEqualTo(first);
        assertThat(receive(p[0], 1).get(0)).isEqualTo(second);
    }

    /** @return true once the port took a frame off its ring although the tiny buffer could hold none */
    private static boolean tryTiny(MemifPort port, ByteBuffer tiny) {
        assertThat(port.receive(tiny, 10)).isZero();
        // once rte_eth_rx_burst took the frame, memif counts it as received although it did not fit
        return port.stats()[0] > 0;
    }

    @Test
    void pairsCloseAndReopenRepeatedly() throws IOException {
        for (int round = 0; round < 3; round++) {
            String socket = socketPath("reopen");
            MemifPort server = runtime.openMemif(socket, true);
            MemifPort client = runtime.openMemif(socket, false);
            try {
                awaitLinkUp(server, client);
                assertExchange(client, server, List.of(frame(64, round)));
                assertExchange(server, client, List.of(frame(1500, round)));
            } finally {
                client.close();
                server.close();
            }
            client.close(); // idempotent
            assertThatIllegalStateException().isThrownBy(() -> server.send(pack(List.of(frame(1, 1)))))
                    .withMessageContaining("closed");
        }
    }

    /**
     * memif (DPDK 22.11) leaves a closed server port's listening socket open and watched by eal-intr-thread with a
     * freed callback argument; a peer queued on it then makes that thread spin. The shim releases it: once the port
     * has closed, no socket of this process listens on its path ({@code /proc/net/unix} lists every bound socket by
     * path, the unlinked ones too).
     */
    @Test
    void aClosedServerPortLeavesNoListeningSocketBehind() throws IOException {
        String socket = socketPath("released");
        MemifPort server = runtime.openMemif(socket, true);
        MemifPort client = runtime.openMemif(socket, false);
        awaitLinkUp(server, client);
        assertThat(boundTo(socket)).as("listening while open").isNotEmpty();

        client.close();
        server.close();

        assertThat(boundTo(socket)).as("sockets bound to %s after the server port closed", socket).isEmpty();
        MemifPort again = open(socket, true); // the path serves again
        MemifPort peer = open(socket, false);
        awaitLinkUp(again, peer);
    }

    /** @return the lines of /proc/net/unix for sockets bound to {@code path} */
    private static List<String> boundTo(String path) throws IOException {
        return Files.readAllLines(Path.of("/proc/net/unix")).stream().filter(l -> l.endsWith(" " + path)).toList();
    }

    @Test
    void aClientOpenedBeforeItsServerLinksUpAfterRestart() throws IOException {
        String socket = socketPath("late-server");
        MemifPort client = open(socket, false);
        assertThat(client.linkUp()).isFalse();
        client.restart(); // no server yet: tolerated
        assertThat(client.linkUp()).isFalse();

        MemifPort server = open(socket, true);
        long[] lastRestart = {0};
        await(() -> {
            if (client.linkUp() && server.linkUp()) {
                return true;
            }
            if (System.nanoTime() - lastRestart[0] > 100_000_000L) {
                client.restart();
                lastRestart[0] = System.nanoTime();
            }
            return false;
        }, Duration.ofSeconds(10), "the late client to link up");
        assertExchange(client, server, List.of(frame(64, 9)));
    }

    @Test
    void aStaleFileAtTheServerSocketPathIsRemoved() throws IOException {
        String socket = socketPath("stale");
        Files.writeString(Path.of(socket), "left by a killed server");
        MemifPort server = open(socket, true);
        MemifPort client = open(socket, false);
        awaitLinkUp(server, client);
        assertExchange(server, client, List.of(frame(64, 3)));
    }

    @Test
    void aSecondServerOnTheSamePathIsRefusedAndTheFirstKeepsServing() throws IOException {
        String socket = socketPath("two-servers");
        MemifPort server = open(socket, true);
        assertThatThrownBy(() -> open(socket, true)).isInstanceOf(IOException.class)
                .hasMessageContaining("already served by " + server.name());
        MemifPort client = open(socket, false);
        awaitLinkUp(server, client);
        assertExchange(client, server, List.of(frame(64, 4)));
    }

    @Test
    void badSocketPathsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> runtime.openMemif("/tmp/a,b.sock", true)).isInstanceOf(IOException.class)
                .hasMessageContaining("contains ','");
        assertThatThrownBy(() -> runtime.openMemif("/tmp/" + "x".repeat(120), true)).isInstanceOf(IOException.class)
                .hasMessageContaining("at most 105");
        assertThatThrownBy(() -> runtime.openMemif("/nonexistent-dir/x.sock", true)).isInstanceOf(IOException.class)
                .hasMessageContaining("does not exist");
    }

    @Test
    void ealArgumentsAreThoseOfTheFirstInit() {
        assertThat(runtime.ealArguments()).startsWith("--lcores=0@(").endsWith(EalArguments.FIXED);
        DpdkRuntimeComponent second = new DpdkRuntimeComponent("--lcores=0@(0) --no-huge -m 64");
        assertThat(second.unavailableReason()).isNull();
        assertThat(second.ealArguments()).isEqualTo(runtime.ealArguments());
    }
}
