package tandem.server;

/**
 * The validated settings of the command monitor: the slow log, latency events and the stall watchdog, under the
 * server's PID. Every check names the property it refuses.
 */
record MonitorSettings(long slowlogSlowerThanMicros, int slowlogMaxLen, long latencyThresholdMillis,
        long stallWarnMillis) {

    static MonitorSettings of(RespServer.Config c) {
        long slower = c.slowlog_log_slower_than();
        if (slower < -1) {
            throw invalid("slowlog.log.slower.than", slower, "must be -1 (off), 0 (every command) or more");
        }
        int maxLen = c.slowlog_max_len();
        if (maxLen < 0) {
            throw invalid("slowlog.max.len", maxLen, "must be 0 or more");
        }
        long latency = c.latency_monitor_threshold();
        if (latency < 0) {
            throw invalid("latency.monitor.threshold", latency, "must be 0 (off) or more");
        }
        long stall = c.stall_warn_ms();
        if (stall < 0 || stall > 3_600_000) {
            throw invalid("stall.warn.ms", stall, "must be between 0 (off) and 3600000");
        }
        return new MonitorSettings(slower, maxLen, latency, stall);
    }

    private static IllegalArgumentException invalid(String property, long value, String why) {
        return new IllegalArgumentException(ServerSettings.PID + ": " + property + "=" + value + " is invalid: " + why);
    }
}
