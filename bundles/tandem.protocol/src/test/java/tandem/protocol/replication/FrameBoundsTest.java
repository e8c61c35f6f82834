package tandem.protocol.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.protocol.replication.Bytes.hex;
import static tandem.protocol.replication.Bytes.run;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every frame kind against payloads one byte short, with a tail, and with another tag; and the writers against bad
 * arguments and full buffers.
 */
@Timeout(10)
class FrameBoundsTest {

    /**
     * A frame kind: a sample frame and a decoder that checks a payload and returns all its fields (hashes as hex,
     * so that lists compare by value).
     */
    record Kind(String name, byte tag, byte[] sample, Function<ByteBuffer, List<Object>> decode) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final byte[] TAGS = hex("01 02 03 04 05 06 10 11 12 13 14 15 16 17 18 21 30 20 7f 00 ff");

    static Stream<Kind> kinds() {
        return Stream.of(
                new Kind("Handshake", Frames.TAG_HANDSHAKE, Handshake.frame(7, run(1, 32), 9), p -> {
                    Handshake.check(p);
                    return List.of(Handshake.lastSequence(p), hex(Handshake.chainHash(p)), Handshake.epoch(p),
                            Handshake.protocolVersion(p));
                }),
                new Kind("Ack", Frames.TAG_ACK, Ack.frame(5, 6), p -> {
                    Ack.check(p);
                    return List.of(Ack.ackedSequence(p), Ack.inMemorySequence(p));
                }),
                new Kind("Challenge", Frames.TAG_CHALLENGE, Challenge.frame(run(3, 32)), p -> {
                    Challenge.check(p);
                    return List.of(hex(Challenge.nonce(p)));
                }),
                new Kind("ChallengeResponse", Frames.TAG_CHALLENGE_RESPONSE,
                        ChallengeResponse.frame(run(4, 64), run(5, 32)), p -> {
                            ChallengeResponse.check(p);
                            return List.of(hex(ChallengeResponse.signature(p)), hex(ChallengeResponse.publicKey(p)));
                        }),
                tagOnly("AuthOk", Frames.TAG_AUTH_OK, Signal.AUTH_OK),
                tagOnly("AuthFailed", Frames.TAG_AUTH_FAILED, Signal.AUTH_FAILED),
                new Kind("StreamStart", Frames.TAG_STREAM_START,
                        StreamStart.frame(1, 2, run(6, 32), 3, (byte) 2, true, 4, 5), p -> {
                            StreamStart.check(p);
                            return List.of(StreamStart.startSequence(p), StreamStart.segmentStartSequence(p),
                                    hex(StreamStart.anchorHash(p)), StreamStart.epoch(p), StreamStart.ackPolicy(p),
                                    StreamStart.genesisKnown(p), StreamStart.genesisEntries(p),
                                    StreamStart.segmentStartOffset(p));
                        }),
                tagOnly("NeedSnapshot", Frames.TAG_NEED_SNAPSHOT, Signal.NEED_SNAPSHOT),
                tagOnly("HashMismatch", Frames.TAG_HASH_MISMATCH, Signal.HASH_MISMATCH),
                new Kind("SnapshotBegin", Frames.TAG_SNAPSHOT_BEGIN, SnapshotBegin.frame(100, 7, run(7, 32)), p -> {
                    SnapshotBegin.check(p);
                    return List.of(SnapshotBegin.snapshotLen(p), SnapshotBegin.snapSequence(p),
                            hex(SnapshotBegin.snapChainHash(p)));
                }),
                // the empty chunk: the shortest valid one, so that one byte less is invalid
                new Kind("SnapshotChunk", Frames.TAG_SNAPSHOT_CHUNK, SnapshotChunk.frame(ByteBuffer.allocate(0)),
                        p -> {
                            SnapshotChunk.check(p);
                            return List.of(SnapshotChunk.dataLength(p));
                        }),
                new Kind("SnapshotEnd", Frames.TAG_SNAPSHOT_END, SnapshotEnd.frame(0x12345678), p -> {
                    SnapshotEnd.check(p);
                    return List.of(SnapshotEnd.crc32c(p));
                }),
                new Kind("Rotate", Frames.TAG_ROTATE, Rotate.frame(8, run(8, 32)), p -> {
                    Rotate.check(p);
                    return List.of(Rotate.boundarySeq(p), hex(Rotate.tailHash(p)));
                }),
                new Kind("ChainCheck", Frames.TAG_CHAIN_CHECK, ChainCheck.frame(9, run(9, 32)), p -> {
                    ChainCheck.check(p);
                    return List.of(ChainCheck.sequence(p), hex(ChainCheck.chainHash(p)));
                }),
                new Kind("SegmentSeedBegin", Frames.TAG_SEGMENT_SEED_BEGIN, SegmentSeedBegin.frame(4096), p -> {
                    SegmentSeedBegin.check(p);
                    return List.of(SegmentSeedBegin.seedLen(p));
                }),
                new Kind("InputBatch", Frames.TAG_INPUT_BATCH, batch(), FrameBoundsTest::decodeBatch),
                new Kind("Heartbeat", Frames.TAG_HEARTBEAT, Heartbeat.frame(10, (byte) 0), p -> {
                    Heartbeat.check(p);
                    return List.of(Heartbeat.sequence(p), Heartbeat.ackPolicy(p));
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void samplesDecodeAndDeclareTheirLength(Kind k) {
        int declared = ByteBuffer.wrap(k.sample).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        assertThat(declared).isEqualTo(k.sample.length - Frames.LENGTH_PREFIX);
        ByteBuffer p = Bytes.payload(k.sample, 3, 0, ByteOrder.BIG_ENDIAN);
        assertThat(Frames.tag(p)).isEqualTo(k.tag);
        assertThat(Frames.name(k.tag)).isEqualTo(k.name);
        assertThat(k.decode.apply(p)).isNotEmpty();
        assertThat(p.position()).as("decoding consumes nothing").isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aPayloadOneByteShortIsRejected(Kind k) {
        byte[] payload = Arrays.copyOfRange(k.sample, Frames.LENGTH_PREFIX, k.sample.length);
        ByteBuffer p = Bytes.payload(payload, 3, 0, ByteOrder.LITTLE_ENDIAN, 1);
        assertThatThrownBy(() -> k.decode.apply(p)).isInstanceOf(FrameException.class)
                .satisfies(e -> assertThat(e.getMessage()).satisfiesAnyOf(
                        m -> assertThat(m).startsWith(k.name + " "),
                        m -> assertThat(m).isEqualTo("empty frame")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void trailingBytesAreIgnored(Kind k) {
        if (k.tag == Frames.TAG_SNAPSHOT_CHUNK) {
            // a chunk has no tail: see aChunkTakesEveryByteAsData
            return;
        }
        List<Object> exact = k.decode.apply(Bytes.payload(k.sample, 3, 0, ByteOrder.BIG_ENDIAN));
        assertThat(k.decode.apply(Bytes.payload(k.sample, 3, 1, ByteOrder.BIG_ENDIAN))).isEqualTo(exact);
        assertThat(k.decode.apply(Bytes.payload(k.sample, 0, 200, ByteOrder.LITTLE_ENDIAN))).isEqualTo(exact);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void anotherTagIsRejected(Kind k) {
        for (byte other : TAGS) {
            if (other == k.tag) {
                continue;
            }
            ByteBuffer p = Bytes.payload(k.sample, 2, 0, ByteOrder.LITTLE_ENDIAN);
            p.put(p.position(), other);
            assertThatThrownBy(() -> k.decode.apply(p)).as("tag 0x%02x", other).isInstanceOf(FrameException.class)
                    .hasMessageStartingWith(k.name + " frame expected, got " + Frames.name(other));
        }
    }

    @Test
    void aChunkTakesEveryByteAsData() {
        ByteBuffer p = Bytes.payload(SnapshotChunk.frame(ByteBuffer.wrap(run(1, 10))), 3, 4, ByteOrder.BIG_ENDIAN);
        SnapshotChunk.check(p);
        assertThat(SnapshotChunk.dataLength(p)).isEqualTo(14);
        assertThat(Bytes.slice(p, SnapshotChunk.dataOffset(p), p.limit())).startsWith(run(1, 10))
                .endsWith(Bytes.FILL, Bytes.FILL, Bytes.FILL, Bytes.FILL);
    }

    @Test
    void writersRefuseFieldsOfTheWrongSize() {
        ByteBuffer b = ByteBuffer.allocate(200);
        assertThatThrownBy(() -> Handshake.write(b, 1, new byte[31], 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("chain_hash of 31 bytes, must be 32");
        assertThatThrownBy(() -> Handshake.frame(1, new byte[33], 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Handshake.write(b, 1, new byte[32], 1, 0x10000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Challenge.write(b, new byte[16])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nonce of 16 bytes, must be 32");
        assertThatThrownBy(() -> ChallengeResponse.write(b, new byte[32], new byte[32]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("signature of 32 bytes, must be 64");
        assertThatThrownBy(() -> ChallengeResponse.write(b, new byte[64], new byte[64]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("public key of 64 bytes, must be 32");
        assertThatThrownBy(() -> StreamStart.write(b, 1, 1, new byte[0], 1, (byte) 1, false, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("anchor_hash of 0 bytes, must be 32");
        assertThatThrownBy(() -> SnapshotBegin.write(b, 1, 1, new byte[31]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rotate.write(b, 1, new byte[31])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChainCheck.write(b, 1, new byte[31])).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.position()).as("nothing written").isZero();
        assertThat(b.array()).containsOnly(0);
    }

    @Test
    void aFrameThatDoesNotFitWritesNothing() {
        ByteBuffer b = ByteBuffer.allocate(60).position(10);
        assertThatThrownBy(() -> Handshake.write(b, 1, new byte[32], 1)).isInstanceOf(BufferOverflowException.class);
        assertThatThrownBy(() -> SnapshotChunk.write(b, ByteBuffer.allocate(46)))
                .isInstanceOf(BufferOverflowException.class);
        ByteBuffer seven = ByteBuffer.allocate(7).position(1);
        assertThatThrownBy(() -> InputBatch.writeHeader(seven, 0, 0)).isInstanceOf(BufferOverflowException.class);
        ByteBuffer slot = ByteBuffer.allocate(44).position(1);
        assertThatThrownBy(() -> InputBatch.writeSlot(slot, 1, 1, 1, 1, (byte) 3, ByteBuffer.allocate(9)))
                .isInstanceOf(BufferOverflowException.class);
        assertThat(b.position()).isEqualTo(10);
        assertThat(seven.position()).isEqualTo(1);
        assertThat(slot.position()).isEqualTo(1);
        assertThat(b.array()).containsOnly(0);
        assertThat(seven.array()).containsOnly(0);
        assertThat(slot.array()).containsOnly(0);
        // exactly enough room is enough
        SnapshotChunk.write(b, ByteBuffer.allocate(45));
        assertThat(b.hasRemaining()).isFalse();
    }

    private static Kind tagOnly(String name, byte tag, Signal signal) {
        return new Kind(name, tag, signal.frame(), p -> {
            signal.check(p);
            return List.of(name);
        });
    }

    /** Two slots, the second with a payload, so that cutting the last byte cuts a payload. */
    private static byte[] batch() {
        ByteBuffer b = ByteBuffer.allocate(4 + 3 + 35 + 35 + 5);
        InputBatch.writeHeader(b, 35 + 40, 2);
        InputBatch.writeSlot(b, 11, 12, 13, 14, (byte) 3, ByteBuffer.allocate(0));
        InputBatch.writeSlot(b, 21, 22, 23, 24, (byte) 0x80, ByteBuffer.wrap(run(0x61, 5)));
        assertThat(b.hasRemaining()).isFalse();
        return b.array();
    }

    static List<Object> decodeBatch(ByteBuffer p) {
        List<Object> out = new ArrayList<>();
        InputBatch.Cursor c = new InputBatch.Cursor().wrap(p);
        out.add(c.count());
        while (c.next()) {
            out.add(List.of(c.index(), c.sequence(), c.timestampNs(), c.keyHash(), c.requestSeq(), c.tag(),
                    c.slotOffset() - p.position(), c.slotLength(), c.payloadOffset() - p.position(),
                    hex(Bytes.slice(p, c.payloadOffset(), c.payloadOffset() + c.payloadLength()))));
        }
        return out;
    }
}
