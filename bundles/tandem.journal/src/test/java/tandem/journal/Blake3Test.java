package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.Random;

import org.bouncycastle.crypto.digests.Blake3Digest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The journal's BLAKE3 against the specification's test vectors and against BouncyCastle's. */
@Timeout(60)
class Blake3Test {

    /** The input of the official test vectors: byte i is i mod 251. */
    private static byte[] input(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i % 251);
        }
        return b;
    }

    private static String hash(byte[] in) {
        Blake3 h = new Blake3();
        h.update(in, 0, in.length);
        byte[] out = new byte[32];
        h.doFinal(out, 0);
        return HexFormat.of().formatHex(out);
    }

    private static byte[] bouncyCastle(byte[] in) {
        Blake3Digest d = new Blake3Digest();
        d.update(in, 0, in.length);
        byte[] out = new byte[32];
        d.doFinal(out, 0);
        return out;
    }

    @Test
    void theSpecificationsTestVectors() {
        // BLAKE3's test_vectors.json, the first 32 bytes of each "hash"
        assertThat(hash(input(0)))
                .isEqualTo("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
        assertThat(hash(input(1)))
                .isEqualTo("2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213");
        assertThat(hash(input(1023)))
                .isEqualTo("10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11");
        assertThat(hash(input(1024)))
                .isEqualTo("42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7");
        assertThat(hash(input(1025)))
                .isEqualTo("d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444");
        assertThat(hash(input(31744)))
                .isEqualTo("62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47");
    }

    /** Every length around the block, chunk and tree boundaries, fed whole. */
    @Test
    void everyLengthUpToFiveChunksIsBouncyCastlesHash() {
        byte[] all = input(5 * 1024 + 70);
        for (int n = 0; n <= all.length; n++) {
            byte[] in = java.util.Arrays.copyOf(all, n);
            assertThat(HexFormat.of().parseHex(hash(in))).as("length " + n).isEqualTo(bouncyCastle(in));
        }
    }

    /** A stream fed in random pieces, its value taken by a copy at random points (as the chain does). */
    @Property(tries = 200)
    void randomPiecesAndCopiesGiveBouncyCastlesHash(@ForAll @IntRange(min = 0, max = 40_000) int length,
            @ForAll long seed) {
        Random random = new Random(seed);
        byte[] in = new byte[length];
        random.nextBytes(in);
        Blake3 ours = new Blake3();
        Blake3Digest theirs = new Blake3Digest();
        for (int at = 0; at < length; ) {
            int piece = Math.min(length - at, random.nextInt(3) == 0 ? random.nextInt(5000) : random.nextInt(100));
            ours.update(in, at, piece);
            theirs.update(in, at, piece);
            at += piece;
            if (random.nextInt(4) == 0) {
                byte[] a = new byte[32];
                byte[] b = new byte[32];
                ours.copy().doFinal(a, 0);
                new Blake3Digest(theirs).doFinal(b, 0);
                assertThat(a).as("a copy's value at " + at).isEqualTo(b);
            }
        }
        byte[] a = new byte[32];
        byte[] b = new byte[32];
        ours.doFinal(a, 0);
        theirs.doFinal(b, 0);
        assertThat(a).isEqualTo(b);
    }
}
