package tandem.protocol.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.protocol.checkpoint.Checkpoints.REPLID;
import static tandem.protocol.checkpoint.Checkpoints.random;
import static tandem.protocol.checkpoint.Checkpoints.utf8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer over real files into a pipe (chunked copy), a file channel and a socket (transferTo): the reader
 * accepts what it writes, the files arrive intact, and the length is what streamLength announced.
 */
@Timeout(10)
class CheckpointWriterTest {

    static final int[] SIZES = {0, 1, 65535, 65536, 65537, 200_000, 16};
    static final String[] NAMES = {"000007.log", "000009.sst", "000010.sst", "000011.sst", "MANIFEST-000012",
        "OPTIONS-000014", "CURRENT"};

    @TempDir
    Path dir;
    List<Path> files = new ArrayList<>();
    List<CheckpointFile> entries = new ArrayList<>();

    @BeforeEach
    void files() throws IOException {
        for (int i = 0; i < NAMES.length; i++) {
            files.add(Files.write(dir.resolve(NAMES[i]), random(100 + i, SIZES[i])));
            entries.add(new CheckpointFile(NAMES[i], SIZES[i]));
        }
        Collections.shuffle(files, new Random(7));
    }

    /** What the stream must carry, from the definition. */
    String expectedChecksum() throws IOException {
        List<CheckpointFile> sorted = CheckpointStreamWriter.sortByName(entries);
        List<byte[]> names = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        for (CheckpointFile f : sorted) {
            names.add(utf8(f.name()));
            contents.add(Files.readAllBytes(dir.resolve(f.name())));
        }
        return Checkpoints.checksum(names, contents);
    }

    void assertStream(byte[] stream, long returned) throws IOException {
        long announced = CheckpointStreamWriter.streamLength(entries, REPLID, 77);
        assertThat(returned).isEqualTo(announced);
        assertThat(stream).hasSize((int) announced);
        Checkpoints.Recorder r = Checkpoints.readFragmented(stream, 11, 70_000);
        assertThat(r.files.keySet()).containsExactly("000007.log", "000009.sst", "000010.sst", "000011.sst", "CURRENT",
                "MANIFEST-000012", "OPTIONS-000014");
        for (String n : NAMES) {
            assertThat(r.file(n)).as(n).isEqualTo(Files.readAllBytes(dir.resolve(n)));
        }
        long total = 0;
        for (int s : SIZES) {
            total += s;
        }
        assertThat(r.trailer).isEqualTo(new CheckpointTrailer(total, expectedChecksum(), REPLID, 77));
    }

    /** Runs {@code write} on a thread while this one drains {@code in}; @return the bytes and the returned length */
    static byte[] drain(Callable<Long> write, ReadableByteChannel in, long[] returned) throws Exception {
        FutureTask<Long> task = new FutureTask<>(write);
        Thread t = new Thread(task, "checkpoint-writer");
        t.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(8192);
        while (in.read(buf.clear()) >= 0) {
            out.write(buf.array(), 0, buf.position());
        }
        returned[0] = task.get();
        return out.toByteArray();
    }

    @Test
    void intoAPipe() throws Exception {
        Pipe pipe = Pipe.open();
        long[] returned = new long[1];
        byte[] stream = drain(() -> {
            try (Pipe.SinkChannel sink = pipe.sink()) {
                return CheckpointStreamWriter.write(files, REPLID, 77, sink);
            }
        }, pipe.source(), returned);
        assertStream(stream, returned[0]);
        pipe.source().close();
    }

    @Test
    void intoAFileChannelByTransferTo() throws IOException {
        Path out = dir.resolve("out").resolve("stream.bin");
        Files.createDirectories(out.getParent());
        long n;
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {'x'})); // the stream starts where the channel is
            n = CheckpointStreamWriter.write(files, REPLID, 77, ch);
        }
        byte[] all = Files.readAllBytes(out);
        byte[] stream = java.util.Arrays.copyOfRange(all, 1, all.length);
        assertStream(stream, n);

        ByteArrayOutputStream chunked = new ByteArrayOutputStream();
        CheckpointStreamWriter.write(files, REPLID, 77, Channels.newChannel(chunked));
        assertThat(chunked.toByteArray()).isEqualTo(stream);
    }

    @Test
    void intoASocketByTransferTo() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress());
                SocketChannel accepted = server.accept()) {
            long[] returned = new long[1];
            byte[] stream = drain(() -> {
                try {
                    return CheckpointStreamWriter.write(files, REPLID, 77, client);
                } finally {
                    client.shutdownOutput();
                }
            }, accepted, returned);
            assertStream(stream, returned[0]);
        }
    }

    @Test
    void refusals() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        var ch = Channels.newChannel(out);
        Path other = Files.createDirectories(dir.resolve("other"));
        Path twin = Files.write(other.resolve("CURRENT"), new byte[3]);
        List<Path> withTwin = new ArrayList<>(files);
        withTwin.add(twin);
        assertThatThrownBy(() -> CheckpointStreamWriter.write(withTwin, REPLID, 0, ch))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("two files named 'CURRENT'");
        assertThatThrownBy(() -> CheckpointStreamWriter.write(files, "a:b", 0, ch))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replication_id");
        assertThatThrownBy(() -> CheckpointStreamWriter.write(List.of(Path.of("/")), REPLID, 0, ch))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no file name in /");
        assertThatThrownBy(() -> CheckpointStreamWriter.write(List.of(dir.resolve("missing")), REPLID, 0, ch))
                .isInstanceOf(IOException.class);
        assertThat(out.size()).isZero(); // all refused before the first byte

        Pipe pipe = Pipe.open();
        pipe.sink().configureBlocking(false);
        assertThatThrownBy(() -> CheckpointStreamWriter.write(files, REPLID, 0, pipe.sink()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("out must be in blocking mode");
        pipe.sink().close();
        pipe.source().close();
    }
}
