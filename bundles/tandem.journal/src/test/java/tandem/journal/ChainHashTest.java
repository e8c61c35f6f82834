package tandem.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** melin §2.4 known-answer vectors, computed there by an independent BLAKE3 implementation. */
@Timeout(10)
class ChainHashTest {

    static final byte[] ANCHOR_A = new byte[32];
    static {
        for (int i = 0; i < 32; i++) {
            ANCHOR_A[i] = (byte) i;
        }
    }
    static final byte[] KAT1 = hex("454a19002122232425262728313233343536373801020304050607081112131415161718034142434445"
            + "46474816026ece");
    static final byte[] KAT4_E1 = hex("454a1900010000000000000000002a36fe9c9717000000000000000000000000000000000300002a"
            + "36fe9c97175f117442");
    static final byte[] KAT4_E2 = hex("454a1a000200000000000000f4012a36fe9c9717efcdab00000000000700000000000000801005"
            + "00000000000000c3f41428");

    @Test
    void kat2ChainAfterOneEntry() {
        ChainHash chain = new ChainHash(ANCHOR_A);
        chain.absorb(KAT1, 0, KAT1.length);
        assertThat(ChainHash.hex(chain.value()))
                .isEqualTo("66187610d8cd01bba0661214eb90a973f708b6ce898de2b2f65e0b2ef20fbaea");
    }

    @Test
    void kat4ChainAfterEachOfTwoEntries() {
        ChainHash chain = new ChainHash(ANCHOR_A);
        assertThat(chain.value()).isEqualTo(ANCHOR_A);
        chain.absorb(KAT4_E1, 0, KAT4_E1.length);
        assertThat(ChainHash.hex(chain.value()))
                .isEqualTo("bb08bc36bb92560b0fb6f7d514c2e072bf285f88b85bee18dcd864fa37b1b5bc");
        // the value is non-destructive: absorbing continues after it was taken
        chain.absorb(KAT4_E2, 0, KAT4_E2.length);
        assertThat(ChainHash.hex(chain.value()))
                .isEqualTo("3489f59a619f76ef41043ff6a0a97ddf65e04b722517596a00d7348490b1d28b");
    }

    @Test
    void theValueDoesNotDependOnHowTheBytesWereBatched() {
        ChainHash whole = new ChainHash(ANCHOR_A);
        byte[] both = new byte[KAT4_E1.length + KAT4_E2.length];
        System.arraycopy(KAT4_E1, 0, both, 0, KAT4_E1.length);
        System.arraycopy(KAT4_E2, 0, both, KAT4_E1.length, KAT4_E2.length);
        whole.absorb(both, 0, both.length);
        ChainHash bytewise = new ChainHash(ANCHOR_A);
        for (int i = 0; i < both.length; i++) {
            bytewise.absorb(both, i, 1);
        }
        assertThat(bytewise.value()).isEqualTo(whole.value());
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }
}
