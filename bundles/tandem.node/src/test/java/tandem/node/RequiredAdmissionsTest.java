package tandem.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class RequiredAdmissionsTest {

    @TempDir
    Path dir;

    @Test
    void whatWasSeenIsReadBackAfterARestartUntilItsBundleIsUninstalled() throws Exception {
        RequiredAdmissions seen = new RequiredAdmissions(dir.resolve("node"));
        assertThat(seen.read()).as("none ever seen").isEmpty();
        seen.seen("tandem.fencing", "quorum fence (tandem.fencing)");
        seen.seen("tandem.failover", "the failover group (tandem.failover)");
        seen.seen("tandem.fencing", "quorum fence (tandem.fencing)"); // bound again after an update
        assertThat(Files.readString(dir.resolve("node").resolve(RequiredAdmissions.FILE), StandardCharsets.UTF_8))
                .isEqualTo("tandem.fencing quorum fence (tandem.fencing)\n"
                        + "tandem.failover the failover group (tandem.failover)\n");
        assertThat(new RequiredAdmissions(dir.resolve("node")).read()).isEqualTo(Map.of("tandem.fencing",
                "quorum fence (tandem.fencing)", "tandem.failover", "the failover group (tandem.failover)"));

        seen.uninstalled("tandem.fencing");
        seen.uninstalled("tandem.transport.tcp"); // provides none: nothing changes
        assertThat(new RequiredAdmissions(dir.resolve("node")).read())
                .isEqualTo(Map.of("tandem.failover", "the failover group (tandem.failover)"));
    }

    @Test
    void anUnreadableFileRequiresNothingAndTheNextChangeIsStillLogged() throws Exception {
        Files.createDirectories(dir.resolve("node").resolve(RequiredAdmissions.FILE)); // a directory instead
        RequiredAdmissions seen = new RequiredAdmissions(dir.resolve("node"));
        assertThat(seen.read()).isEmpty();
        seen.seen("tandem.fencing", "quorum fence (tandem.fencing)"); // logged, not thrown
        assertThat(Files.isDirectory(dir.resolve("node").resolve(RequiredAdmissions.FILE))).isTrue();
    }
}
