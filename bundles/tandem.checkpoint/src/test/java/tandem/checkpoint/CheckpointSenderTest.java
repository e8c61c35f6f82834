package tandem.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.checkpoint.Fixtures.REPLID;
import static tandem.checkpoint.Fixtures.checkpointDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import tandem.protocol.checkpoint.CheckpointFile;

@Timeout(30)
class CheckpointSenderTest {

    @TempDir
    Path tmp;

    @Test
    void filesAreListedInByteWiseNameOrderWithTheirSizes() throws IOException {
        Path dir = checkpointDir(tmp.resolve("cp"), 1,
                Map.of("b.sst", 3, "a.sst", 0, "CURRENT", 16, "OPTIONS-000007", 5, "é", 1));
        CheckpointSender sender = new CheckpointSender(dir);
        assertThat(sender.files()).containsExactly(new CheckpointFile("CURRENT", 16),
                new CheckpointFile("OPTIONS-000007", 5), new CheckpointFile("a.sst", 0), new CheckpointFile("b.sst", 3),
                new CheckpointFile("é", 1));
        assertThat(sender.rdbSize()).isEqualTo(25);
        assertThat(sender.directory()).isEqualTo(dir);
    }

    @Test
    void theStreamLengthIsExactForAnyTrailerAndAnyChannel() throws IOException {
        Path dir = checkpointDir(tmp.resolve("cp"), 2, Map.of("a", 70_000, "b", 0, "c", 1));
        CheckpointSender sender = new CheckpointSender(dir);
        for (long offset : new long[] {0, 9, 1234567890123L, -1L}) {
            assertThat(Fixtures.stream(sender, REPLID, offset)).hasSize((int) sender.streamLength(REPLID, offset));
        }
        assertThat(Fixtures.stream(sender, "journal-7", 3)).hasSize((int) sender.streamLength("journal-7", 3));
        // a FileChannel takes the zero-copy path: the same length and the same bytes
        Path out = tmp.resolve("stream.bin");
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            assertThat(sender.send(REPLID, 5, ch)).isEqualTo(sender.streamLength(REPLID, 5));
        }
        assertThat(Files.readAllBytes(out)).isEqualTo(Fixtures.stream(sender, REPLID, 5));
        assertThatThrownBy(() -> sender.streamLength("bad:id", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anythingButRegularFilesIsRefused() throws IOException {
        Path withDir = checkpointDir(tmp.resolve("d"), 3, Map.of("a", 1));
        Files.createDirectory(withDir.resolve("sub"));
        assertThatThrownBy(() -> new CheckpointSender(withDir)).isInstanceOf(IOException.class)
                .hasMessageContaining("not a regular file");

        Path withLink = checkpointDir(tmp.resolve("l"), 3, Map.of("a", 1));
        Files.createSymbolicLink(withLink.resolve("link"), withLink.resolve("a"));
        assertThatThrownBy(() -> new CheckpointSender(withLink)).isInstanceOf(IOException.class)
                .hasMessageContaining("not a regular file");

        Path withMetadata = checkpointDir(tmp.resolve("m"), 3, Map.of("CHECKPOINT", 1));
        assertThatThrownBy(() -> new CheckpointSender(withMetadata)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reserved");

        assertThatThrownBy(() -> new CheckpointSender(tmp.resolve("missing"))).isInstanceOf(IOException.class);
    }

    @Test
    void aFileThatChangesSizeAfterTheListingFailsTheSend() throws IOException {
        Path dir = checkpointDir(tmp.resolve("cp"), 4, Map.of("a", 10));
        CheckpointSender sender = new CheckpointSender(dir);
        Files.write(dir.resolve("a"), new byte[11]);
        assertThatThrownBy(() -> sender.send(REPLID, 1, Channels.newChannel(new ByteArrayOutputStream())))
                .isInstanceOf(IOException.class).hasMessageContaining("announced");
    }

    @Test
    void cleanupDeletesTheDirectoryAndIsIdempotent() throws IOException {
        Path dir = checkpointDir(tmp.resolve("cp"), 5, Map.of("a", 10, "b", 0));
        CheckpointSender sender = new CheckpointSender(dir);
        sender.cleanup();
        assertThat(Files.exists(dir)).isFalse();
        sender.cleanup();
        assertThat(Files.list(tmp)).isEmpty();
    }
}
