package tandem.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** File I/O that counts syncs, can hold them at a gate, and can fail a write or a sync on demand. */
final class TestIo implements FileIo {

    final AtomicInteger forces = new AtomicInteger();
    final AtomicInteger writes = new AtomicInteger();
    /** Non-null: the next write fails with it. */
    final AtomicReference<IOException> failWrite = new AtomicReference<>();
    /** Non-null: the next sync fails with it. */
    final AtomicReference<IOException> failForce = new AtomicReference<>();
    /** When gated, each sync takes a permit first. */
    volatile boolean gated;
    final Semaphore gate = new Semaphore(0);
    /** Threads parked at the gate. */
    final AtomicInteger atGate = new AtomicInteger();

    @Override
    public SegmentChannel open(Path file, boolean create) throws IOException {
        return new FileSegmentChannel(FileIo.channel(file, create)) {
            @Override
            public int write(ByteBuffer src, long position) throws IOException {
                IOException e = failWrite.getAndSet(null);
                if (e != null) {
                    throw e;
                }
                writes.incrementAndGet();
                return super.write(src, position);
            }

            @Override
            public void force() throws IOException {
                if (gated) {
                    atGate.incrementAndGet();
                    gate.acquireUninterruptibly();
                    atGate.decrementAndGet();
                }
                IOException e = failForce.getAndSet(null);
                if (e != null) {
                    throw e;
                }
                forces.incrementAndGet();
                super.force();
            }
        };
    }
}
