package tandem.server;

import tandem.protocol.config.PropertyCheck;

/**
 * The validated settings of the command monitor: the slow log, latency events and the stall watchdog, under the
 * server's PID. Every check names the property it refuses.
 */
record MonitorSettings(long slowlogSlowerThanMicros, int slowlogMaxLen, long latencyThresholdMillis,
        long stallWarnMillis) {

    private static final PropertyCheck CHECK = new PropertyCheck(ServerSettings.PID);

    static MonitorSettings of(RespServer.Config c) {
        long slower = c.slowlog_log_slower_than();
        if (slower < -1) {
            throw CHECK.invalid("slowlog.log.slower.than", String.valueOf(slower),
                    "must be -1 (off), 0 (every command) or more");
        }
        int maxLen = c.slowlog_max_len();
        if (maxLen < 0) {
            throw CHECK.invalid("slowlog.max.len", String.valueOf(maxLen), "must be 0 or more");
        }
        long latency = c.latency_monitor_threshold();
        if (latency < 0) {
            throw CHECK.invalid("latency.monitor.threshold", String.valueOf(latency), "must be 0 (off) or more");
        }
        long stall = c.stall_warn_ms();
        if (stall < 0 || stall > 3_600_000) {
            throw CHECK.invalid("stall.warn.ms", String.valueOf(stall), "must be between 0 (off) and 3600000");
        }
        return new MonitorSettings(slower, maxLen, latency, stall);
    }
}
