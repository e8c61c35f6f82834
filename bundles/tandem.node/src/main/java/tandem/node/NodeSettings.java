package tandem.node;

import java.nio.file.Path;

/** The node core's configuration, validated: every value out of range is refused, naming its property. */
record NodeSettings(int pauseMaxMs, Path stateDirectory) {

    static final String PID = "tandem.node";

    /** @param home the node's home, absolute: the base of a relative or default state directory */
    static NodeSettings of(NodeComponent.Config c, Path home) {
        int pause = c.pause_max_ms();
        if (pause < 100 || pause > 600_000) {
            throw new IllegalArgumentException("pause.max.ms must be 100..600000, got " + pause);
        }
        String d = c.state_directory() == null ? "" : c.state_directory().trim();
        return new NodeSettings(pause, d.isEmpty() ? home.resolve("data").resolve("node") : home.resolve(d));
    }
}
