package tandem.shell;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import tandem.api.journal.ArchiveStatus;

@Timeout(10)
class JournalCommandsTest {

    @Test
    void infoShowsTheArchiveItsLagAndItsLastFailure() {
        assertThat(JournalCommands.archive(null)).contains("archive:            off (archive.directory is not set)");
        String failing = JournalCommands.archive(new ArchiveStatus("/archive", 80, 20, 2, 8192, 5, "segment-x",
                1_700_000_000_000L, 4, "journal.000006", "the archive directory /archive does not exist",
                1_700_000_001_000L, true));
        assertThat(failing).contains("archive:            /archive (FAILING)")
                .contains("archived up to:     80")
                .contains("archive lag:        20 entries, 2 sealed segments (8192 bytes) waiting")
                .contains("archived segments:  5, last segment-x at 2023-11-14T22:13:20Z")
                .contains("archive failures:   4, last at 2023-11-14T22:13:21Z on journal.000006: the archive "
                        + "directory /archive does not exist");
    }
}
