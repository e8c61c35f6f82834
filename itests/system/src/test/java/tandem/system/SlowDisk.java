package tandem.system;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A slow disk for one process, for real: the block I/O controller (cgroup v1 {@code blkio}) caps the write
 * operations per second the process may issue to the disk that holds a directory, so that its {@code fsync} calls
 * take as long as on a disk that is failing or saturated. The tests run as root (in CI too). Moving the process back
 * lifts the cap; a killed process takes nothing with it.
 */
final class SlowDisk implements AutoCloseable {

    private static final Path BLKIO = Path.of("/sys/fs/cgroup/blkio");

    private final Path group;
    private final String device;

    private SlowDisk(Path group, String device) {
        this.group = group;
        this.device = device;
    }

    /** A cap for processes writing to the disk under {@code dir}; nothing is capped until {@link #slow}. */
    static SlowDisk under(Path dir) throws IOException {
        if (!Files.isDirectory(BLKIO)) {
            throw new AssertionError("no cgroup v1 blkio controller at " + BLKIO + ": cannot slow a disk here");
        }
        String device = wholeDisk(TandemNode.run(Duration.ofSeconds(10), "stat", "-c", "%Hd:%Ld",
                dir.toString()).out().trim());
        Path group = BLKIO.resolve("tandem-slow-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        Files.createDirectory(group);
        return new SlowDisk(group, device);
    }

    /**
     * The throttle sits on the disk's request queue: for a file system on a partition, that is the whole disk's
     * ({@code /sys/dev/block/M:m} of a partition has a {@code partition} file and its parent is the disk).
     */
    private static String wholeDisk(String majorMinor) throws IOException {
        Path dev = Path.of("/sys/dev/block", majorMinor).toRealPath();
        if (Files.exists(dev.resolve("partition"))) {
            return Files.readString(dev.getParent().resolve("dev")).trim();
        }
        return majorMinor;
    }

    /** Caps {@code pid}'s writes to {@code iops} operations a second. */
    void slow(long pid, int iops) throws IOException {
        Files.writeString(group.resolve("blkio.throttle.write_iops_device"), device + " " + iops);
        Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
    }

    /** Lifts the cap on {@code pid} (a process that has exited is no longer in the group). */
    void restore(long pid) throws IOException {
        try {
            Files.writeString(BLKIO.resolve("cgroup.procs"), Long.toString(pid));
        } catch (IOException e) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                throw e;
            }
        }
    }

    @Override
    public void close() throws IOException {
        for (String pid : Files.readAllLines(group.resolve("cgroup.procs"))) {
            restore(Long.parseLong(pid.trim()));
        }
        Files.deleteIfExists(group);
    }
}
