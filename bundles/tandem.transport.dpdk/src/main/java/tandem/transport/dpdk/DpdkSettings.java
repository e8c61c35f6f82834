package tandem.transport.dpdk;

import java.nio.file.Path;

import tandem.protocol.config.PropertyCheck;

/**
 * The validated configuration of the DPDK transport. Every check names the property it refuses, so that an
 * operator who mistypes {@code etc/tandem.transport.dpdk.cfg} reads which line is wrong.
 */
record DpdkSettings(Path socketDirectory, WaitStrategy waitStrategy, long maxParkNanos, int dedicatedCore,
        long heartbeatNanos, long peerTimeoutNanos, int writeBufferHighBytes, int writeBufferLowBytes) {

    static final String PID = "tandem.transport.dpdk";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);

    static DpdkSettings of(DpdkTransport.Config c) {
        // host-wide by default: memif joins the processes of one host, and the nodes of a cluster have their own
        // homes
        String dir = c.socket_directory().isBlank() ? System.getProperty("java.io.tmpdir") + "/tandem-dpdk"
                : c.socket_directory();
        Path socketDirectory = Path.of(dir).toAbsolutePath();
        // a unix socket path is at most 107 bytes; the longest name used here is tandem-65535-4294967295.memif
        if (socketDirectory.toString().length() > 80) {
            throw CHECK.invalid("socket.directory", dir,
                    "is longer than 80 characters, too long for a unix socket path");
        }
        WaitStrategy wait;
        try {
            wait = WaitStrategy.of(c.wait_strategy());
        } catch (IllegalArgumentException e) {
            throw CHECK.invalid("wait.strategy", c.wait_strategy(), e.getMessage());
        }
        long maxPark = CHECK.range("back.off.max.park.us", c.back_off_max_park_us(), 1, 10_000) * 1000L;
        int core = CHECK.range("dedicated.core", c.dedicated_core(), -1, 4095);
        long heartbeat = CHECK.range("heartbeat.ms", c.heartbeat_ms(), 1, 60_000) * 1_000_000L;
        long timeout = CHECK.range("peer.timeout.ms", c.peer_timeout_ms(), 10, 600_000) * 1_000_000L;
        if (timeout <= 2 * heartbeat) {
            throw CHECK.invalid("peer.timeout.ms", Integer.toString(c.peer_timeout_ms()),
                    "must be more than twice heartbeat.ms=" + c.heartbeat_ms());
        }
        int high = CHECK.range("write.buffer.high.bytes", c.write_buffer_high_bytes(), 1024, 1 << 30);
        int low = CHECK.range("write.buffer.low.bytes", c.write_buffer_low_bytes(), 0, 1 << 30);
        if (low >= high) {
            throw CHECK.invalid("write.buffer.low.bytes", Integer.toString(low),
                    "must be less than write.buffer.high.bytes=" + high);
        }
        return new DpdkSettings(socketDirectory, wait, maxPark, core, heartbeat, timeout, high, low);
    }
}
