package tandem.journal;

import java.util.Locale;

/** How {@code awaitDurable} waits for the journal thread. */
enum WaitStrategy {
    /** Park on a condition the journal thread signals after each sync: no CPU while waiting. */
    BLOCKING("blocking"),
    /** Spin briefly, then yield between checks: lower latency, still shares a core. */
    SPIN_YIELD("spin-yield"),
    /** Spin without yielding: lowest latency, burns a core; opt-in only. */
    BUSY_SPIN("busy-spin");

    final String configName;

    WaitStrategy(String configName) {
        this.configName = configName;
    }

    static WaitStrategy parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (WaitStrategy s : values()) {
            if (s.configName.equals(v)) {
                return s;
            }
        }
        throw new IllegalArgumentException(value);
    }
}
