package tandem.protocol.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FramesTest {

    @Test
    void constantsMatchTheDesign() {
        assertThat(Frames.PROTOCOL_VERSION).isEqualTo(6);
        assertThat(Frames.LENGTH_PREFIX).isEqualTo(4);
        assertThat(Frames.MAX_CONTROL_FRAME).isEqualTo(256);
        assertThat(Frames.DEFAULT_MAX_DATA_FRAME).isEqualTo(786_432);
        assertThat(Frames.SNAPSHOT_CHUNK).isEqualTo(65_536);
        // every control frame fits the pre-handshake limit, or a primary could not receive its own handshake
        assertThat(List.of(Handshake.LENGTH, Ack.LENGTH, Challenge.LENGTH, ChallengeResponse.LENGTH,
                StreamStart.LENGTH, SnapshotBegin.LENGTH, Rotate.LENGTH, ChainCheck.LENGTH, Heartbeat.LENGTH))
                .allMatch(n -> n <= Frames.MAX_CONTROL_FRAME);
        assertThat(Frames.LENGTH_PREFIX + SnapshotChunk.LENGTH + Frames.SNAPSHOT_CHUNK)
                .isLessThan(Frames.DEFAULT_MAX_DATA_FRAME);
    }

    @Test
    void namesEveryTagAndMarksTheRest() {
        assertThat(Frames.name(Frames.TAG_HANDSHAKE)).isEqualTo("Handshake");
        assertThat(Frames.name(Frames.TAG_ACK)).isEqualTo("Ack");
        assertThat(Frames.name(Frames.TAG_CHALLENGE)).isEqualTo("Challenge");
        assertThat(Frames.name(Frames.TAG_CHALLENGE_RESPONSE)).isEqualTo("ChallengeResponse");
        assertThat(Frames.name(Frames.TAG_AUTH_OK)).isEqualTo("AuthOk");
        assertThat(Frames.name(Frames.TAG_AUTH_FAILED)).isEqualTo("AuthFailed");
        assertThat(Frames.name(Frames.TAG_STREAM_START)).isEqualTo("StreamStart");
        assertThat(Frames.name(Frames.TAG_NEED_SNAPSHOT)).isEqualTo("NeedSnapshot");
        assertThat(Frames.name(Frames.TAG_HASH_MISMATCH)).isEqualTo("HashMismatch");
        assertThat(Frames.name(Frames.TAG_SNAPSHOT_BEGIN)).isEqualTo("SnapshotBegin");
        assertThat(Frames.name(Frames.TAG_SNAPSHOT_CHUNK)).isEqualTo("SnapshotChunk");
        assertThat(Frames.name(Frames.TAG_SNAPSHOT_END)).isEqualTo("SnapshotEnd");
        assertThat(Frames.name(Frames.TAG_ROTATE)).isEqualTo("Rotate");
        assertThat(Frames.name(Frames.TAG_CHAIN_CHECK)).isEqualTo("ChainCheck");
        assertThat(Frames.name(Frames.TAG_SEGMENT_SEED_BEGIN)).isEqualTo("SegmentSeedBegin");
        assertThat(Frames.name(Frames.TAG_INPUT_BATCH)).isEqualTo("InputBatch");
        assertThat(Frames.name(Frames.TAG_HEARTBEAT)).isEqualTo("Heartbeat");
        assertThat(Frames.name((byte) 0x7f)).isEqualTo("unknown 0x7f");
        assertThat(Frames.name((byte) 0x20)).as("the retired data batch").isEqualTo("unknown 0x20");
        assertThat(Frames.name((byte) 0xff)).isEqualTo("unknown 0xff");
        assertThat(Frames.name((byte) 0)).isEqualTo("unknown 0x00");
    }

    @Test
    void tagsAreTheWireValues() {
        assertThat(new byte[] {Frames.TAG_HANDSHAKE, Frames.TAG_ACK, Frames.TAG_CHALLENGE,
            Frames.TAG_CHALLENGE_RESPONSE, Frames.TAG_AUTH_OK, Frames.TAG_AUTH_FAILED, Frames.TAG_STREAM_START,
            Frames.TAG_NEED_SNAPSHOT, Frames.TAG_HASH_MISMATCH, Frames.TAG_SNAPSHOT_BEGIN, Frames.TAG_SNAPSHOT_CHUNK,
            Frames.TAG_SNAPSHOT_END, Frames.TAG_ROTATE, Frames.TAG_CHAIN_CHECK, Frames.TAG_SEGMENT_SEED_BEGIN,
            Frames.TAG_INPUT_BATCH, Frames.TAG_HEARTBEAT})
                .isEqualTo(Bytes.hex("01 02 03 04 05 06 10 11 12 13 14 15 16 17 18 21 30"));
    }

    @Test
    void tagReadsWithoutConsumingAndRefusesAnEmptyFrame() {
        ByteBuffer p = ByteBuffer.wrap(Bytes.hex("ee 16 00")).position(1);
        assertThat(Frames.tag(p)).isEqualTo(Frames.TAG_ROTATE);
        assertThat(p.position()).isEqualTo(1);
        ByteBuffer empty = ByteBuffer.wrap(Bytes.hex("ee 16")).position(1).limit(1);
        assertThatThrownBy(() -> Frames.tag(empty)).isInstanceOf(FrameException.class).hasMessage("empty frame");
        assertThatThrownBy(() -> Ack.check(empty)).isInstanceOf(FrameException.class).hasMessage("empty frame");
        assertThatThrownBy(() -> Signal.AUTH_OK.check(ByteBuffer.allocate(0))).isInstanceOf(FrameException.class)
                .hasMessage("empty frame");
    }

    @Test
    void messagesNameTheFrameAndTheSizes() {
        ByteBuffer shortHandshake = Bytes.payload(Handshake.frame(1, new byte[32], 0), 3, 0,
                ByteOrder.BIG_ENDIAN);
        shortHandshake.limit(shortHandshake.position() + 40);
        assertThatThrownBy(() -> Handshake.check(shortHandshake)).isInstanceOf(FrameException.class)
                .hasMessage("Handshake frame has 40 bytes, needs at least 51");
        ByteBuffer ack = ByteBuffer.wrap(Ack.frame(1, 2)).position(4);
        assertThatThrownBy(() -> Handshake.check(ack)).isInstanceOf(FrameException.class)
                .hasMessage("Handshake frame expected, got Ack (0x02)");
        ByteBuffer unknown = ByteBuffer.wrap(Bytes.hex("7f"));
        assertThatThrownBy(() -> InputBatch.check(unknown)).isInstanceOf(FrameException.class)
                .hasMessage("InputBatch frame expected, got unknown 0x7f");
    }
}
