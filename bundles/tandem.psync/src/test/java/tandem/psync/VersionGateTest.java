package tandem.psync;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** FM-REPLICATION-064: a replica of another major version is refused at PSYNC; anything else is served. */
@Timeout(10)
class VersionGateTest {

    @Test
    void onlyADifferentMajorVersionIsRefused() {
        assertThat(PsyncComponent.versionMismatch("0.1.0", "0.1.0")).isNull();
        assertThat(PsyncComponent.versionMismatch("0.2.7", "0.1.0.SNAPSHOT")).as("minor skew").isNull();
        assertThat(PsyncComponent.versionMismatch(null, "0.1.0")).as("not announced").isNull();
        assertThat(PsyncComponent.versionMismatch("banana", "0.1.0")).as("unparseable").isNull();
        assertThat(PsyncComponent.versionMismatch("1.0.0-rc1", "0.1.0")).isEqualTo("replica announced version "
                + "1.0.0-rc1 (major 1) but this primary is version 0.1.0 (major 0); replication requires both ends on "
                + "the same major version");
    }
}
