package tandem.protocol.command;

/** The {@code key_hash} of a journal entry: FNV-1a 64 of the command's first key, 0 when it has none. */
public final class KeyHash {

    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private KeyHash() {
    }

    /** FNV-1a, 64 bits, over every byte of {@code key}. */
    public static long fnv1a64(byte[] key) {
        long hash = OFFSET_BASIS;
        for (byte b : key) {
            hash ^= b & 0xFF;
            hash *= PRIME;
        }
        return hash;
    }

    /**
     * FNV-1a, 64 bits, over the {@code length} bytes of {@code buffer} from absolute index {@code index}: a key
     * hashed where it lies (its position and limit are left alone).
     *
     * @since 1.1
     */
    public static long fnv1a64(java.nio.ByteBuffer buffer, int index, int length) {
        long hash = OFFSET_BASIS;
        for (int i = index; i < index + length; i++) {
            hash ^= buffer.get(i) & 0xFF;
            hash *= PRIME;
        }
        return hash;
    }
}
