package tandem.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Checkpoint directories with seeded contents, streams in memory, and directory snapshots to compare. */
final class Fixtures {

    static final String REPLID = "8c1f0e3d5a7b9c2e4f6a8b0c1d2e3f4a5b6c7d8e";

    private Fixtures() {
    }

    /** Writes {@code name → size} files of seeded random bytes into {@code dir} (created). */
    static Path checkpointDir(Path dir, long seed, Map<String, Integer> sizes) throws IOException {
        Files.createDirectories(dir);
        Random r = new Random(seed);
        for (Map.Entry<String, Integer> e : sizes.entrySet()) {
            byte[] b = new byte[e.getValue()];
            r.nextBytes(b);
            Files.write(dir.resolve(e.getKey()), b);
        }
        return dir;
    }

    static byte[] stream(CheckpointSender sender, String replid, long offset) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = sender.send(replid, offset, Channels.newChannel(out));
        assertThat(n).isEqualTo(out.size());
        return out.toByteArray();
    }

    /**
     * Feeds {@code bytes} in seeded random chunks, mostly small and sometimes large, so splits fall inside
     * headers and across 64 KiB boundaries; each chunk at a random offset of a larger buffer.
     *
     * @return whether the receiver reported completion on the last chunk
     */
    static boolean feedInRandomChunks(CheckpointReceiver receiver, byte[] bytes, long seed) throws IOException {
        Random r = new Random(seed);
        int at = 0;
        boolean done = false;
        while (at < bytes.length) {
            int max = switch (r.nextInt(4)) {
                case 0 -> 8;
                case 1 -> 1000;
                case 2 -> 70_000;
                default -> 300_000;
            };
            int n = Math.min(bytes.length - at, 1 + r.nextInt(max));
            int pad = r.nextInt(16);
            ByteBuffer chunk = ByteBuffer.allocate(pad + n + 16);
            chunk.position(pad);
            chunk.put(bytes, at, n);
            chunk.flip().position(pad);
            done = receiver.feed(chunk);
            assertThat(chunk.hasRemaining()).isFalse();
            at += n;
        }
        return done;
    }

    /** @return every regular file under {@code dir}, by relative path, with its bytes; empty when dir is missing */
    static Map<String, byte[]> snapshot(Path dir) {
        Map<String, byte[]> m = new TreeMap<>();
        if (!Files.exists(dir)) {
            return m;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(Files::isRegularFile).forEach(p -> {
                try {
                    m.put(dir.relativize(p).toString(), Files.readAllBytes(p));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }

    /** Asserts that two snapshots hold the same names and the same bytes. */
    static void assertSameFiles(Map<String, byte[]> actual, Map<String, byte[]> expected) {
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        for (String k : expected.keySet()) {
            assertThat(actual.get(k)).as(k).isEqualTo(expected.get(k));
        }
    }

    /** Receives {@code source}'s checkpoint into {@code root}/staged, with the given trailer offset. */
    static StagedCheckpoint stage(Path root, Path source, long offset) throws IOException {
        CheckpointSender sender = new CheckpointSender(source);
        byte[] bytes = stream(sender, REPLID, offset);
        try (CheckpointReceiver receiver = CheckpointReceiver.open(root, bytes.length)) {
            assertThat(receiver.feed(ByteBuffer.wrap(bytes))).isTrue();
            return receiver.commit();
        }
    }
}
