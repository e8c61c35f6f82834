package tandem.store;

/**
 * The CRC-64 of Redis's {@code DUMP} payloads: the "Jones" polynomial {@code 0xad93d23594c935a9}, reflected in and
 * out, initial value 0, no final xor ({@code crc64("123456789") = 0xe9c6d914c4b8d9ca}). Written here because the JDK
 * has only CRC-32 and CRC-32C, and no library on Maven Central keeps this variant.
 */
final class Crc64 {

    /** The polynomial, bit-reversed for the reflected (least significant bit first) form. */
    private static final long REFLECTED = 0x95ac9329ac4bc9b5L;
    private static final long[] TABLE = new long[256];

    static {
        for (int n = 0; n < 256; n++) {
            long crc = n;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ REFLECTED : crc >>> 1;
            }
            TABLE[n] = crc;
        }
    }

    private Crc64() {
    }

    static long of(byte[] b, int from, int to) {
        long crc = 0;
        for (int i = from; i < to; i++) {
            crc = TABLE[(int) (crc ^ b[i]) & 0xff] ^ (crc >>> 8);
        }
        return crc;
    }
}
