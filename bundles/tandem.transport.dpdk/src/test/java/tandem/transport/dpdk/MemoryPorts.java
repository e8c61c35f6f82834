package tandem.transport.dpdk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import tandem.dpdk.DpdkRuntime;
import tandem.dpdk.MemifPort;

/**
 * A DPDK runtime whose ports are joined in memory by socket path, as memif joins them through shared memory: what the transport's tests run
 * on where the native part is not the subject. A drop rate makes the link lossy, to drive the real link loop
 * through retransmission; {@code available} false stands for a machine where DPDK cannot start.
 */
final class MemoryPorts implements DpdkRuntime {

    private final Map<Path, End> servers = new ConcurrentHashMap<>();
    volatile double dropRate;
    private final String unavailable;

    MemoryPorts(double dropRate, String unavailable) {
        this.dropRate = dropRate;
        this.unavailable = unavailable;
    }

    @Override
    public String unavailableReason() {
        return unavailable;
    }

    @Override
    public String ealArguments() {
        return "(in memory)";
    }

    @Override
    public boolean pinCurrentThread(int cpu) {
        return false;
    }

    @Override
    public MemifPort openMemif(String socketPath, boolean server) throws IOException {
        Path socket = Path.of(socketPath);
        if (server) {
            End e = new End(socket, null);
            servers.put(socket, e);
            return e;
        }
        End client = new End(socket, null);
        client.attach(servers.get(socket));
        return client;
    }

    final class End implements MemifPort {
        private final Path socket;
        private final Queue<byte[]> inbox = new ConcurrentLinkedQueue<>();
        private final Random random = new Random(42);
        private volatile End peer;
        private volatile boolean closed;

        End(Path socket, End peer) {
            this.socket = socket;
            this.peer = peer;
        }

        void attach(End server) {
            if (server != null && !server.closed) {
                peer = server;
                server.peer = this;
            }
        }

        @Override
        public String name() {
            return "memory:" + socket;
        }

        @Override
        public long[] stats() {
            return new long[8];
        }

        @Override
        public boolean linkUp() {
            End p = peer;
            return !closed && p != null && !p.closed;
        }

        @Override
        public void restart() {
            if (peer == null) {
                attach(servers.get(socket));
            }
        }

        @Override
        public int send(ByteBuffer records) {
            if (!linkUp()) {
                return 0;
            }
            records.order(ByteOrder.LITTLE_ENDIAN);
            int n = 0;
            while (records.remaining() >= 2) {
                int size = records.getShort(records.position()) & 0xFFFF;
                byte[] f = new byte[size];
                records.position(records.position() + 2);
                records.get(f);
                if (random.nextDouble() >= dropRate) {
                    peer.inbox.add(f);
                }
                n++;
            }
            return n;
        }

        @Override
        public int receive(ByteBuffer records, int maxFrames) {
            records.order(ByteOrder.LITTLE_ENDIAN);
            int n = 0;
            byte[] f;
            while (n < maxFrames && (f = inbox.peek()) != null && records.remaining() >= 2 + f.length) {
                inbox.poll();
                records.putShort((short) f.length).put(f);
                n++;
            }
            return n;
        }

        @Override
        public void close() {
            closed = true;
            servers.remove(socket, this);
        }
    }
}
