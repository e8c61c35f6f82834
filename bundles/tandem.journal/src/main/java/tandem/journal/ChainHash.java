package tandem.journal;

import java.util.HexFormat;

/**
 * The chain value of one segment: {@code BLAKE3(entry bytes from offset 4096 through the last entry, CRC included
 * || anchor)}; an empty segment's value is its anchor.
 *
 * <p>Design note: one digest absorbs the entry bytes once they are durable and a value is a copy that absorbs the
 * anchor and finalizes, so the value depends only on the bytes and the anchor, never on how they were batched nor
 * on which thread or when they were absorbed: a primary and a replica that hold the same bytes compute the same
 * value. Not thread-safe: the journal's chain thread is the only one to absorb into the live segment's digest.
 */
final class ChainHash {

    static final int LENGTH = 32;

    private final byte[] anchor;
    private final Blake3 digest = new Blake3();
    private long absorbed;

    ChainHash(byte[] anchor) {
        if (anchor.length != LENGTH) {
            throw new IllegalArgumentException("anchor of " + anchor.length + " bytes");
        }
        this.anchor = anchor.clone();
    }

    void absorb(byte[] bytes, int offset, int length) {
        digest.update(bytes, offset, length);
        absorbed += length;
    }

    byte[] anchor() {
        return anchor.clone();
    }

    byte[] value() {
        if (absorbed == 0) {
            return anchor.clone();
        }
        Blake3 copy = digest.copy();
        copy.update(anchor, 0, anchor.length);
        byte[] out = new byte[LENGTH];
        copy.doFinal(out, 0);
        return out;
    }

    static String hex(byte[] value) {
        return HexFormat.of().formatHex(value);
    }
}
