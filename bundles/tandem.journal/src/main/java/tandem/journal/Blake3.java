package tandem.journal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * BLAKE3 (the default hash mode, 32-byte output) over a stream of bytes, with the state copyable mid-stream: what
 * the chain needs ({@link ChainHash}).
 *
 * <p>Design note: written here rather than taken from BouncyCastle, whose {@code Blake3Digest} computes the same
 * values: its compression function permutes an index array every round, and the chain thread spent a third of its
 * time in that permutation alone (profiled under pipelined SETs: about half a microsecond of CPU per journaled
 * write). This one keeps the state and the message words in local variables and permutes the words between rounds
 * as the specification does. It
 * follows the BLAKE3 specification's reference implementation (chunks of 1,024 bytes, a stack of chaining values
 * merged as the chunk count's trailing zero bits say, the root flag on the last compression); {@code Blake3Test}
 * checks it against the specification's test vectors and against BouncyCastle on random inputs fed in random pieces.
 */
final class Blake3 {

    static final int OUT_LEN = 32;
    private static final int BLOCK_LEN = 64;
    private static final int CHUNK_LEN = 1024;
    private static final int CHUNK_START = 1;
    private static final int CHUNK_END = 2;
    private static final int PARENT = 4;
    private static final int ROOT = 8;
    private static final int[] IV = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C,
        0x1F83D9AB, 0x5BE0CD19};
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(int[].class,
            ByteOrder.LITTLE_ENDIAN);

    // the chunk being hashed
    private final int[] cv = new int[8];
    private final byte[] block = new byte[BLOCK_LEN];
    private int blockLen;
    private int blocksCompressed;
    private long chunkCounter;
    // chaining values of complete subtrees, deepest first: at most one per bit of the chunk count
    private final int[][] stack = new int[54][8];
    private int stackSize;
    // scratch, so that compressing allocates nothing
    private final int[] words = new int[16];
    private final int[] out = new int[16];

    Blake3() {
        System.arraycopy(IV, 0, cv, 0, 8);
    }

    /** @return an independent hasher in the same state */
    Blake3 copy() {
        Blake3 c = new Blake3();
        System.arraycopy(cv, 0, c.cv, 0, 8);
        System.arraycopy(block, 0, c.block, 0, BLOCK_LEN);
        c.blockLen = blockLen;
        c.blocksCompressed = blocksCompressed;
        c.chunkCounter = chunkCounter;
        for (int i = 0; i < stackSize; i++) {
            System.arraycopy(stack[i], 0, c.stack[i], 0, 8);
        }
        c.stackSize = stackSize;
        return c;
    }

    void update(byte[] in, int offset, int length) {
        int end = offset + length;
        while (offset < end) {
            if (blockLen == BLOCK_LEN) {
                // a full block is compressed only once more input follows: the last block of a chunk gets its flag
                if (blocksCompressed == CHUNK_LEN / BLOCK_LEN - 1) {
                    finishChunk();
                } else {
                    loadWords(block, 0);
                    compressBlock(BLOCK_LEN);
                    blockLen = 0;
                }
                continue;
            }
            if (blockLen == 0 && end - offset > BLOCK_LEN && blocksCompressed < CHUNK_LEN / BLOCK_LEN - 1) {
                // a whole block straight from the input, with more after it: not the chunk's last block
                loadWords(in, offset);
                compressBlock(BLOCK_LEN);
                offset += BLOCK_LEN;
                continue;
            }
            int take = Math.min(BLOCK_LEN - blockLen, end - offset);
            System.arraycopy(in, offset, block, blockLen, take);
            blockLen += take;
            offset += take;
        }
    }

    /** Writes the 32-byte hash of everything absorbed to {@code result}; the hasher is spent. */
    void doFinal(byte[] result, int offset) {
        // the current chunk's output, then merged with every subtree on the stack as a parent, the last one the root
        java.util.Arrays.fill(block, blockLen, BLOCK_LEN, (byte) 0);
        loadWords(block, 0);
        int flags = CHUNK_END | (blocksCompressed == 0 ? CHUNK_START : 0);
        int[] outputCv = cv.clone();
        int[] outputWords = words.clone();
        long outputCounter = chunkCounter;
        int outputLen = blockLen;
        for (int i = stackSize - 1; i >= 0; i--) {
            compress(outputCv, outputWords, outputCounter, outputLen, flags);
            int[] parentWords = new int[16];
            System.arraycopy(stack[i], 0, parentWords, 0, 8);
            System.arraycopy(out, 0, parentWords, 8, 8);
            outputCv = IV.clone();
            outputWords = parentWords;
            outputCounter = 0;
            outputLen = BLOCK_LEN;
            flags = PARENT;
        }
        compress(outputCv, outputWords, outputCounter, outputLen, flags | ROOT);
        for (int i = 0; i < 8; i++) {
            WORDS.set(result, offset + 4 * i, out[i]);
        }
    }

    /** The chunk's last block (full, more input follows): its chaining value joins the tree, a new chunk begins. */
    private void finishChunk() {
        loadWords(block, 0);
        compress(cv, words, chunkCounter, BLOCK_LEN, CHUNK_END | (blocksCompressed == 0 ? CHUNK_START : 0));
        int[] chunkCv = new int[8];
        System.arraycopy(out, 0, chunkCv, 0, 8);
        // merge the completed subtrees: as many as the new chunk count has trailing zero bits
        long total = ++chunkCounter;
        while ((total & 1) == 0) {
            int[] left = stack[--stackSize];
            System.arraycopy(left, 0, words, 0, 8);
            System.arraycopy(chunkCv, 0, words, 8, 8);
            compress(IV, words, 0, BLOCK_LEN, PARENT);
            System.arraycopy(out, 0, chunkCv, 0, 8);
            total >>>= 1;
        }
        System.arraycopy(chunkCv, 0, stack[stackSize++], 0, 8);
        System.arraycopy(IV, 0, cv, 0, 8);
        blocksCompressed = 0;
        blockLen = 0;
    }

    /** Compresses a block of the current chunk (not its last) into its chaining value. */
    private void compressBlock(int length) {
        compress(cv, words, chunkCounter, length, blocksCompressed == 0 ? CHUNK_START : 0);
        System.arraycopy(out, 0, cv, 0, 8);
        blocksCompressed++;
    }

    private void loadWords(byte[] in, int offset) {
        for (int i = 0; i < 16; i++) {
            words[i] = (int) WORDS.get(in, offset + 4 * i);
        }
    }

    /** The compression function; its 16 output words go to {@link #out}. */
    private void compress(int[] h, int[] m, long counter, int length, int flags) {
        int v0 = h[0];
        int v1 = h[1];
        int v2 = h[2];
        int v3 = h[3];
        int v4 = h[4];
        int v5 = h[5];
        int v6 = h[6];
        int v7 = h[7];
        int v8 = IV[0];
        int v9 = IV[1];
        int v10 = IV[2];
        int v11 = IV[3];
        int v12 = (int) counter;
        int v13 = (int) (counter >>> 32);
        int v14 = length;
        int v15 = flags;
        int m0 = m[0];
        int m1 = m[1];
        int m2 = m[2];
        int m3 = m[3];
        int m4 = m[4];
        int m5 = m[5];
        int m6 = m[6];
        int m7 = m[7];
        int m8 = m[8];
        int m9 = m[9];
        int m10 = m[10];
        int m11 = m[11];
        int m12 = m[12];
        int m13 = m[13];
        int m14 = m[14];
        int m15 = m[15];
        for (int r = 0; r < 7; r++) {
            // columns
            v0 += v4 + m0;
            v12 = Integer.rotateRight(v12 ^ v0, 16);
            v8 += v12;
            v4 = Integer.rotateRight(v4 ^ v8, 12);
            v0 += v4 + m1;
            v12 = Integer.rotateRight(v12 ^ v0, 8);
            v8 += v12;
            v4 = Integer.rotateRight(v4 ^ v8, 7);

            v1 += v5 + m2;
            v13 = Integer.rotateRight(v13 ^ v1, 16);
            v9 += v13;
            v5 = Integer.rotateRight(v5 ^ v9, 12);
            v1 += v5 + m3;
            v13 = Integer.rotateRight(v13 ^ v1, 8);
            v9 += v13;
            v5 = Integer.rotateRight(v5 ^ v9, 7);

            v2 += v6 + m4;
            v14 = Integer.rotateRight(v14 ^ v2, 16);
            v10 += v14;
            v6 = Integer.rotateRight(v6 ^ v10, 12);
            v2 += v6 + m5;
            v14 = Integer.rotateRight(v14 ^ v2, 8);
            v10 += v14;
            v6 = Integer.rotateRight(v6 ^ v10, 7);

            v3 += v7 + m6;
            v15 = Integer.rotateRight(v15 ^ v3, 16);
            v11 += v15;
            v7 = Integer.rotateRight(v7 ^ v11, 12);
            v3 += v7 + m7;
            v15 = Integer.rotateRight(v15 ^ v3, 8);
            v11 += v15;
            v7 = Integer.rotateRight(v7 ^ v11, 7);
            // diagonals
            v0 += v5 + m8;
            v15 = Integer.rotateRight(v15 ^ v0, 16);
            v10 += v15;
            v5 = Integer.rotateRight(v5 ^ v10, 12);
            v0 += v5 + m9;
            v15 = Integer.rotateRight(v15 ^ v0, 8);
            v10 += v15;
            v5 = Integer.rotateRight(v5 ^ v10, 7);

            v1 += v6 + m10;
            v12 = Integer.rotateRight(v12 ^ v1, 16);
            v11 += v12;
            v6 = Integer.rotateRight(v6 ^ v11, 12);
            v1 += v6 + m11;
            v12 = Integer.rotateRight(v12 ^ v1, 8);
            v11 += v12;
            v6 = Integer.rotateRight(v6 ^ v11, 7);

            v2 += v7 + m12;
            v13 = Integer.rotateRight(v13 ^ v2, 16);
            v8 += v13;
            v7 = Integer.rotateRight(v7 ^ v8, 12);
            v2 += v7 + m13;
            v13 = Integer.rotateRight(v13 ^ v2, 8);
            v8 += v13;
            v7 = Integer.rotateRight(v7 ^ v8, 7);

            v3 += v4 + m14;
            v14 = Integer.rotateRight(v14 ^ v3, 16);
            v9 += v14;
            v4 = Integer.rotateRight(v4 ^ v9, 12);
            v3 += v4 + m15;
            v14 = Integer.rotateRight(v14 ^ v3, 8);
            v9 += v14;
            v4 = Integer.rotateRight(v4 ^ v9, 7);
                    // the next round reads the message words permuted
            int p0 = m2;
            int p1 = m6;
            int p2 = m3;
            int p3 = m10;
            int p4 = m7;
            int p5 = m0;
            int p6 = m4;
            int p7 = m13;
            int p8 = m1;
            int p9 = m11;
            int p10 = m12;
            int p11 = m5;
            int p12 = m9;
            int p13 = m14;
            int p14 = m15;
            int p15 = m8;
            m0 = p0;
            m1 = p1;
            m2 = p2;
            m3 = p3;
            m4 = p4;
            m5 = p5;
            m6 = p6;
            m7 = p7;
            m8 = p8;
            m9 = p9;
            m10 = p10;
            m11 = p11;
            m12 = p12;
            m13 = p13;
            m14 = p14;
            m15 = p15;
        }
        out[0] = v0 ^ v8;
        out[1] = v1 ^ v9;
        out[2] = v2 ^ v10;
        out[3] = v3 ^ v11;
        out[4] = v4 ^ v12;
        out[5] = v5 ^ v13;
        out[6] = v6 ^ v14;
        out[7] = v7 ^ v15;
        out[8] = v8 ^ h[0];
        out[9] = v9 ^ h[1];
        out[10] = v10 ^ h[2];
        out[11] = v11 ^ h[3];
        out[12] = v12 ^ h[4];
        out[13] = v13 ^ h[5];
        out[14] = v14 ^ h[6];
        out[15] = v15 ^ h[7];
    }
}
