package tandem.protocol.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.protocol.checkpoint.Checkpoints.bytes;
import static tandem.protocol.checkpoint.Checkpoints.concat;
import static tandem.protocol.checkpoint.Checkpoints.random;
import static tandem.protocol.checkpoint.CheckpointGoldenTest.TWO;
import static tandem.protocol.checkpoint.CheckpointGoldenTest.TWO_CHECKSUM;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Round trips fed whole, byte by byte and in random fragments; truncation; what follows the stream; failures. */
@Timeout(10)
class CheckpointReaderTest {

    /** Files of awkward sizes: empty, one byte, around the writer's 64 KiB chunk. */
    static Checkpoints.Builder sample() {
        return new Checkpoints.Builder()
                .file("000007.log", new byte[0])
                .file("000009.sst", random(1, 65537))
                .file("000010.sst", random(2, 65536))
                .file("CURRENT", bytes("MANIFEST-000011\n"))
                .file("IDENTITY", random(3, 1))
                .file("MANIFEST-000011", random(4, 70000))
                .file("OPTIONS-000013", random(5, 65535))
                .file("zz-é-ü", random(6, 300));
    }

    static void assertSample(Checkpoints.Builder b, Checkpoints.Recorder r) {
        assertThat(r.files.keySet()).containsExactly(b.names.stream().map(n -> new String(n,
                java.nio.charset.StandardCharsets.UTF_8)).toArray(String[]::new));
        for (int i = 0; i < b.names.size(); i++) {
            assertThat(r.file(new String(b.names.get(i), java.nio.charset.StandardCharsets.UTF_8)))
                    .isEqualTo(b.contents.get(i));
        }
        assertThat(r.trailer.format()).isEqualTo(b.metadata());
        assertThat(r.events).hasSize(2 * b.names.size() + 1);
    }

    @Test
    void whole() throws IOException {
        Checkpoints.Builder b = sample();
        assertSample(b, Checkpoints.read(b.build()));
    }

    @Test
    void byteByByte() throws IOException {
        byte[] s = TWO;
        Checkpoints.Recorder r = new Checkpoints.Recorder();
        CheckpointStreamReader reader = new CheckpointStreamReader(r);
        for (int i = 0; i < s.length; i++) {
            assertThat(reader.isComplete()).isFalse();
            ByteBuffer one = ByteBuffer.wrap(s, i, 1);
            assertThat(reader.feed(one)).isEqualTo(i == s.length - 1);
            assertThat(one.hasRemaining()).isFalse();
            assertThat(reader.bytesConsumed()).isEqualTo(i + 1);
        }
        assertThat(r.events).isEqualTo(Checkpoints.read(TWO).events);
        assertThat(r.file("CURRENT")).isEqualTo(bytes("MANIFEST-000005\n"));

        Checkpoints.Builder b = sample();
        assertSample(b, Checkpoints.readFragmented(b.build(), 0, 1));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomFragments(long seed) throws IOException {
        Checkpoints.Builder b = sample();
        byte[] s = b.build();
        assertSample(b, Checkpoints.readFragmented(s, seed, 7));
        assertSample(b, Checkpoints.readFragmented(s, seed, 1000));
        assertSample(b, Checkpoints.readFragmented(s, seed, 100_000));
        assertThat(Checkpoints.readFragmented(TWO, seed, 5).events).isEqualTo(Checkpoints.read(TWO).events);
    }

    @Test
    void truncatedIsIncompleteWithoutErrorUntilTheRestArrives() throws IOException {
        for (int cut = 0; cut < TWO.length; cut++) {
            Checkpoints.Recorder r = new Checkpoints.Recorder();
            CheckpointStreamReader reader = new CheckpointStreamReader(r);
            assertThat(reader.feed(ByteBuffer.wrap(TWO, 0, cut))).isFalse();
            assertThat(reader.isComplete()).isFalse();
            assertThat(reader.bytesConsumed()).isEqualTo(cut);
            assertThat(reader.progress()).isNotEqualTo("complete");
            assertThat(r.trailer).isNull();
            assertThat(reader.feed(ByteBuffer.wrap(TWO, cut, TWO.length - cut))).isTrue();
            assertThat(r.trailer).isNotNull();
            assertThat(reader.progress()).isEqualTo("complete");
        }
    }

    @Test
    void progressNamesWhereTheStreamStopped() throws IOException {
        CheckpointStreamReader reader = new CheckpointStreamReader(new Checkpoints.Recorder());
        int at = indexOf(TWO, bytes("hello")) + 2;
        reader.feed(ByteBuffer.wrap(TWO, 0, at));
        assertThat(reader.progress()).isEqualTo("in file 1 of 2 ('000001.sst'), 2 of 5 bytes");
        reader.feed(ByteBuffer.wrap(TWO, at, 3 + 4 + 1)); // "llo", "$7\r\n", "C"
        assertThat(reader.progress()).isEqualTo("before file 2 of 2, in its name, 1 of 9 bytes");
    }

    @Test
    void bytesAfterTheTrailerAreLeft() throws IOException {
        byte[] s = concat(TWO, bytes("+NEXT\r\n"));
        Checkpoints.Recorder r = new Checkpoints.Recorder();
        CheckpointStreamReader reader = new CheckpointStreamReader(r);
        ByteBuffer b = ByteBuffer.wrap(s);
        assertThat(reader.feed(b)).isTrue();
        assertThat(b.position()).isEqualTo(TWO.length);
        assertThat(b.remaining()).isEqualTo(7);
        assertThat(reader.bytesConsumed()).isEqualTo(TWO.length);
        // more feeds consume nothing
        assertThat(reader.feed(b)).isTrue();
        assertThat(b.position()).isEqualTo(TWO.length);
        assertThat(r.events).hasSize(5);
    }

    @Test
    void flippedByteInAFileIsAChecksumMismatch() {
        byte[] s = TWO.clone();
        int at = indexOf(s, bytes("hello"));
        s[at + 1] ^= 0x01; // "hdllo"
        String computed = Checkpoints.checksum(List.of(bytes("000001.sst"), bytes("CURRENT")),
                List.of(bytes("hdllo"), bytes("MANIFEST-000005\n")));
        assertThatThrownBy(() -> Checkpoints.read(s)).isInstanceOf(CheckpointStreamException.class)
                .hasMessage("checksum mismatch: stream says " + TWO_CHECKSUM + ", computed " + computed);
        // also in fragments: the check happens at the trailer whatever the split
        assertThatThrownBy(() -> Checkpoints.readFragmented(s, 9, 3)).hasMessageStartingWith("checksum mismatch");
    }

    @Test
    void rdbSizeMismatch() {
        Checkpoints.Builder b = new Checkpoints.Builder().file("a", bytes("xyz"));
        b.rdbSize = "4";
        assertThatThrownBy(() -> Checkpoints.read(b.build())).isInstanceOf(CheckpointStreamException.class)
                .hasMessage("rdb_size mismatch: stream says 4, received 3");
    }

    @Test
    void aFailedReaderStaysFailed() throws IOException {
        CheckpointStreamReader reader = new CheckpointStreamReader(new Checkpoints.Recorder());
        assertThatThrownBy(() -> reader.feed(ByteBuffer.wrap(bytes("$FROGDB_SNAPSHOT\r\n"))))
                .isInstanceOf(CheckpointStreamException.class)
                .hasMessage("bad marker: expected '$FROGDB_CHECKPOINT\\r\\n', got '$FROGDB_S'");
        assertThatThrownBy(() -> reader.feed(ByteBuffer.wrap(TWO))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bad marker");
    }

    @Test
    void listenerExceptionsPropagate() {
        CheckpointStreamReader reader = new CheckpointStreamReader(new Checkpoints.Recorder() {
            @Override
            public void fileData(ByteBuffer data) throws IOException {
                throw new IOException("disk full");
            }
        });
        assertThatThrownBy(() -> reader.feed(ByteBuffer.wrap(TWO))).isInstanceOf(IOException.class)
                .hasMessage("disk full");
        assertThatThrownBy(() -> reader.feed(ByteBuffer.allocate(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void fileDataSlicesAreViewsOfTheFedChunk() throws IOException {
        // a file body inside a larger direct buffer arrives without copies: positions relative to the slice
        byte[] s = TWO;
        ByteBuffer direct = ByteBuffer.allocateDirect(s.length + 10);
        direct.position(5);
        direct.put(s).flip().position(5);
        Checkpoints.Recorder r = Checkpoints.read(s);
        Checkpoints.Recorder d = new Checkpoints.Recorder();
        assertThat(new CheckpointStreamReader(d).feed(direct)).isTrue();
        assertThat(d.events).isEqualTo(r.events);
        assertThat(d.file("000001.sst")).isEqualTo(bytes("hello"));
    }

    @Test
    void aMarkerThatIsNotOneFailsAtTheFirstWrongByte() {
        CheckpointStreamReader reader = new CheckpointStreamReader(new Checkpoints.Recorder());
        assertThatThrownBy(() -> reader.feed(ByteBuffer.wrap(bytes("GET / HTTP/1.1\r\n"))))
                .hasMessage("bad marker: expected '$FROGDB_CHECKPOINT\\r\\n', got 'G'");
        CheckpointStreamReader lf = new CheckpointStreamReader(new Checkpoints.Recorder());
        assertThatThrownBy(() -> lf.feed(ByteBuffer.wrap(bytes("$FROGDB_CHECKPOINT\n0\r\n"))))
                .hasMessage("bad marker: expected '$FROGDB_CHECKPOINT\\r\\n', got '$FROGDB_CHECKPOINT\\n'");
    }

    static int indexOf(byte[] hay, byte[] needle) {
        for (int i = 0; i + needle.length <= hay.length; i++) {
            if (Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }
}
