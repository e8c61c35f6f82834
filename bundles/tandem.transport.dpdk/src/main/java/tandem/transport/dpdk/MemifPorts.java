package tandem.transport.dpdk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import tandem.dpdk.DpdkRuntime;
import tandem.dpdk.MemifPort;

/** Ports from the process's DPDK runtime: one {@code net_memif} vdev each. */
final class MemifPorts implements Port.Factory {

    private final DpdkRuntime runtime;

    MemifPorts(DpdkRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public String unavailableReason() {
        return runtime.unavailableReason();
    }

    @Override
    public boolean pinCurrentThread(int cpu) {
        return runtime.pinCurrentThread(cpu);
    }

    @Override
    public Port open(Path socket, boolean server) throws IOException {
        MemifPort p = runtime.openMemif(socket.toString(), server);
        return new Port() {
            @Override
            public boolean linkUp() {
                return p.linkUp();
            }

            @Override
            public void restart() {
                p.restart();
            }

            @Override
            public int send(ByteBuffer records) {
                return p.send(records);
            }

            @Override
            public int receive(ByteBuffer records, int maxFrames) {
                return p.receive(records, maxFrames);
            }

            @Override
            public void close() {
                p.close();
            }
        };
    }
}
