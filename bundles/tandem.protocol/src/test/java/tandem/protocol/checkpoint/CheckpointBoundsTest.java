package tandem.protocol.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.protocol.checkpoint.Checkpoints.REPLID;
import static tandem.protocol.checkpoint.Checkpoints.bytes;
import static tandem.protocol.checkpoint.Checkpoints.concat;
import static tandem.protocol.checkpoint.Checkpoints.utf8;
import static tandem.protocol.checkpoint.CheckpointGoldenTest.EMPTY_SHA256;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The reader against every limit (at it and one past), garbage numbers, bad names and bad trailers. */
@Timeout(10)
class CheckpointBoundsTest {

    static final String PRELUDE = "$FROGDB_CHECKPOINT\r\n";

    /** Feeds {@code stream} whole and expects a CheckpointStreamException; @return the reader */
    static CheckpointStreamReader refuse(byte[] stream, String message) {
        CheckpointStreamReader reader = new CheckpointStreamReader(new Checkpoints.Recorder());
        assertThatThrownBy(() -> reader.feed(ByteBuffer.wrap(stream))).isInstanceOf(CheckpointStreamException.class)
                .hasMessage(message);
        return reader;
    }

    /** Feeds {@code stream} and expects no error and no completion; @return the reader */
    static CheckpointStreamReader pending(byte[] stream, Checkpoints.Recorder r) throws IOException {
        CheckpointStreamReader reader = new CheckpointStreamReader(r);
        ByteBuffer b = ByteBuffer.wrap(stream);
        assertThat(reader.feed(b)).isFalse();
        assertThat(b.hasRemaining()).isFalse();
        return reader;
    }

    @Test
    void nameLengthAtTheLimit() throws IOException {
        String name = "a".repeat(CheckpointStream.MAX_NAME_LENGTH);
        Checkpoints.Builder b = new Checkpoints.Builder().file(name, bytes("x"));
        assertThat(Checkpoints.read(b.build()).file(name)).isEqualTo(bytes("x"));
        assertThat(Checkpoints.readFragmented(b.build(), 3, 5000).events).hasSize(3);
        assertThat(CheckpointStreamWriter.fileHeader(name, 1)).hasSize(1 + 5 + 2 + 65536 + 2 + 1 + 1 + 2);
    }

    @Test
    void nameLengthOnePastTheLimitIsRefusedBeforeAnyNameByte() {
        byte[] s = bytes(PRELUDE + "1\r\n$65537\r\n");
        CheckpointStreamReader reader = refuse(s, "file name of 65537 bytes exceeds 65536");
        assertThat(reader.bytesConsumed()).isEqualTo(s.length);
        refuse(bytes(PRELUDE + "1\r\n$99999999999999999999\r\n"),
                "file name of 99999999999999999999 bytes exceeds 65536");
        assertThatThrownBy(() -> CheckpointStreamWriter.fileHeader("a".repeat(65537), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("file name of 65537 bytes exceeds 65536");
    }

    @Test
    void fileCountAtTheLimitAndOnePast() throws IOException {
        CheckpointStreamReader reader = pending(bytes(PRELUDE + "1000000\r\n"), new Checkpoints.Recorder());
        assertThat(reader.progress()).isEqualTo("before file 1 of 1000000, in its name length");
        reader.feed(ByteBuffer.wrap(bytes("$1\r\na\r\n$0\r\n$1\r\nb\r\n$2\r\nxy")));
        assertThat(reader.progress()).isEqualTo("before file 3 of 1000000, in its name length");
        assertThat(CheckpointStreamWriter.prelude(1_000_000)).isEqualTo(bytes(PRELUDE + "1000000\r\n"));

        refuse(bytes(PRELUDE + "1000001\r\n"), "file count 1000001 exceeds 1000000");
        assertThatThrownBy(() -> CheckpointStreamWriter.prelude(1_000_001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CheckpointStreamWriter.prelude(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void metadataLengthAtTheLimitAndOnePast() throws IOException {
        // 0:<64 hex>:<id>:0 is 69 bytes plus the id
        Checkpoints.Builder b = new Checkpoints.Builder();
        b.replicationId = "r".repeat(CheckpointStream.MAX_METADATA_LENGTH - 69);
        b.offset = "0";
        assertThat(b.metadata().length()).isEqualTo(65536);
        Checkpoints.Recorder r = Checkpoints.read(b.build());
        assertThat(r.trailer.replicationId()).isEqualTo(b.replicationId);
        assertThat(r.trailer.hasPsyncReplicationId()).isFalse();
        CheckpointTrailer t = new CheckpointTrailer(0, EMPTY_SHA256, b.replicationId, 0);
        assertThat(CheckpointStreamWriter.trailer(t)).isEqualTo(b.trailer());

        CheckpointTrailer over = new CheckpointTrailer(0, EMPTY_SHA256, b.replicationId + "r", 0);
        assertThatThrownBy(() -> CheckpointStreamWriter.trailer(over)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("metadata of 65537 bytes exceeds 65536");
        byte[] s = bytes(PRELUDE + "0\r\n$65537\r\n");
        assertThat(refuse(s, "metadata of 65537 bytes exceeds 65536").bytesConsumed()).isEqualTo(s.length);
    }

    @Test
    void fileSizeAtTheLimitAndOnePast() throws IOException {
        Checkpoints.Recorder r = new Checkpoints.Recorder();
        CheckpointStreamReader reader = pending(bytes(PRELUDE + "1\r\n$1\r\na\r\n$4611686018427387904\r\n"), r);
        assertThat(r.events).containsExactly("start a 4611686018427387904");
        reader.feed(ByteBuffer.wrap(bytes("xyz")));
        assertThat(reader.progress()).isEqualTo("in file 1 of 1 ('a'), 3 of 4611686018427387904 bytes");
        assertThat(CheckpointStreamWriter.fileHeader("a", 1L << 62)).isEqualTo(bytes("$1\r\na\r\n$4611686018427387904\r\n"));

        refuse(bytes(PRELUDE + "1\r\n$1\r\na\r\n$4611686018427387905\r\n"),
                "file 'a' size 4611686018427387905 exceeds 2^62 (4611686018427387904)");
        refuse(bytes(PRELUDE + "1\r\n$1\r\na\r\n$99999999999999999999\r\n"),
                "file 'a' size 99999999999999999999 exceeds 2^62 (4611686018427387904)");
        assertThatThrownBy(() -> CheckpointStreamWriter.fileHeader("a", (1L << 62) + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CheckpointStreamWriter.fileHeader("a", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    static Stream<Arguments> garbageNumbers() {
        String file = "1\r\n$1\r\na\r\n";
        return Stream.of(
                Arguments.of(PRELUDE + "abc\r\n", "file count garbage 'abc'"),
                Arguments.of(PRELUDE + "-1\r\n", "file count garbage '-1'"),
                Arguments.of(PRELUDE + "+1\r\n", "file count garbage '+1'"),
                Arguments.of(PRELUDE + "\r\n", "file count garbage ''"),
                Arguments.of(PRELUDE + "01\r\n", "file count garbage '01'"),
                Arguments.of(PRELUDE + "1 \r\n", "file count garbage '1 '"),
                Arguments.of(PRELUDE + "0x10\r\n", "file count garbage '0x10'"),
                Arguments.of(PRELUDE + "$1\r\n", "file count garbage '$1'"),
                Arguments.of(PRELUDE + "1\n", "file count line does not end with CRLF: '1\\n'"),
                Arguments.of(PRELUDE + "1\r2\r\n", "file count garbage '1\\r2'"),
                Arguments.of(PRELUDE + "1234567890123456789012345\r\n",
                        "file count line exceeds 22 bytes without LF: '1234567890123456789012…'"),
                Arguments.of(PRELUDE + "1\r\n5\r\nabcde\r\n", "file name length does not start with '$': '5\\r\\n'"),
                Arguments.of(PRELUDE + "1\r\n$-5\r\n", "file name length garbage '-5'"),
                Arguments.of(PRELUDE + "1\r\n$+5\r\n", "file name length garbage '+5'"),
                Arguments.of(PRELUDE + "1\r\n$\r\n", "file name length garbage ''"),
                Arguments.of(PRELUDE + "1\r\n$abc\r\n", "file name length garbage 'abc'"),
                Arguments.of(PRELUDE + "1\r\n$05\r\n", "file name length garbage '05'"),
                Arguments.of(PRELUDE + file + "$1.5\r\n", "file size garbage '1.5'"),
                Arguments.of(PRELUDE + file + "$-0\r\n", "file size garbage '-0'"),
                Arguments.of(PRELUDE + file + "$ 1\r\n", "file size garbage ' 1'"),
                Arguments.of(PRELUDE + file + "1\r\n", "file size does not start with '$': '1\\r\\n'"),
                Arguments.of(PRELUDE + "0\r\n$x\r\n", "metadata length garbage 'x'"),
                Arguments.of(PRELUDE + "0\r\n$+68\r\n", "metadata length garbage '+68'"),
                Arguments.of(PRELUDE + "0\r\n68\r\n", "metadata length does not start with '$': '68\\r\\n'"));
    }

    @ParameterizedTest
    @MethodSource("garbageNumbers")
    void garbageNumbersAreRefused(String stream, String message) {
        refuse(bytes(stream), message);
    }

    static Stream<Arguments> badNames() {
        return Stream.of(
                Arguments.of(bytes(""), "file name is empty"),
                Arguments.of(bytes("."), "file name '.' is not a normal path component"),
                Arguments.of(bytes(".."), "file name '..' is not a normal path component"),
                Arguments.of(bytes("a/b"), "file name 'a/b' contains '/'"),
                Arguments.of(bytes("/abs"), "file name '/abs' is absolute"),
                Arguments.of(bytes("/"), "file name '/' is absolute"),
                Arguments.of(bytes("CURRENT/"), "file name 'CURRENT/' contains '/'"),
                Arguments.of(bytes("CURRENT/."), "file name 'CURRENT/.' contains '/'"),
                Arguments.of(bytes("../x"), "file name '../x' contains '/'"),
                Arguments.of(bytes("x\0y"), "file name 'x\\0y' contains NUL"),
                Arguments.of(new byte[] {(byte) 0xff}, "file name '\\xff' is not valid UTF-8"),
                Arguments.of(new byte[] {'a', (byte) 0xc0, (byte) 0xaf}, "file name 'a\\xc0\\xaf' is not valid UTF-8"),
                Arguments.of(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
                        "file name '\\xed\\xa0\\x80' is not valid UTF-8"),
                Arguments.of(new byte[] {'x', (byte) 0xe2, (byte) 0x82}, "file name 'x\\xe2\\x82' is not valid UTF-8"));
    }

    @ParameterizedTest
    @MethodSource("badNames")
    void badNamesAreRefused(byte[] name, String message) {
        byte[] s = concat(bytes(PRELUDE + "1\r\n$" + name.length + "\r\n"), name, bytes("\r\n$0\r\n"));
        CheckpointStreamReader reader = refuse(s, message);
        assertThat(reader.bytesConsumed()).isEqualTo(s.length - 4); // refused before its size line
        assertThatThrownBy(() -> CheckpointStream.checkFileName(name)).hasMessage(message);
        String decoded = new String(name, java.nio.charset.StandardCharsets.UTF_8);
        if (java.util.Arrays.equals(utf8(decoded), name)) {
            assertThat(CheckpointStream.isValidFileName(decoded)).isFalse();
            assertThatThrownBy(() -> CheckpointStreamWriter.fileHeader(decoded, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
            assertThatThrownBy(() -> new CheckpointFile(decoded, 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void goodNamesPass() {
        for (String n : new String[] {"CURRENT", "000001.sst", "...", ".x", "a b", "a\\b", "é", "\uD834\uDD1E", "-"}) {
            assertThat(CheckpointStream.isValidFileName(n)).as(n).isTrue();
            assertThat(CheckpointStream.checkFileName(utf8(n))).isEqualTo(n);
        }
        assertThat(CheckpointStream.isValidFileName("\uD834")).isFalse(); // unpaired surrogate
        assertThatThrownBy(() -> CheckpointStreamWriter.fileHeader("\uD834", 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void namesMustStrictlyIncreaseInByteOrder() throws IOException {
        refuse(new Checkpoints.Builder().file("b", bytes("1")).file("a", bytes("2")).build(),
                "file name 'a' out of order after 'b'");
        refuse(new Checkpoints.Builder().file("a", bytes("1")).file("a", bytes("2")).build(),
                "duplicate file name 'a'");
        refuse(new Checkpoints.Builder().file("CURRENT", bytes("")).file("000001.sst", bytes("")).build(),
                "file name '000001.sst' out of order after 'CURRENT'");
        // byte order, not Java's UTF-16 order: U+FB01 (ef ac 81) sorts before U+1D11E (f0 9d 84 9e)
        String low = "\uFB01";
        String high = "\uD834\uDD1E";
        assertThat(low.compareTo(high)).isPositive();
        Checkpoints.read(new Checkpoints.Builder().file(low, bytes("1")).file(high, bytes("2")).build());
        refuse(new Checkpoints.Builder().file(high, bytes("1")).file(low, bytes("2")).build(),
                "file name '\\xef\\xac\\x81' out of order after '\\xf0\\x9d\\x84\\x9e'");
        assertThat(CheckpointStreamWriter.sortByName(java.util.List.of(new CheckpointFile(high, 1),
                new CheckpointFile(low, 1)))).extracting(CheckpointFile::name).containsExactly(low, high);
    }

    @Test
    void nameAndMetadataMustEndWithCrlf() {
        refuse(bytes(PRELUDE + "1\r\n$1\r\naXY$0\r\n"), "file name 'a' is not followed by CRLF: got 'XY'");
        byte[] m = bytes("0:" + EMPTY_SHA256 + ":" + REPLID + ":0");
        CheckpointStreamReader reader = new CheckpointStreamReader(new Checkpoints.Recorder());
        assertThatThrownBy(() -> reader.feed(ByteBuffer.wrap(concat(bytes(PRELUDE + "0\r\n$" + m.length + "\r\n"),
                m, bytes("\n\n"))))).isInstanceOf(CheckpointStreamException.class)
                .hasMessageStartingWith("metadata '0:" + EMPTY_SHA256)
                .hasMessageEndingWith("…' is not followed by CRLF: got '\\n\\n'");
    }

    static Stream<Arguments> badTrailers() {
        String h = Checkpoints.checksum(java.util.List.of(), java.util.List.of());
        String fields = "trailer has %d fields, expected 4 (rdb_size:checksum_hex:replication_id:replication_offset): '%s'";
        return Stream.of(
                Arguments.of("0:" + h + ":id", String.format(fields, 3, "0:" + h + ":id")),
                Arguments.of("0:" + h + ":id:500:", String.format(fields, 5, "0:" + h + ":id:500:")),
                Arguments.of("0:" + h + ":id:700:900,0,700", String.format(fields, 5, "0:" + h + ":id:700:900,0,700")),
                // quoted metadata is cut at 100 bytes
                Arguments.of("0:" + h + ":" + REPLID + ":1:2", String.format(fields, 5, ("0:" + h + ":" + REPLID)
                        .substring(0, 100) + "…")),
                Arguments.of("", String.format(fields, 1, "")),
                Arguments.of("0:" + h.toUpperCase() + ":" + REPLID + ":0",
                        "checksum_hex '" + h.toUpperCase() + "' is not 64 lowercase hex digits"),
                Arguments.of("0:" + h.substring(1) + ":" + REPLID + ":0",
                        "checksum_hex '" + h.substring(1) + "' is not 64 lowercase hex digits"),
                Arguments.of("0:" + h + "::0", "replication_id is empty"),
                Arguments.of("0:" + h + ":a\rb:0", "replication_id 'a\\rb' contains ':', CR or LF"),
                Arguments.of("0:" + h + ":a\nb:0", "replication_id 'a\\nb' contains ':', CR or LF"),
                Arguments.of("+0:" + h + ":" + REPLID + ":0", "rdb_size garbage '+0'"),
                Arguments.of("00:" + h + ":" + REPLID + ":0", "rdb_size garbage '00'"),
                Arguments.of(":" + h + ":" + REPLID + ":0", "rdb_size garbage ''"),
                Arguments.of("9223372036854775808:" + h + ":" + REPLID + ":0",
                        "rdb_size 9223372036854775808 exceeds 2^63-1"),
                Arguments.of("0:" + h + ":" + REPLID + ":-1", "replication_offset garbage '-1'"),
                Arguments.of("0:" + h + ":" + REPLID + ":1e3", "replication_offset garbage '1e3'"),
                Arguments.of("0:" + h + ":" + REPLID + ":18446744073709551616",
                        "replication_offset 18446744073709551616 exceeds 2^64-1"));
    }

    @ParameterizedTest
    @MethodSource("badTrailers")
    void badTrailersAreRefused(String metadata, String message) {
        refuse(concat(bytes(PRELUDE + "0\r\n"), Checkpoints.Builder.trailer(metadata)), message);
        assertThatThrownBy(() -> CheckpointTrailer.parse(metadata)).isInstanceOf(CheckpointStreamException.class)
                .hasMessage(message);
    }

    @Test
    void metadataMustBeUtf8() {
        byte[] m = concat(bytes("0:" + EMPTY_SHA256 + ":"), new byte[] {(byte) 0xc3}, bytes(":0"));
        refuse(concat(bytes(PRELUDE + "0\r\n$" + m.length + "\r\n"), m, bytes("\r\n")),
                "metadata '0:" + EMPTY_SHA256 + ":\\xc3:0' is not valid UTF-8");
    }

    @Test
    void fewerOrMoreFilesThanCountedBreakTheFraming() throws IOException {
        // one file counted, none sent: the trailer's length line is read as a name length, and so on;
        // the stream never completes (the caller's SnapshotEnd or length check reports it)
        byte[] s = concat(bytes(PRELUDE + "1\r\n"), new Checkpoints.Builder().trailer());
        CheckpointStreamReader reader = pending(s, new Checkpoints.Recorder());
        assertThat(reader.isComplete()).isFalse();
        // two files sent, one counted: the second header is read as the trailer
        Checkpoints.Builder b = new Checkpoints.Builder().file("a", bytes("1")).file("b", bytes("2"));
        b.count = "1";
        refuse(b.build(), "trailer has 1 fields, expected 4 (rdb_size:checksum_hex:replication_id:replication_offset): 'b'");
    }
}
