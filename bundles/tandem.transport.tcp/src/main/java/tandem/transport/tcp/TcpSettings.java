package tandem.transport.tcp;

import tandem.protocol.config.PropertyCheck;

/**
 * The validated configuration of the TCP transport. Every check names the property it refuses, so that an operator
 * who mistypes {@code etc/tandem.transport.tcp.cfg} reads which line is wrong.
 */
record TcpSettings(int ioThreads, int writeBufferHighBytes, int writeBufferLowBytes, boolean tcpNoDelay,
        boolean tls) {

    static final String PID = "tandem.transport.tcp";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);

    static final int MAX_IO_THREADS = 64;
    static final int MIN_HIGH_WATER_MARK = 1024;
    static final int MAX_HIGH_WATER_MARK = 1 << 30;

    static TcpSettings of(TcpTransport.Config c) {
        int ioThreads = CHECK.range("io.threads", c.io_threads(), 1, MAX_IO_THREADS);
        int high = CHECK.range("write.buffer.high.bytes", c.write_buffer_high_bytes(), MIN_HIGH_WATER_MARK,
                MAX_HIGH_WATER_MARK);
        int low = CHECK.range("write.buffer.low.bytes", c.write_buffer_low_bytes(), 0, MAX_HIGH_WATER_MARK);
        if (low >= high) {
            throw CHECK.invalid("write.buffer.low.bytes", Integer.toString(low),
                    "must be less than write.buffer.high.bytes=" + high);
        }
        return new TcpSettings(ioThreads, high, low, c.tcp_nodelay(), c.tls());
    }
}
