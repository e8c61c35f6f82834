package tandem.node;

import java.nio.file.Path;
import java.nio.file.Paths;

/** The node core's configuration, validated: every value out of range is refused, naming its property. */
record NodeSettings(int pauseMaxMs, Path stateDirectory) {

    static final String PID = "tandem.node";

    static NodeSettings of(NodeComponent.Config c, String home) {
        int pause = c.pause_max_ms();
        if (pause < 100 || pause > 600_000) {
            throw new IllegalArgumentException("pause.max.ms must be 100..600000, got " + pause);
        }
        String d = c.state_directory() == null ? "" : c.state_directory().trim();
        Path base = home == null ? Paths.get("").toAbsolutePath() : Paths.get(home);
        return new NodeSettings(pause, d.isEmpty() ? base.resolve("data").resolve("node") : base.resolve(d));
    }
}
