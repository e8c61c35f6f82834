package tandem.transport.tcp;

/**
 * The validated configuration of the TCP transport. Every check names the property it refuses, so that an operator
 * who mistypes {@code etc/tandem.transport.tcp.cfg} reads which line is wrong.
 */
record TcpSettings(int ioThreads, int writeBufferHighBytes, int writeBufferLowBytes, boolean tcpNoDelay) {

    static final String PID = "tandem.transport.tcp";

    static final int MAX_IO_THREADS = 64;
    static final int MIN_HIGH_WATER_MARK = 1024;
    static final int MAX_HIGH_WATER_MARK = 1 << 30;

    static TcpSettings of(TcpTransport.Config c) {
        int ioThreads = range("io.threads", c.io_threads(), 1, MAX_IO_THREADS);
        int high = range("write.buffer.high.bytes", c.write_buffer_high_bytes(), MIN_HIGH_WATER_MARK,
                MAX_HIGH_WATER_MARK);
        int low = range("write.buffer.low.bytes", c.write_buffer_low_bytes(), 0, MAX_HIGH_WATER_MARK);
        if (low >= high) {
            throw invalid("write.buffer.low.bytes", Integer.toString(low),
                    "must be less than write.buffer.high.bytes=" + high);
        }
        return new TcpSettings(ioThreads, high, low, c.tcp_nodelay());
    }

    private static int range(String property, int value, int min, int max) {
        if (value < min || value > max) {
            throw invalid(property, Integer.toString(value), "must be between " + min + " and " + max);
        }
        return value;
    }

    private static IllegalArgumentException invalid(String property, String value, String why) {
        return new IllegalArgumentException(PID + ": " + property + "=" + value + " is invalid: " + why);
    }
}
