package tandem.protocol.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static tandem.protocol.checkpoint.Checkpoints.REPLID;
import static tandem.protocol.checkpoint.Checkpoints.bytes;
import static tandem.protocol.checkpoint.Checkpoints.concat;
import static tandem.protocol.checkpoint.Checkpoints.hex;
import static tandem.protocol.checkpoint.Checkpoints.sha256;
import static tandem.protocol.checkpoint.Checkpoints.utf8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Byte vectors written by hand from the grammar; the checksums computed here with MessageDigest from the definition
 * and pinned as literals (SHA-256 of the empty input is the well-known e3b0c442…).
 */
@Timeout(10)
class CheckpointGoldenTest {

    static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    static final byte[] SST = bytes("hello");
    static final byte[] CURRENT = bytes("MANIFEST-000005\n");
    /** SHA-256("000001.sst" ‖ SHA-256("hello") ‖ "CURRENT" ‖ SHA-256("MANIFEST-000005\n")). */
    static final String TWO_CHECKSUM = "ef6ed9f032f1cb7cfb1945b9900af9ea77209e0a7b8e5573513fbba6265ff61a";

    static final byte[] ZERO = bytes("$FROGDB_CHECKPOINT\r\n"
            + "0\r\n"
            + "$109\r\n0:" + EMPTY_SHA256 + ":" + REPLID + ":0\r\n");

    static final byte[] TWO = bytes("$FROGDB_CHECKPOINT\r\n"
            + "2\r\n"
            + "$10\r\n000001.sst\r\n$5\r\nhello"
            + "$7\r\nCURRENT\r\n$16\r\nMANIFEST-000005\n"
            + "$113\r\n21:" + TWO_CHECKSUM + ":" + REPLID + ":1234\r\n");

    @Test
    void checksumsFromTheDefinition() {
        assertThat(hex(sha256())).isEqualTo(EMPTY_SHA256);
        assertThat(hex(sha256(utf8("000001.sst"), sha256(SST), utf8("CURRENT"), sha256(CURRENT))))
                .isEqualTo(TWO_CHECKSUM);
        assertThat(new CheckpointChecksum().hex()).isEqualTo(EMPTY_SHA256);

        CheckpointChecksum c = new CheckpointChecksum();
        c.beginFile("000001.sst");
        c.update(ByteBuffer.wrap(SST, 0, 2));
        c.update(SST, 2, 3);
        assertThat(c.endFile()).isEqualTo(sha256(SST));
        c.beginFile(utf8("CURRENT"));
        c.update(ByteBuffer.allocateDirect(16).put(CURRENT).flip());
        assertThat(c.endFile()).isEqualTo(sha256(CURRENT));
        assertThat(c.hex()).isEqualTo(TWO_CHECKSUM);
        assertThat(c.digest()).isEqualTo(sha256(utf8("000001.sst"), sha256(SST), utf8("CURRENT"), sha256(CURRENT)));
    }

    @Test
    void zeroFilesVector() throws IOException {
        CheckpointTrailer t = new CheckpointTrailer(0, EMPTY_SHA256, REPLID, 0);
        assertThat(concat(CheckpointStreamWriter.prelude(0), CheckpointStreamWriter.trailer(t))).isEqualTo(ZERO);
        assertThat(CheckpointStreamWriter.streamLength(List.of(), t)).isEqualTo(ZERO.length);
        assertThat(CheckpointStreamWriter.streamLength(List.of(), REPLID, 0)).isEqualTo(ZERO.length);

        Checkpoints.Recorder r = Checkpoints.read(ZERO);
        assertThat(r.events).containsExactly("trailer 0:" + EMPTY_SHA256 + ":" + REPLID + ":0");
        assertThat(r.trailer).isEqualTo(t);
        assertThat(r.trailer.hasPsyncReplicationId()).isTrue();
    }

    @Test
    void twoFilesVector() throws IOException {
        CheckpointTrailer t = new CheckpointTrailer(21, TWO_CHECKSUM, REPLID, 1234);
        assertThat(concat(CheckpointStreamWriter.prelude(2),
                CheckpointStreamWriter.fileHeader("000001.sst", 5), SST,
                CheckpointStreamWriter.fileHeader("CURRENT", 16), CURRENT,
                CheckpointStreamWriter.trailer(t))).isEqualTo(TWO);
        List<CheckpointFile> files = List.of(new CheckpointFile("CURRENT", 16), new CheckpointFile("000001.sst", 5));
        assertThat(CheckpointStreamWriter.streamLength(files, t)).isEqualTo(TWO.length);
        assertThat(CheckpointStreamWriter.streamLength(files, REPLID, 1234)).isEqualTo(TWO.length);
        assertThat(CheckpointStreamWriter.sortByName(files)).extracting(CheckpointFile::name)
                .containsExactly("000001.sst", "CURRENT");
        // the hand-built helper agrees with the literal vector
        assertThat(new Checkpoints.Builder().file("000001.sst", SST).file("CURRENT", CURRENT).build()).isEqualTo(TWO);

        Checkpoints.Recorder r = Checkpoints.read(TWO);
        assertThat(r.events).containsExactly(
                "start 000001.sst 5", "end 000001.sst " + hex(sha256(SST)),
                "start CURRENT 16", "end CURRENT " + hex(sha256(CURRENT)),
                "trailer 21:" + TWO_CHECKSUM + ":" + REPLID + ":1234");
        assertThat(r.file("000001.sst")).isEqualTo(SST);
        assertThat(r.file("CURRENT")).isEqualTo(CURRENT);
        assertThat(r.trailer).isEqualTo(t);
    }

    @Test
    void writerOverFilesOnDiskProducesTheVector(@TempDir Path dir) throws IOException {
        Path current = Files.write(dir.resolve("CURRENT"), CURRENT);
        Path sst = Files.write(dir.resolve("000001.sst"), SST);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = CheckpointStreamWriter.write(List.of(current, sst), REPLID, 1234, Channels.newChannel(out));
        assertThat(out.toByteArray()).isEqualTo(TWO);
        assertThat(n).isEqualTo(TWO.length);

        out.reset();
        assertThat(CheckpointStreamWriter.write(List.of(), REPLID, 0, Channels.newChannel(out))).isEqualTo(ZERO.length);
        assertThat(out.toByteArray()).isEqualTo(ZERO);
    }
}
