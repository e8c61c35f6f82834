package tandem.store;

import java.nio.file.Path;

import tandem.protocol.config.PropertyCheck;

/**
 * The validated configuration of the store. Every check names the property it refuses, so that an operator who
 * mistypes {@code etc/tandem.store.cfg} reads which line is wrong.
 *
 * @param directory         the RocksDB directory, absolute
 * @param flushIntervalMs   period of the background flush that advances the flushed sequence
 * @param expireKeysPerTick the most keys one Tick deletes
 * @param scanCursors       the most SCAN/HSCAN cursors remembered
 */
record StoreSettings(Path directory, int flushIntervalMs, int expireKeysPerTick, int scanCursors) {

    static final String PID = "tandem.store";
    private static final PropertyCheck CHECK = new PropertyCheck(PID);

    /**
     * @param tandemHome the framework property {@code tandem.home} (null when unset: the working directory), the
     *                   base of the default directory
     */
    static StoreSettings of(StoreComponent.Config c, String tandemHome) {
        String dir = c.directory() == null ? "" : c.directory().trim();
        Path directory;
        if (dir.isEmpty()) {
            directory = Path.of(tandemHome == null || tandemHome.isBlank() ? "." : tandemHome, "data", "store");
        } else {
            try {
                directory = Path.of(dir);
            } catch (RuntimeException e) {
                throw CHECK.invalid("directory", dir, "is not a valid path");
            }
        }
        int flush = CHECK.range("flush.interval.ms", c.flush_interval_ms(), 10, 3_600_000);
        int perTick = CHECK.range("expire.keys.per.tick", c.expire_keys_per_tick(), 1, 1_000_000);
        int cursors = CHECK.range("scan.cursors", c.scan_cursors(), 1, 1_000_000);
        return new StoreSettings(directory.toAbsolutePath().normalize(), flush, perTick, cursors);
    }
}
