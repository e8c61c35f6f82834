package tandem.protocol.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded random round trips: write at a random offset of a buffer of random byte order, check, and read every field
 * back through a view of the other random order. The seed is fixed, so a failure reproduces.
 */
@Timeout(10)
class RoundTripTest {

    private static final int ITERATIONS = 1000;

    private final Random rnd = new Random(0x5EED_7A4DL);

    @Test
    void everyFixedFrameRoundTrips() {
        for (int i = 0; i < ITERATIONS; i++) {
            long a = rnd.nextLong();
            long b = rnd.nextLong();
            long c = rnd.nextLong();
            long d = rnd.nextLong();
            long e = rnd.nextLong();
            byte[] h = bytes(32);
            byte[] sig = bytes(64);
            byte policy = (byte) rnd.nextInt(256);
            boolean known = rnd.nextBoolean();
            int version = rnd.nextInt(0x10000);
            int crc = rnd.nextInt();

            ByteBuffer p = roundTrip(Handshake.frame(a, h, b, version), x -> Handshake.write(x, a, h, b, version));
            Handshake.check(p);
            assertThat(Handshake.lastSequence(p)).isEqualTo(a);
            assertThat(Handshake.chainHash(p)).isEqualTo(h);
            assertThat(Handshake.epoch(p)).isEqualTo(b);
            assertThat(Handshake.protocolVersion(p)).isEqualTo(version);

            p = roundTrip(Ack.frame(a, b), x -> Ack.write(x, a, b));
            Ack.check(p);
            assertThat(Ack.ackedSequence(p)).isEqualTo(a);
            assertThat(Ack.inMemorySequence(p)).isEqualTo(b);

            p = roundTrip(Challenge.frame(h), x -> Challenge.write(x, h));
            Challenge.check(p);
            assertThat(Challenge.nonce(p)).isEqualTo(h);

            p = roundTrip(ChallengeResponse.frame(sig, h), x -> ChallengeResponse.write(x, sig, h));
            ChallengeResponse.check(p);
            assertThat(ChallengeResponse.signature(p)).isEqualTo(sig);
            assertThat(ChallengeResponse.publicKey(p)).isEqualTo(h);

            for (Signal signal : Signal.values()) {
                signal.check(roundTrip(signal.frame(), signal::write));
            }

            p = roundTrip(StreamStart.frame(a, b, h, c, policy, known, d, e),
                    x -> StreamStart.write(x, a, b, h, c, policy, known, d, e));
            StreamStart.check(p);
            assertThat(StreamStart.startSequence(p)).isEqualTo(a);
            assertThat(StreamStart.segmentStartSequence(p)).isEqualTo(b);
            assertThat(StreamStart.anchorHash(p)).isEqualTo(h);
            assertThat(StreamStart.epoch(p)).isEqualTo(c);
            assertThat(StreamStart.ackPolicy(p)).isEqualTo(policy);
            assertThat(StreamStart.genesisKnown(p)).isEqualTo(known);
            assertThat(StreamStart.genesisEntries(p)).isEqualTo(d);
            assertThat(StreamStart.segmentStartOffset(p)).isEqualTo(e);

            p = roundTrip(SnapshotBegin.frame(a, b, h), x -> SnapshotBegin.write(x, a, b, h));
            SnapshotBegin.check(p);
            assertThat(SnapshotBegin.snapshotLen(p)).isEqualTo(a);
            assertThat(SnapshotBegin.snapSequence(p)).isEqualTo(b);
            assertThat(SnapshotBegin.snapChainHash(p)).isEqualTo(h);

            byte[] data = bytes(rnd.nextInt(301));
            ByteBuffer src = ByteBuffer.wrap(data);
            // a chunk has no tail to ignore: everything up to the limit is data
            p = roundTrip(SnapshotChunk.frame(src), x -> SnapshotChunk.write(x, src), false);
            SnapshotChunk.check(p);
            assertThat(SnapshotChunk.dataLength(p)).isEqualTo(data.length);
            assertThat(Bytes.slice(p, SnapshotChunk.dataOffset(p), SnapshotChunk.dataOffset(p) + data.length))
                    .isEqualTo(data);
            assertThat(src.remaining()).isEqualTo(data.length);

            p = roundTrip(SnapshotEnd.frame(crc), x -> SnapshotEnd.write(x, crc));
            SnapshotEnd.check(p);
            assertThat(SnapshotEnd.crc32c(p)).isEqualTo(crc);

            p = roundTrip(Rotate.frame(a, h), x -> Rotate.write(x, a, h));
            Rotate.check(p);
            assertThat(Rotate.boundarySeq(p)).isEqualTo(a);
            assertThat(Rotate.tailHash(p)).isEqualTo(h);

            p = roundTrip(ChainCheck.frame(b, h), x -> ChainCheck.write(x, b, h));
            ChainCheck.check(p);
            assertThat(ChainCheck.sequence(p)).isEqualTo(b);
            assertThat(ChainCheck.chainHash(p)).isEqualTo(h);

            p = roundTrip(SegmentSeedBegin.frame(c), x -> SegmentSeedBegin.write(x, c));
            SegmentSeedBegin.check(p);
            assertThat(SegmentSeedBegin.seedLen(p)).isEqualTo(c);

            p = roundTrip(Heartbeat.frame(d, policy), x -> Heartbeat.write(x, d, policy));
            Heartbeat.check(p);
            assertThat(Heartbeat.sequence(p)).isEqualTo(d);
            assertThat(Heartbeat.ackPolicy(p)).isEqualTo(policy);
        }
    }

    @Test
    void inputBatchesRoundTrip() {
        InputBatch.Cursor cursor = new InputBatch.Cursor();
        for (int i = 0; i < ITERATIONS; i++) {
            int count = rnd.nextInt(9);
            long[][] fields = new long[count][4];
            byte[] tags = new byte[count];
            byte[][] payloads = new byte[count][];
            int slotBytes = 0;
            for (int s = 0; s < count; s++) {
                for (int f = 0; f < 4; f++) {
                    fields[s][f] = rnd.nextLong();
                }
                tags[s] = (byte) rnd.nextInt(256);
                payloads[s] = bytes(rnd.nextInt(301));
                slotBytes += InputBatch.slotLength(payloads[s].length);
            }
            int start = rnd.nextInt(40);
            int tail = rnd.nextInt(3) == 0 ? rnd.nextInt(50) : 0;
            ByteBuffer dst = ByteBuffer.allocate(start + 7 + slotBytes + tail + rnd.nextInt(20)).order(order());
            dst.position(start);
            InputBatch.writeHeader(dst, slotBytes, count);
            for (int s = 0; s < count; s++) {
                ByteBuffer src = ByteBuffer.wrap(payloads[s]).order(order());
                InputBatch.writeSlot(dst, fields[s][0], fields[s][1], fields[s][2], fields[s][3], tags[s], src);
                assertThat(src.position()).isZero();
            }
            assertThat(dst.position()).isEqualTo(start + 7 + slotBytes);
            int len = (int) Wire.U32.get(dst, start);
            assertThat(len).isEqualTo(3 + slotBytes);

            // bytes past the declared slots (tail) stay inside the payload's limit and must be ignored
            ByteBuffer p = dst.duplicate().order(order()).position(start + 4).limit(start + 4 + len + tail);
            assertThat(cursor.wrap(p)).isSameAs(cursor);
            assertThat(cursor.count()).isEqualTo(count).isEqualTo(InputBatch.count(p));
            int expectedOffset = start + 7;
            for (int s = 0; s < count; s++) {
                assertThat(cursor.next()).isTrue();
                assertThat(cursor.index()).isEqualTo(s);
                assertThat(cursor.sequence()).isEqualTo(fields[s][0]);
                assertThat(cursor.timestampNs()).isEqualTo(fields[s][1]);
                assertThat(cursor.keyHash()).isEqualTo(fields[s][2]);
                assertThat(cursor.requestSeq()).isEqualTo(fields[s][3]);
                assertThat(cursor.tag()).isEqualTo(tags[s]);
                assertThat(cursor.slotOffset()).isEqualTo(expectedOffset);
                assertThat(cursor.slotLength()).isEqualTo(InputBatch.slotLength(payloads[s].length));
                assertThat(cursor.payloadOffset()).isEqualTo(expectedOffset + 35);
                assertThat(cursor.payloadLength()).isEqualTo(payloads[s].length);
                assertThat(Bytes.slice(p, cursor.payloadOffset(), cursor.payloadOffset() + cursor.payloadLength()))
                        .isEqualTo(payloads[s]);
                expectedOffset += cursor.slotLength();
            }
            assertThat(cursor.next()).isFalse();
            assertThat(cursor.next()).isFalse();
            assertThat(p.position()).isEqualTo(start + 4);
        }
    }

    /**
     * Writes through {@code writer} at a random offset of a buffer in a random order, compares with the allocating
     * {@code frame}, and returns the payload through a view in a random order.
     */
    private ByteBuffer roundTrip(byte[] frame, Consumer<ByteBuffer> writer) {
        return roundTrip(frame, writer, true);
    }

    private ByteBuffer roundTrip(byte[] frame, Consumer<ByteBuffer> writer, boolean tailAllowed) {
        int start = rnd.nextInt(40);
        ByteOrder order = order();
        ByteBuffer dst = ByteBuffer.allocate(start + frame.length + rnd.nextInt(20)).order(order);
        Arrays.fill(dst.array(), Bytes.FILL);
        dst.position(start);
        writer.accept(dst);
        assertThat(dst.position()).isEqualTo(start + frame.length);
        assertThat(dst.order()).isEqualTo(order);
        assertThat(Bytes.slice(dst, start, start + frame.length)).isEqualTo(frame);
        assertThat((int) Wire.U32.get(dst, start)).isEqualTo(frame.length - Frames.LENGTH_PREFIX);
        // a longer limit than the frame, sometimes: a decoder must read only its own bytes
        int tail = !tailAllowed || rnd.nextBoolean() ? 0 : rnd.nextInt(dst.capacity() - start - frame.length + 1);
        return dst.duplicate().order(order()).position(start + Frames.LENGTH_PREFIX)
                .limit(start + frame.length + tail);
    }

    private ByteOrder order() {
        return rnd.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }
}
