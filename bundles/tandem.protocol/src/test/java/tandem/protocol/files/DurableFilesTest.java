package tandem.protocol.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link DurableFiles#writeAtomically} on real files in a real directory, with real fsyncs. */
@Timeout(30)
class DurableFilesTest {

    @TempDir
    Path dir;

    @Test
    void theContentIsReplacedWholeAndNoTemporaryFileStays() throws IOException {
        Path target = dir.resolve("state");
        DurableFiles.writeAtomically(target, bytes("one\n"));
        assertThat(target).hasContent("one");
        DurableFiles.writeAtomically(target, bytes("two, longer than one\n"));
        assertThat(target).hasContent("two, longer than one");
        DurableFiles.writeAtomically(target, new byte[0]);
        assertThat(target).isEmptyFile();
        assertThat(dir.resolve("state.tmp")).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(target);
        }
    }

    @Test
    void aMissingDirectoryIsCreatedAndSynced() throws IOException {
        Path target = dir.resolve("a/b/epoch");
        DurableFiles.writeAtomically(target, bytes("7\n"));
        assertThat(target).hasContent("7");
        // a parent that is a file is refused, and the file stays
        assertThatThrownBy(() -> DurableFiles.writeAtomically(target.resolve("below-a-file"), bytes("x")))
                .isInstanceOf(IOException.class);
        assertThat(target).hasContent("7");
    }

    @Test
    void aReaderSeesTheOldContentOrTheNewNeverAPart() throws Exception {
        Path target = dir.resolve("registry");
        byte[] a = new byte[256 * 1024];
        byte[] b = new byte[128 * 1024];
        Arrays.fill(a, (byte) 'a');
        Arrays.fill(b, (byte) 'b');
        DurableFiles.writeAtomically(target, a);
        AtomicBoolean writing = new AtomicBoolean(true);
        CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
            int reads = 0;
            try {
                while (writing.get() || reads == 0) {
                    byte[] seen = Files.readAllBytes(target);
                    if (!Arrays.equals(seen, a) && !Arrays.equals(seen, b)) {
                        throw new AssertionError("read " + seen.length + " bytes that are neither version");
                    }
                    reads++;
                }
            } catch (IOException e) {
                throw new AssertionError("the file was missing or unreadable while being replaced", e);
            }
            return reads;
        });
        try {
            for (int i = 0; i < 60; i++) {
                DurableFiles.writeAtomically(target, i % 2 == 0 ? b : a);
            }
        } finally {
            writing.set(false);
        }
        assertThat(reader.get()).isPositive();
        assertThat(Files.readAllBytes(target)).isEqualTo(a);
    }

    @Test
    void aWriteThatFailsLeavesTheOldFileAndNoTemporaryFile() throws IOException {
        Path target = dir.resolve("authorized_keys");
        DurableFiles.writeAtomically(target, bytes("old\n"));
        assertThatThrownBy(() -> DurableFiles.write(target, null, ch -> {
            ch.write(ByteBuffer.wrap(bytes("half of the n")));
            throw new IOException("No space left on device");
        })).isInstanceOf(IOException.class).hasMessage("No space left on device");
        assertThat(target).hasContent("old");
        assertThat(dir.resolve("authorized_keys.tmp")).doesNotExist();
    }

    @Test
    void aRenameThatFailsLeavesTheOldFile() throws IOException {
        Path target = dir.resolve("state");
        DurableFiles.writeAtomically(target, bytes("old\n"));
        // the temporary file's name is taken by a directory that cannot be removed: nothing can be written
        Files.createDirectories(dir.resolve("state.tmp/inside"));
        assertThatThrownBy(() -> DurableFiles.writeAtomically(target, bytes("new\n")))
                .isInstanceOf(IOException.class);
        assertThat(target).hasContent("old");
        // a target that is a directory cannot be replaced by a file: the rename fails, the directory stays
        Path directory = dir.resolve("d");
        Files.createDirectories(directory.resolve("inside"));
        assertThatThrownBy(() -> DurableFiles.writeAtomically(directory, bytes("new\n")))
                .isInstanceOf(IOException.class);
        assertThat(directory.resolve("inside")).isDirectory();
        assertThat(dir.resolve("d.tmp")).doesNotExist();
    }

    @Test
    void aTemporaryFileACrashLeftIsReplaced() throws IOException {
        Path target = dir.resolve("state");
        DurableFiles.writeAtomically(target, bytes("old\n"));
        Files.writeString(dir.resolve("state.tmp"), "torn ha");
        assertThat(target).hasContent("old");
        DurableFiles.writeAtomically(target, bytes("new\n"));
        assertThat(target).hasContent("new");
        assertThat(dir.resolve("state.tmp")).doesNotExist();
    }

    @Test
    void theNewFileHasTheGivenPermissionsFromTheStart() throws IOException {
        Path target = dir.resolve("node.key");
        var ownerOnly = PosixFilePermissions.fromString("rw-------");
        DurableFiles.write(target, ownerOnly, ch -> {
            // while the content is written the temporary file is private already
            assertThat(Files.getPosixFilePermissions(dir.resolve("node.key.tmp"))).isEqualTo(ownerOnly);
            ch.write(ByteBuffer.wrap(bytes("secret")));
        });
        assertThat(Files.getPosixFilePermissions(target)).isEqualTo(ownerOnly);
        DurableFiles.writeAtomically(target, bytes("public"), PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(Files.getPosixFilePermissions(target)).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
