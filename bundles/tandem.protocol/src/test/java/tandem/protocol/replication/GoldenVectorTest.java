package tandem.protocol.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static tandem.protocol.replication.Bytes.hex;
import static tandem.protocol.replication.Bytes.run;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One pinned byte vector per frame kind. melin's vectors (research/melin.md §1.3, §1.4, §2.4) where the design
 * keeps the layout; the rest were written by hand from the layouts, with field values whose little-endian bytes
 * are easy to see. Each vector is checked three ways: the allocating {@code frame()}, {@code write()} into a
 * big-endian buffer at an offset, and the accessors reading the vector itself (not what the writer produced).
 */
@Timeout(10)
class GoldenVectorTest {

    /** melin KAT4 chain(2): the chain value after the two KAT4 entries. */
    static final byte[] CHAIN2 = hex("3489f59a619f76ef41043ff6a0a97ddf65e04b722517596a00d7348490b1d28b");
    /** The KAT4 entries e1, e2 without their magic (2 bytes) and CRC (4 bytes): the slots. */
    static final String KAT4_SLOT1 = "1900 0100000000000000 00002a36fe9c9717 0000000000000000 0000000000000000 03"
            + " 00002a36fe9c9717";
    static final String KAT4_SLOT2 = "1a00 0200000000000000 f4012a36fe9c9717 efcdab0000000000 0700000000000000 80"
            + " 10 0500000000000000";

    private static final int AT = 5;

    @Test
    void handshakeKat4() {
        // melin's vector ends 0400 (its protocol version 4); Tandem's is 6 (5 added the epoch, 6 the Publish entry)
        byte[] v = hex("33000000 01 0200000000000000"
                + " 3489f59a619f76ef41043ff6a0a97ddf65e04b722517596a00d7348490b1d28b 0000000000000000 0600");
        assertThat(Handshake.frame(2, CHAIN2, 0)).isEqualTo(v);
        assertWrites(v, b -> Handshake.write(b, 2, CHAIN2, 0));
        ByteBuffer p = payload(v);
        Handshake.check(p);
        assertThat(Handshake.lastSequence(p)).isEqualTo(2);
        assertThat(Handshake.chainHash(p)).isEqualTo(CHAIN2);
        assertThat(Handshake.epoch(p)).isZero();
        assertThat(Handshake.protocolVersion(p)).isEqualTo(6);
        // melin's own vector, byte for byte, with the version it pins
        byte[] melin = Arrays.copyOf(v, v.length);
        melin[v.length - 2] = 4;
        assertThat(Handshake.frame(2, CHAIN2, 0, 4)).isEqualTo(melin);
    }

    @Test
    void handshake() {
        byte[] v = hex("33000000 01 0807060504030201"
                + " a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf 1817161514131211 0600");
        assertThat(Handshake.frame(0x0102030405060708L, run(0xa0, 32), 0x1112131415161718L)).isEqualTo(v);
        assertWrites(v, b -> Handshake.write(b, 0x0102030405060708L, run(0xa0, 32), 0x1112131415161718L, 6));
        ByteBuffer p = payload(v);
        Handshake.check(p);
        assertThat(Handshake.lastSequence(p)).isEqualTo(0x0102030405060708L);
        byte[] into = new byte[40];
        assertThat(Handshake.chainHash(p, into)).isSameAs(into);
        assertThat(Arrays.copyOf(into, 32)).isEqualTo(run(0xa0, 32));
        assertThat(Handshake.epoch(p)).isEqualTo(0x1112131415161718L);
        assertThat(Handshake.protocolVersion(p)).isEqualTo(Frames.PROTOCOL_VERSION);
    }

    @Test
    void ackMelin() {
        byte[] v = hex("11 00 00 00 02 0D F0 FE CA EF BE AD DE 88 77 66 55 44 33 22 11");
        assertThat(Ack.frame(0xDEADBEEFCAFEF00DL, 0x1122334455667788L)).isEqualTo(v);
        assertWrites(v, b -> Ack.write(b, 0xDEADBEEFCAFEF00DL, 0x1122334455667788L));
        ByteBuffer p = payload(v);
        Ack.check(p);
        assertThat(Ack.ackedSequence(p)).isEqualTo(0xDEADBEEFCAFEF00DL);
        assertThat(Ack.inMemorySequence(p)).isEqualTo(0x1122334455667788L);
    }

    @Test
    void challenge() {
        byte[] v = hex("21000000 03 404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f");
        assertThat(Challenge.frame(run(0x40, 32))).isEqualTo(v);
        assertWrites(v, b -> Challenge.write(b, run(0x40, 32)));
        ByteBuffer p = payload(v);
        Challenge.check(p);
        assertThat(Challenge.nonce(p)).isEqualTo(run(0x40, 32));
        assertThat(Challenge.nonce(p, new byte[32])).isEqualTo(run(0x40, 32));
    }

    @Test
    void challengeResponse() {
        byte[] v = hex("61000000 04"
                + " 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                + "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                + " 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
        assertThat(ChallengeResponse.frame(run(0, 64), run(0x80, 32))).isEqualTo(v);
        assertWrites(v, b -> ChallengeResponse.write(b, run(0, 64), run(0x80, 32)));
        ByteBuffer p = payload(v);
        ChallengeResponse.check(p);
        assertThat(ChallengeResponse.signature(p)).isEqualTo(run(0, 64));
        assertThat(ChallengeResponse.signature(p, new byte[64])).isEqualTo(run(0, 64));
        assertThat(ChallengeResponse.publicKey(p)).isEqualTo(run(0x80, 32));
        assertThat(ChallengeResponse.publicKey(p, new byte[32])).isEqualTo(run(0x80, 32));
    }

    @Test
    void tagOnlyFrames() {
        // melin §1.3: AuthOk = 01 00 00 00 05, AuthFailed = ... 06
        assertTagOnly(hex("01000000 05"), Signal.AUTH_OK);
        assertTagOnly(hex("01000000 06"), Signal.AUTH_FAILED);
        assertTagOnly(hex("01000000 11"), Signal.NEED_SNAPSHOT);
        assertTagOnly(hex("01000000 12"), Signal.HASH_MISMATCH);
    }

    @Test
    void streamStart() {
        byte[] v = hex("4b000000 10 0102030405060708 1112131415161718"
                + " 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                + " 4142434445464748 03 01 5152535455565758 6162636465666768");
        assertThat(v).hasSize(4 + 75);
        assertThat(StreamStart.frame(0x0807060504030201L, 0x1817161514131211L, run(0x20, 32), 0x4847464544434241L,
                (byte) 3, true, 0x5857565554535251L, 0x6867666564636261L)).isEqualTo(v);
        assertWrites(v, b -> StreamStart.write(b, 0x0807060504030201L, 0x1817161514131211L, run(0x20, 32),
                0x4847464544434241L, (byte) 3, true, 0x5857565554535251L, 0x6867666564636261L));
        ByteBuffer p = payload(v);
        StreamStart.check(p);
        assertThat(StreamStart.startSequence(p)).isEqualTo(0x0807060504030201L);
        assertThat(StreamStart.segmentStartSequence(p)).isEqualTo(0x1817161514131211L);
        assertThat(StreamStart.anchorHash(p)).isEqualTo(run(0x20, 32));
        assertThat(StreamStart.anchorHash(p, new byte[32])).isEqualTo(run(0x20, 32));
        assertThat(StreamStart.epoch(p)).isEqualTo(0x4847464544434241L);
        assertThat(StreamStart.ackPolicy(p)).isEqualTo((byte) 3);
        assertThat(StreamStart.genesisKnown(p)).isTrue();
        assertThat(StreamStart.genesisEntries(p)).isEqualTo(0x5857565554535251L);
        assertThat(StreamStart.segmentStartOffset(p)).isEqualTo(0x6867666564636261L);
        assertThat(StreamStart.psyncId(p)).as("75 bytes: a primary that names no psync id").isNull();
    }

    @Test
    void streamStartWithThePrimarysPsyncId() {
        byte[] v = hex("5f000000 10 0102030405060708 1112131415161718"
                + " 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                + " 4142434445464748 03 01 5152535455565758 6162636465666768"
                + " 707172737475767778797a7b7c7d7e7f80818283");
        assertThat(v).hasSize(4 + 95);
        assertThat(StreamStart.frame(0x0807060504030201L, 0x1817161514131211L, run(0x20, 32), 0x4847464544434241L,
                (byte) 3, true, 0x5857565554535251L, 0x6867666564636261L, run(0x70, 20))).isEqualTo(v);
        assertWrites(v, b -> StreamStart.write(b, 0x0807060504030201L, 0x1817161514131211L, run(0x20, 32),
                0x4847464544434241L, (byte) 3, true, 0x5857565554535251L, 0x6867666564636261L, run(0x70, 20)));
        ByteBuffer p = payload(v);
        StreamStart.check(p);
        assertThat(StreamStart.segmentStartOffset(p)).isEqualTo(0x6867666564636261L);
        assertThat(StreamStart.psyncId(p)).isEqualTo(run(0x70, 20));
        assertThat(StreamStart.psyncId(payload(StreamStart.frame(1, 1, run(0, 32), 0, (byte) 1, false, 0, 0,
                new byte[20])))).as("zeros: Redis' rendering of no id").isNull();
        assertThatThrownBy(() -> StreamStart.frame(1, 1, run(0, 32), 0, (byte) 1, false, 0, 0, new byte[40]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("psync_replication_id of 40 bytes, must be 20");
    }

    @Test
    void streamStartOfAFreshLineage() {
        // a lineage whose first segment is still live: genesis unknown, policy disk+ram (1)
        byte[] v = hex("4b000000 10 0200000000000000 0100000000000000"
                + " 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                + " 0000000000000000 01 00 0000000000000000 0000000000000000");
        assertThat(StreamStart.frame(2, 1, run(0, 32), 0, (byte) 1, false, 0, 0)).isEqualTo(v);
        ByteBuffer p = payload(v);
        StreamStart.check(p);
        assertThat(StreamStart.genesisKnown(p)).isFalse();
        assertThat(StreamStart.ackPolicy(p)).isEqualTo((byte) 1);
        // any non-zero byte means known, so that a sender writing 0xFF is not read as unknown
        p.put(p.position() + StreamStart.GENESIS_KNOWN_OFFSET, (byte) 0xFF);
        assertThat(StreamStart.genesisKnown(p)).isTrue();
    }

    @Test
    void snapshotBegin() {
        byte[] v = hex("31000000 13 ab89674523010000 8877665544332211"
                + " c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf");
        assertThat(SnapshotBegin.frame(0x0123456789ABL, 0x1122334455667788L, run(0xc0, 32))).isEqualTo(v);
        assertWrites(v, b -> SnapshotBegin.write(b, 0x0123456789ABL, 0x1122334455667788L, run(0xc0, 32)));
        ByteBuffer p = payload(v);
        SnapshotBegin.check(p);
        assertThat(SnapshotBegin.snapshotLen(p)).isEqualTo(0x0123456789ABL);
        assertThat(SnapshotBegin.snapSequence(p)).isEqualTo(0x1122334455667788L);
        assertThat(SnapshotBegin.snapChainHash(p)).isEqualTo(run(0xc0, 32));
        assertThat(SnapshotBegin.snapChainHash(p, new byte[32])).isEqualTo(run(0xc0, 32));
    }

    @Test
    void snapshotChunk() {
        byte[] v = hex("06000000 14 68656c6c6f");
        ByteBuffer data = ByteBuffer.wrap(hex("ff 68656c6c6f ff")).position(1).limit(6);
        assertThat(SnapshotChunk.frame(data)).isEqualTo(v);
        assertWrites(v, b -> SnapshotChunk.write(b, data));
        assertThat(data.position()).as("data is copied, not consumed").isEqualTo(1);
        assertThat(data.limit()).isEqualTo(6);
        ByteBuffer p = payload(v);
        SnapshotChunk.check(p);
        assertThat(SnapshotChunk.dataOffset(p)).isEqualTo(AT + 1);
        assertThat(SnapshotChunk.dataLength(p)).isEqualTo(5);
        assertThat(Bytes.slice(p, SnapshotChunk.dataOffset(p), SnapshotChunk.dataOffset(p) + 5))
                .isEqualTo("hello".getBytes(StandardCharsets.US_ASCII));

        byte[] empty = hex("01000000 14");
        assertThat(SnapshotChunk.frame(ByteBuffer.allocate(0))).isEqualTo(empty);
        ByteBuffer e = payload(empty);
        SnapshotChunk.check(e);
        assertThat(SnapshotChunk.dataLength(e)).isZero();
    }

    @Test
    void snapshotEnd() {
        // 0xE3069283 is the CRC-32C check value (of "123456789")
        byte[] v = hex("05000000 15 839206e3");
        assertThat(SnapshotEnd.frame(0xE3069283)).isEqualTo(v);
        assertWrites(v, b -> SnapshotEnd.write(b, 0xE3069283));
        ByteBuffer p = payload(v);
        SnapshotEnd.check(p);
        assertThat(SnapshotEnd.crc32c(p)).isEqualTo(0xE3069283);
        CRC32C crc = new CRC32C();
        crc.update("123456789".getBytes(StandardCharsets.US_ASCII));
        assertThat(SnapshotEnd.crc32c(p)).isEqualTo((int) crc.getValue());
    }

    @Test
    void rotateMelin() {
        byte[] v = hex("29000000 16 0DF0FECAEFBEADDE"
                + " 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
        assertThat(Rotate.frame(0xDEADBEEFCAFEF00DL, run(0, 32))).isEqualTo(v);
        assertWrites(v, b -> Rotate.write(b, 0xDEADBEEFCAFEF00DL, run(0, 32)));
        ByteBuffer p = payload(v);
        Rotate.check(p);
        assertThat(Rotate.boundarySeq(p)).isEqualTo(0xDEADBEEFCAFEF00DL);
        assertThat(Rotate.tailHash(p)).isEqualTo(run(0, 32));
        assertThat(Rotate.tailHash(p, new byte[32])).isEqualTo(run(0, 32));
    }

    @Test
    void rotateKat4() {
        byte[] v = hex("29000000 16 0200000000000000"
                + " 3489f59a619f76ef41043ff6a0a97ddf65e04b722517596a00d7348490b1d28b");
        assertThat(Rotate.frame(2, CHAIN2)).isEqualTo(v);
        ByteBuffer p = payload(v);
        Rotate.check(p);
        assertThat(Rotate.boundarySeq(p)).isEqualTo(2);
        assertThat(Rotate.tailHash(p)).isEqualTo(CHAIN2);
    }

    @Test
    void chainCheck() {
        byte[] v = hex("29000000 17 11100f0e0d0c0b0a"
                + " e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
        assertThat(ChainCheck.frame(0x0A0B0C0D0E0F1011L, run(0xe0, 32))).isEqualTo(v);
        assertWrites(v, b -> ChainCheck.write(b, 0x0A0B0C0D0E0F1011L, run(0xe0, 32)));
        ByteBuffer p = payload(v);
        ChainCheck.check(p);
        assertThat(ChainCheck.sequence(p)).isEqualTo(0x0A0B0C0D0E0F1011L);
        assertThat(ChainCheck.chainHash(p)).isEqualTo(run(0xe0, 32));
        assertThat(ChainCheck.chainHash(p, new byte[32])).isEqualTo(run(0xe0, 32));
    }

    @Test
    void segmentSeedBegin() {
        // a seed of one segment header and one 49-byte entry: 4096 + 49 = 0x1031
        byte[] v = hex("09000000 18 3110000000000000");
        assertThat(SegmentSeedBegin.frame(4145)).isEqualTo(v);
        assertWrites(v, b -> SegmentSeedBegin.write(b, 4145));
        ByteBuffer p = payload(v);
        SegmentSeedBegin.check(p);
        assertThat(SegmentSeedBegin.seedLen(p)).isEqualTo(4145);
    }

    @Test
    void heartbeat() {
        byte[] v = hex("0a000000 30 0807060504030201 01");
        assertThat(Heartbeat.frame(0x0102030405060708L, (byte) 1)).isEqualTo(v);
        assertWrites(v, b -> Heartbeat.write(b, 0x0102030405060708L, (byte) 1));
        ByteBuffer p = payload(v);
        Heartbeat.check(p);
        assertThat(Heartbeat.sequence(p)).isEqualTo(0x0102030405060708L);
        assertThat(Heartbeat.ackPolicy(p)).isEqualTo((byte) 1);
    }

    @Test
    void inputBatchTickSlotMelin() {
        // melin §1.4 wire_format_is_byte_pinned: one Tick slot, 50 bytes
        byte[] v = hex("2E000000 21 0100 | 1900 2122232425262728 3132333435363738 0102030405060708"
                + " 1112131415161718 03 4142434445464748");
        assertThat(v).hasSize(50);
        ByteBuffer tick = ByteBuffer.wrap(hex("4142434445464748"));
        assertWrites(v, b -> {
            InputBatch.writeHeader(b, InputBatch.slotLength(8), 1);
            InputBatch.writeSlot(b, 0x2827262524232221L, 0x3837363534333231L, 0x0807060504030201L,
                    0x1817161514131211L, (byte) 0x03, tick);
        });
        ByteBuffer p = payload(v);
        InputBatch.check(p);
        assertThat(InputBatch.count(p)).isEqualTo(1);
        InputBatch.Cursor c = new InputBatch.Cursor().wrap(p);
        assertThat(c.next()).isTrue();
        assertThat(c.index()).isZero();
        assertThat(c.sequence()).isEqualTo(0x2827262524232221L);
        assertThat(c.timestampNs()).isEqualTo(0x3837363534333231L);
        assertThat(c.keyHash()).isEqualTo(0x0807060504030201L);
        assertThat(c.requestSeq()).isEqualTo(0x1817161514131211L);
        assertThat(c.tag()).isEqualTo((byte) 0x03);
        assertThat(c.slotOffset()).isEqualTo(AT + 3);
        assertThat(c.slotLength()).isEqualTo(43);
        assertThat(c.payloadOffset()).isEqualTo(AT + 3 + 35);
        assertThat(c.payloadLength()).isEqualTo(8);
        assertThat(p.getLong(c.payloadOffset())).as("payload read big-endian").isEqualTo(0x4142434445464748L);
        assertThat(c.next()).isFalse();
    }

    @Test
    void inputBatchKat4() {
        // melin §2.4: the frame carrying e1 (Tick, seq 1) and e2 (App Increment{5}, seq 2), 94 bytes
        byte[] v = hex("5a000000 21 0200 " + KAT4_SLOT1 + KAT4_SLOT2);
        assertThat(v).hasSize(94);
        long ts = 1_700_000_000_000_000_000L;
        assertWrites(v, b -> {
            InputBatch.writeHeader(b, InputBatch.slotLength(8) + InputBatch.slotLength(9), 2);
            ByteBuffer now = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, ts);
            InputBatch.writeSlot(b, 1, ts, 0, 0, (byte) 0x03, now);
            InputBatch.writeSlot(b, 2, ts + 500, 0xabcdef, 7, (byte) 0x80,
                    ByteBuffer.wrap(hex("10 0500000000000000")));
        });
        InputBatch.Cursor c = new InputBatch.Cursor().wrap(payload(v));
        assertThat(c.count()).isEqualTo(2);
        assertThat(c.next()).isTrue();
        assertThat(c.sequence()).isEqualTo(1);
        assertThat(c.timestampNs()).isEqualTo(ts);
        assertThat(c.tag()).isEqualTo((byte) 0x03);
        assertThat(c.payloadLength()).isEqualTo(8);
        assertThat(c.next()).isTrue();
        assertThat(c.index()).isEqualTo(1);
        assertThat(c.sequence()).isEqualTo(2);
        assertThat(c.timestampNs()).isEqualTo(ts + 500);
        assertThat(c.keyHash()).isEqualTo(0xabcdef);
        assertThat(c.requestSeq()).isEqualTo(7);
        assertThat(c.tag()).isEqualTo((byte) 0x80);
        assertThat(c.payloadLength()).isEqualTo(9);
        assertThat(c.slotOffset()).isEqualTo(AT + 3 + 43);
        assertThat(c.next()).isFalse();
    }

    @Test
    void inputBatchEmpty() {
        byte[] v = hex("03000000 21 0000");
        assertWrites(v, b -> InputBatch.writeHeader(b, 0, 0));
        ByteBuffer p = payload(v);
        InputBatch.check(p);
        assertThat(InputBatch.count(p)).isZero();
        assertThat(new InputBatch.Cursor().wrap(p).next()).isFalse();
    }

    /** @return the vector's payload at index {@value #AT} of a big-endian buffer */
    private static ByteBuffer payload(byte[] frame) {
        return Bytes.payload(frame, AT, 0, ByteOrder.BIG_ENDIAN);
    }

    /** Writes at {@value #AT} of a big-endian buffer: exactly the vector, nothing around it, order unchanged. */
    private static void assertWrites(byte[] expected, Consumer<ByteBuffer> writer) {
        ByteBuffer b = ByteBuffer.allocate(AT + expected.length + 6).order(ByteOrder.BIG_ENDIAN);
        Arrays.fill(b.array(), Bytes.FILL);
        b.position(AT);
        writer.accept(b);
        assertThat(b.position()).isEqualTo(AT + expected.length);
        assertThat(b.order()).isEqualTo(ByteOrder.BIG_ENDIAN);
        assertThat(Bytes.slice(b, AT, AT + expected.length)).isEqualTo(expected);
        assertThat(Bytes.slice(b, 0, AT)).containsOnly(Bytes.FILL);
        assertThat(Bytes.slice(b, AT + expected.length, b.capacity())).containsOnly(Bytes.FILL);
    }

    private static void assertTagOnly(byte[] expected, Signal signal) {
        assertThat(signal.frame()).isEqualTo(expected);
        assertWrites(expected, signal::write);
        signal.check(payload(expected));
        assertThat(signal.tag()).isEqualTo(expected[Frames.LENGTH_PREFIX]);
    }
}
