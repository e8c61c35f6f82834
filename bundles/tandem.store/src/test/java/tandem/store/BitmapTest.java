package tandem.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bit commands and LCS on inputs too large for a golden transcript: their cost stays proportional to the bytes
 * (a few copies of a 16 MiB bitmap, no object per bit) and LCS' memory stays bounded (no table without IDX).
 */
@Timeout(60)
class BitmapTest {

    private static final long BITS = 128L * 1024 * 1024; // a 16 MiB bitmap

    @TempDir
    Path dir;

    @Test
    void aSixteenMebibyteBitmapWorksThroughEveryBitCommand() {
        try (Harness h = new Harness(dir)) {
            assertThat(h.run("setbit b " + (BITS - 1) + " 1")).isEqualTo(":0\\r\\n");
            assertThat(h.run("strlen b")).isEqualTo(":" + BITS / 8 + "\\r\\n");
            assertThat(h.run("setbit b 3 1")).isEqualTo(":0\\r\\n");
            assertThat(h.run("bitcount b")).isEqualTo(":2\\r\\n");
            assertThat(h.run("bitcount b 1 -1")).isEqualTo(":1\\r\\n");
            assertThat(h.run("bitcount b 4 -2 bit")).isEqualTo(":0\\r\\n");
            assertThat(h.run("bitpos b 1 1")).isEqualTo(":" + (BITS - 1) + "\\r\\n");
            assertThat(h.run("bitpos b 1 4 -1 bit")).isEqualTo(":" + (BITS - 1) + "\\r\\n");
            assertThat(h.run("bitpos b 0 3 3 bit")).isEqualTo(":-1\\r\\n");
            assertThat(h.run("getbit b " + (BITS - 1))).isEqualTo(":1\\r\\n");
            assertThat(h.run("bitop not n b")).isEqualTo(":" + BITS / 8 + "\\r\\n");
            assertThat(h.run("bitpos n 0")).isEqualTo(":3\\r\\n");
            assertThat(h.run("bitcount n")).isEqualTo(":" + (BITS - 2) + "\\r\\n");
            assertThat(h.run("bitop and a b n")).isEqualTo(":" + BITS / 8 + "\\r\\n");
            assertThat(h.run("bitpos a 1")).isEqualTo(":-1\\r\\n");
            assertThat(h.run("bitop xor x b n m")).isEqualTo(":" + BITS / 8 + "\\r\\n");
            assertThat(h.run("bitpos x 0")).isEqualTo(":" + BITS + "\\r\\n");
            assertThat(h.run("bitfield b get u8 #" + (BITS / 8 - 1) + " incrby u4 " + (BITS - 4) + " 1"))
                    .isEqualTo("*2\\r\\n:1\\r\\n:2\\r\\n");
            assertThat(h.run("bitfield_ro b get u4 " + (BITS - 4))).isEqualTo("*1\\r\\n:2\\r\\n");
            assertThat(h.run("object encoding b")).isEqualTo("$3\\r\\nraw\\r\\n");
        }
    }

    @Test
    void lcsLengthOfALongAndAShortStringNeedsNoTable() {
        try (Harness h = new Harness(dir)) {
            // 8 MiB against 14 bytes: 126 million cells, just under Redis' bound; two rows of 15 ints here
            h.run("setrange long " + (8 * 1024 * 1024 - 1) + " z");
            h.run("set short abcdefghijklmz");
            assertThat(h.run("lcs long short len")).isEqualTo(":1\\r\\n");
            assertThat(h.run("lcs short long len")).isEqualTo(":1\\r\\n");
            // the way back costs one bit a cell: about 15 MiB
            assertThat(h.run("lcs long short idx withmatchlen")).isEqualTo("*4\\r\\n$7\\r\\nmatches\\r\\n*1\\r\\n"
                    + "*3\\r\\n*2\\r\\n:8388607\\r\\n:8388607\\r\\n*2\\r\\n:13\\r\\n:13\\r\\n:1\\r\\n"
                    + "$3\\r\\nlen\\r\\n:1\\r\\n");
            assertThat(h.run("lcs short long")).isEqualTo("$1\\r\\nz\\r\\n");
            h.run("append short x");
            assertThat(h.run("lcs short long len")).as("over Redis' bound of 2^27 cells")
                    .isEqualTo("-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\\r\\n");
        }
    }
}
