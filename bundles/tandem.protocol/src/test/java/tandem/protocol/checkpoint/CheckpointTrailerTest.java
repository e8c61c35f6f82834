package tandem.protocol.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.protocol.checkpoint.Checkpoints.REPLID;
import static tandem.protocol.checkpoint.CheckpointGoldenTest.EMPTY_SHA256;
import static tandem.protocol.checkpoint.CheckpointGoldenTest.TWO_CHECKSUM;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The trailer record's format and parse, and the checksum's states. */
@Timeout(10)
class CheckpointTrailerTest {

    @Test
    void formatAndParse() {
        CheckpointTrailer t = new CheckpointTrailer(21, TWO_CHECKSUM, REPLID, 1234);
        assertThat(t.format()).isEqualTo("21:" + TWO_CHECKSUM + ":" + REPLID + ":1234");
        assertThat(CheckpointTrailer.parse(t.format())).isEqualTo(t);
        assertThat(t.hasPsyncReplicationId()).isTrue();
    }

    @Test
    void offsetIsAnUnsigned64BitNumber() {
        CheckpointTrailer max = new CheckpointTrailer(Long.MAX_VALUE, EMPTY_SHA256, "x", -1L);
        assertThat(max.format()).isEqualTo("9223372036854775807:" + EMPTY_SHA256 + ":x:18446744073709551615");
        assertThat(CheckpointTrailer.parse(max.format())).isEqualTo(max);
        assertThat(CheckpointTrailer.parse("0:" + EMPTY_SHA256 + ":x:9223372036854775808").replicationOffset())
                .isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void journalProtocolIdsAreAnyTokenWithoutColonOrLineBreaks() {
        CheckpointTrailer t = CheckpointTrailer.parse("5:" + EMPTY_SHA256 + ":lineage-7f3a/é:42");
        assertThat(t.replicationId()).isEqualTo("lineage-7f3a/é");
        assertThat(t.hasPsyncReplicationId()).isFalse();
        assertThat(new CheckpointTrailer(0, EMPTY_SHA256, REPLID.toUpperCase(), 0).hasPsyncReplicationId()).isFalse();
        assertThat(new CheckpointTrailer(0, EMPTY_SHA256, REPLID.substring(1), 0).hasPsyncReplicationId()).isFalse();
        assertThat(new CheckpointTrailer(0, EMPTY_SHA256, REPLID.substring(1) + "g", 0).hasPsyncReplicationId())
                .isFalse();
    }

    @Test
    void constructorRefusesBadFields() {
        assertThatThrownBy(() -> new CheckpointTrailer(-1, EMPTY_SHA256, REPLID, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("rdb_size -1 is negative");
        assertThatThrownBy(() -> new CheckpointTrailer(0, EMPTY_SHA256.toUpperCase(), REPLID, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64 lowercase hex digits");
        assertThatThrownBy(() -> new CheckpointTrailer(0, EMPTY_SHA256, "", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("replication_id is empty");
        assertThatThrownBy(() -> new CheckpointTrailer(0, EMPTY_SHA256, "a:b", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replication_id 'a:b' contains ':', CR or LF");
    }

    @Test
    void checksumStates() {
        CheckpointChecksum c = new CheckpointChecksum();
        assertThatThrownBy(() -> c.update(new byte[1], 0, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(c::endFile).isInstanceOf(IllegalStateException.class);
        c.beginFile("a");
        assertThatThrownBy(() -> c.beginFile("b")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(c::hex).isInstanceOf(IllegalStateException.class);
        c.endFile();
        String h = c.hex();
        assertThat(c.hex()).isEqualTo(h);
        assertThatThrownBy(() -> c.beginFile("b")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new CheckpointChecksum().beginFile("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(h).isEqualTo(Checkpoints.checksum(java.util.List.of(Checkpoints.utf8("a")),
                java.util.List.of(new byte[0])));
    }
}
