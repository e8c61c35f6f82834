package tandem.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.checkpoint.Fixtures.REPLID;
import static tandem.checkpoint.Fixtures.assertSameFiles;
import static tandem.checkpoint.Fixtures.checkpointDir;
import static tandem.checkpoint.Fixtures.feedInRandomChunks;
import static tandem.checkpoint.Fixtures.snapshot;
import static tandem.checkpoint.Fixtures.stream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import tandem.protocol.checkpoint.CheckpointChecksum;
import tandem.protocol.checkpoint.CheckpointStreamException;
import tandem.protocol.checkpoint.CheckpointStreamWriter;
import tandem.protocol.checkpoint.CheckpointTrailer;

@Timeout(60)
class CheckpointReceiverTest {

    /** The sizes around the writer's and the receiver's 64 KiB chunk, plus empty, tiny and 1 MiB. */
    private static final Map<String, Integer> SIZES = sizes();

    @TempDir
    Path tmp;

    private static Map<String, Integer> sizes() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("000012.sst", 1 << 20);
        m.put("000013.sst", 65536);
        m.put("000014.sst", 65535);
        m.put("000015.sst", 65537);
        m.put("CURRENT", 1);
        m.put("MANIFEST-000005", 0);
        return m;
    }

    private Path source(long seed) throws IOException {
        return checkpointDir(tmp.resolve("source-" + seed), seed, SIZES);
    }

    private Path root() {
        return tmp.resolve("root");
    }

    private static Map<String, byte[]> withoutMetadata(Map<String, byte[]> files) {
        Map<String, byte[]> m = new java.util.TreeMap<>(files);
        m.remove(StagedCheckpoint.METADATA_FILE);
        return m;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void aStreamFedInRandomChunksStagesByteIdenticalFiles(long seed) throws IOException {
        Path source = source(seed);
        CheckpointSender sender = new CheckpointSender(source);
        byte[] bytes = stream(sender, REPLID, 1234);
        assertThat(bytes).hasSize((int) sender.streamLength(REPLID, 1234));

        CheckpointReceiver receiver = CheckpointReceiver.open(root(), bytes.length);
        assertThat(feedInRandomChunks(receiver, bytes, seed * 31)).isTrue();
        assertThat(receiver.isComplete()).isTrue();
        assertThat(Files.exists(root().resolve("staged"))).isFalse(); // nothing is published before commit
        // the metadata is in place before the rename, so the rename alone publishes a complete checkpoint
        assertThat(Files.exists(root().resolve("incoming/CHECKPOINT"))).isTrue();
        StagedCheckpoint staged = receiver.commit();

        Path stagedDir = root().resolve("staged");
        assertThat(staged.directory()).isEqualTo(stagedDir.toAbsolutePath());
        assertThat(Files.exists(root().resolve("incoming"))).isFalse();
        assertSameFiles(withoutMetadata(snapshot(stagedDir)), snapshot(source));
        assertThat(staged.replicationId()).isEqualTo(REPLID);
        assertThat(staged.replicationOffset()).isEqualTo(1234);
        assertThat(staged.rdbSize()).isEqualTo(sender.rdbSize()).isEqualTo((1 << 20) + 3 * 65536 + 1);
        assertThat(staged.fileCount()).isEqualTo(6);
        assertThat(staged.checksumHex()).hasSize(64);
        assertThat(StagedCheckpoint.read(stagedDir)).isEqualTo(staged);
        assertThat(receiver.progress().bytesReceived()).isEqualTo(bytes.length);
        assertThat(receiver.progress().filesReceived()).isEqualTo(6);
        assertThat(receiver.progress().fraction()).isEqualTo(1.0);
    }

    @Test
    void aStreamThroughAPipeStagesByteIdenticalFiles() throws Exception {
        Path source = source(7);
        CheckpointSender sender = new CheckpointSender(source);
        long length = sender.streamLength(REPLID, -1L);
        Pipe pipe = Pipe.open();
        CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() -> {
            try (Pipe.SinkChannel sink = pipe.sink()) {
                return sender.send(REPLID, -1L, sink);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        Random r = new Random(7);
        StagedCheckpoint staged;
        try (Pipe.SourceChannel in = pipe.source();
                CheckpointReceiver receiver = CheckpointReceiver.open(root(), length)) {
            ByteBuffer buf = ByteBuffer.allocate(100_000);
            boolean done = false;
            while (!done) {
                buf.clear().limit(1 + r.nextInt(buf.capacity()));
                int n = in.read(buf);
                assertThat(n).as("the stream ended early: " + receiver.position()).isPositive();
                done = receiver.feed(buf.flip());
            }
            assertThat(in.read(buf.clear())).isEqualTo(-1); // nothing after the trailer
            staged = receiver.commit();
        }
        assertThat(sent.get()).isEqualTo(length);
        assertSameFiles(withoutMetadata(snapshot(staged.directory())), snapshot(source));
        assertThat(staged.replicationOffset()).isEqualTo(-1L); // 2^64-1 survives the metadata file
    }

    @Test
    void aZeroFileCheckpointStagesAnEmptyDirectoryWithItsMetadata() throws IOException {
        Path source = Files.createDirectory(tmp.resolve("empty"));
        StagedCheckpoint staged = Fixtures.stage(root(), source, 0);
        assertThat(staged.fileCount()).isZero();
        assertThat(staged.rdbSize()).isZero();
        assertThat(snapshot(staged.directory())).containsOnlyKeys(StagedCheckpoint.METADATA_FILE);
        assertThat(staged.checksumHex()).isEqualTo(new CheckpointChecksum().hex());
    }

    @Test
    void aFlippedByteFailsTheChecksumRemovesIncomingAndKeepsThePreviousStaged() throws IOException {
        StagedCheckpoint previous = Fixtures.stage(root(), checkpointDir(tmp.resolve("prev"), 99, Map.of("a", 10)), 5);
        Map<String, byte[]> before = snapshot(previous.directory());

        byte[] bytes = stream(new CheckpointSender(source(4)), REPLID, 77);
        // a byte inside the 1 MiB file: the framing stays valid, only the checksum can notice
        int at = indexOf(bytes, "000012.sst") + 200_000;
        bytes[at] ^= 0x40;
        CheckpointReceiver receiver = CheckpointReceiver.open(root(), bytes.length);
        assertThatThrownBy(() -> feedInRandomChunks(receiver, bytes, 4))
                .isInstanceOf(CheckpointStreamException.class).hasMessageContaining("checksum");
        assertThat(Files.exists(root().resolve("incoming"))).isFalse();
        assertSameFiles(snapshot(previous.directory()), before);
        assertThat(StagedCheckpoint.read(previous.directory())).isEqualTo(previous);
        assertThatThrownBy(receiver::commit).isInstanceOf(IllegalStateException.class).hasMessageContaining("aborted");
        assertThatThrownBy(() -> receiver.feed(ByteBuffer.allocate(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aTruncatedStreamThenAbortRemovesIncomingAndKeepsThePreviousStaged() throws IOException {
        StagedCheckpoint previous = Fixtures.stage(root(), checkpointDir(tmp.resolve("prev"), 98, Map.of("a", 10)), 5);
        Map<String, byte[]> before = snapshot(previous.directory());

        byte[] bytes = stream(new CheckpointSender(source(5)), REPLID, 77);
        CheckpointReceiver receiver = CheckpointReceiver.open(root(), bytes.length);
        assertThat(feedInRandomChunks(receiver, Arrays.copyOf(bytes, bytes.length / 2), 5)).isFalse();
        assertThat(snapshot(root().resolve("incoming"))).isNotEmpty();
        assertThat(receiver.position()).startsWith("in file");
        receiver.abort("connection lost");
        receiver.abort("again"); // idempotent

        assertThat(Files.exists(root().resolve("incoming"))).isFalse();
        assertSameFiles(snapshot(previous.directory()), before);
        assertThatThrownBy(receiver::commit).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("connection lost");
    }

    @Test
    void closingWithoutCommitAbortsAndClosingAfterCommitKeepsStaged() throws IOException {
        byte[] bytes = stream(new CheckpointSender(checkpointDir(tmp.resolve("s"), 3, Map.of("x", 100))), REPLID, 1);
        try (CheckpointReceiver receiver = CheckpointReceiver.open(root(), -1)) {
            assertThat(receiver.feed(ByteBuffer.wrap(bytes))).isTrue();
        }
        assertThat(Files.exists(root().resolve("incoming"))).isFalse();
        assertThat(Files.exists(root().resolve("staged"))).isFalse();

        StagedCheckpoint staged = Fixtures.stage(root(), tmp.resolve("s"), 1);
        assertThat(snapshot(staged.directory())).containsOnlyKeys("x", StagedCheckpoint.METADATA_FILE);
    }

    @Test
    void aLeftOverIncomingIsClearedAtTheNextReceive() throws IOException {
        Path incoming = Files.createDirectories(root().resolve("incoming"));
        Files.writeString(incoming.resolve("000099.sst"), "half a file from before the crash");
        Files.createDirectories(incoming.resolve("nested"));
        Files.writeString(incoming.resolve("nested/junk"), "junk");

        CheckpointReceiver receiver = CheckpointReceiver.open(root(), -1);
        assertThat(snapshot(incoming)).isEmpty();
        assertThat(Files.isDirectory(incoming)).isTrue();
        byte[] bytes = stream(new CheckpointSender(checkpointDir(tmp.resolve("s"), 3, Map.of("a", 3))), REPLID, 9);
        assertThat(receiver.feed(ByteBuffer.wrap(bytes))).isTrue();
        assertThat(snapshot(receiver.commit().directory())).containsOnlyKeys("a", StagedCheckpoint.METADATA_FILE);
    }

    @Test
    void aCommitReplacesThePreviousStaged() throws IOException {
        Fixtures.stage(root(), checkpointDir(tmp.resolve("one"), 1, Map.of("a", 10, "b", 20)), 1);
        Path two = checkpointDir(tmp.resolve("two"), 2, Map.of("c", 30));
        StagedCheckpoint staged = Fixtures.stage(root(), two, 2);
        assertSameFiles(withoutMetadata(snapshot(staged.directory())), snapshot(two));
        assertThat(staged.replicationOffset()).isEqualTo(2);
        assertThat(Files.exists(root().resolve("discarded"))).isFalse();
    }

    @Test
    void aStreamLongerOrShorterThanAnnouncedFails() throws IOException {
        byte[] bytes = stream(new CheckpointSender(checkpointDir(tmp.resolve("s"), 3, Map.of("a", 1000))), REPLID, 9);

        CheckpointReceiver tooShortAnnounced = CheckpointReceiver.open(root(), bytes.length - 1);
        assertThatThrownBy(() -> tooShortAnnounced.feed(ByteBuffer.wrap(bytes)))
                .isInstanceOf(CheckpointStreamException.class).hasMessageContaining("announced " + (bytes.length - 1));
        assertThat(Files.exists(root().resolve("incoming"))).isFalse();

        CheckpointReceiver tooLongAnnounced = CheckpointReceiver.open(root(), bytes.length + 1);
        assertThatThrownBy(() -> tooLongAnnounced.feed(ByteBuffer.wrap(bytes)))
                .isInstanceOf(CheckpointStreamException.class).hasMessageContaining("announced " + (bytes.length + 1));
        assertThat(Files.exists(root().resolve("incoming"))).isFalse();
        assertThat(Files.exists(root().resolve("staged"))).isFalse();
    }

    @Test
    void bytesAfterTheTrailerAreLeftInTheChunk() throws IOException {
        byte[] bytes = stream(new CheckpointSender(checkpointDir(tmp.resolve("s"), 3, Map.of("a", 10))), REPLID, 9);
        ByteBuffer chunk = ByteBuffer.allocate(bytes.length + 3).put(bytes).put(new byte[] {1, 2, 3}).flip();
        CheckpointReceiver receiver = CheckpointReceiver.open(root(), -1);
        assertThat(receiver.feed(chunk)).isTrue();
        assertThat(chunk.remaining()).isEqualTo(3);
        receiver.commit();
    }

    @Test
    void namesThatWouldEscapeOrClashWithTheMetadataAreRefused() throws IOException {
        try (CheckpointReceiver receiver = CheckpointReceiver.open(root(), -1)) {
            for (String bad : new String[] {"../x", "a/b", "/etc/passwd", "..", ".", "", "a\0b"}) {
                assertThatThrownBy(() -> receiver.fileStart(bad, 1)).as(bad)
                        .isInstanceOf(CheckpointStreamException.class);
            }
            assertThatThrownBy(() -> receiver.fileStart("CHECKPOINT", 1))
                    .isInstanceOf(CheckpointStreamException.class).hasMessageContaining("reserved");
            assertThat(snapshot(tmp)).isEmpty();
        }
    }

    @Test
    void aStreamCarryingAFileNamedLikeTheMetadataIsRefused() throws IOException {
        // a well-formed stream the reader accepts: only the receiver knows the name is reserved
        byte[] data = "x".getBytes(StandardCharsets.US_ASCII);
        CheckpointChecksum sum = new CheckpointChecksum();
        sum.beginFile("CHECKPOINT");
        sum.update(data, 0, 1);
        sum.endFile();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(CheckpointStreamWriter.prelude(1));
        out.writeBytes(CheckpointStreamWriter.fileHeader("CHECKPOINT", 1));
        out.writeBytes(data);
        out.writeBytes(CheckpointStreamWriter.trailer(new CheckpointTrailer(1, sum.hex(), REPLID, 3)));

        CheckpointReceiver receiver = CheckpointReceiver.open(root(), -1);
        assertThatThrownBy(() -> receiver.feed(ByteBuffer.wrap(out.toByteArray())))
                .isInstanceOf(CheckpointStreamException.class).hasMessageContaining("reserved");
        assertThat(Files.exists(root().resolve("incoming"))).isFalse();
    }

    @Test
    void commitBeforeTheEndIsRefusedAndChangesNothing() throws IOException {
        byte[] bytes = stream(new CheckpointSender(checkpointDir(tmp.resolve("s"), 3, Map.of("a", 10))), REPLID, 9);
        CheckpointReceiver receiver = CheckpointReceiver.open(root(), bytes.length);
        receiver.feed(ByteBuffer.wrap(bytes, 0, bytes.length - 1));
        assertThatThrownBy(receiver::commit).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("still receiving");
        assertThat(receiver.feed(ByteBuffer.wrap(bytes, bytes.length - 1, 1))).isTrue();
        assertThat(receiver.commit().fileCount()).isEqualTo(1);
    }

    @Test
    void progressReportsBytesTotalAndRateOnTheInjectedClock() throws IOException {
        AtomicLong now = new AtomicLong(1_000);
        Path source = checkpointDir(tmp.resolve("s"), 3, Map.of("a", 1 << 20));
        byte[] bytes = stream(new CheckpointSender(source), REPLID, 9);
        CheckpointReceiver receiver = CheckpointReceiver.open(root(), bytes.length, now::get);
        assertThat(receiver.progress().bytesPerSecond()).isZero();
        receiver.feed(ByteBuffer.wrap(bytes, 0, 1 << 19));
        now.addAndGet(500_000_000); // half a second
        CheckpointReceiver.Progress p = receiver.progress();
        assertThat(p.bytesReceived()).isEqualTo(1 << 19);
        assertThat(p.totalBytes()).isEqualTo(bytes.length);
        assertThat(p.bytesPerSecond()).isEqualTo((1 << 20) * 1.0);
        assertThat(p.fraction()).isBetween(0.49, 0.51);
        double left = (bytes.length - (1 << 19)) / (double) (1 << 20);
        assertThat(p.secondsLeft()).isCloseTo(left, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(p.toString()).contains("524288/" + bytes.length + " bytes", "1.0 MiB/s",
                String.format(java.util.Locale.ROOT, "%.1f s left", left));
        assertThat(CheckpointReceiver.open(tmp.resolve("r2"), -1).progress().fraction()).isEqualTo(-1);
    }

    private static int indexOf(byte[] haystack, String needle) {
        byte[] n = needle.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + n.length <= haystack.length; i++) {
            for (int j = 0; j < n.length; j++) {
                if (haystack[i + j] != n[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError(needle + " not found");
    }
}
