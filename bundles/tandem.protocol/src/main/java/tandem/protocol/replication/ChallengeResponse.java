package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * ChallengeResponse, replica to primary: the Ed25519 signature of the Challenge's nonce and the key that made it.
 *
 * <pre>
 *  0     1                                                 65                               97
 *  +-----+-------------------------------------------------+--------------------------------+
 *  | tag |               signature (64)                    |        public_key (32)         |
 *  |0x04 |                                                 |                                |
 *  +-----+-------------------------------------------------+--------------------------------+
 * </pre>
 */
public final class ChallengeResponse {

    public static final int LENGTH = 97;
    public static final int SIGNATURE_OFFSET = 1;
    public static final int PUBLIC_KEY_OFFSET = 65;

    private ChallengeResponse() {
    }

    public static void write(ByteBuffer dst, byte[] signature, byte[] publicKey) {
        Wire.requireLength(signature, Frames.SIGNATURE_LENGTH, "signature");
        Wire.requireLength(publicKey, Frames.HASH_LENGTH, "public key");
        int p = Wire.begin(dst, LENGTH, Frames.TAG_CHALLENGE_RESPONSE);
        dst.put(p + SIGNATURE_OFFSET, signature);
        dst.put(p + PUBLIC_KEY_OFFSET, publicKey);
        Wire.end(dst, p, LENGTH);
    }

    public static byte[] frame(byte[] signature, byte[] publicKey) {
        return Wire.frame(LENGTH, b -> write(b, signature, publicKey));
    }

    /** @throws FrameException when {@code payload} is not a ChallengeResponse of at least {@value #LENGTH} bytes */
    public static void check(ByteBuffer payload) {
        Wire.check(payload, Frames.TAG_CHALLENGE_RESPONSE, LENGTH);
    }

    /**
     * Copies the signature into the first 64 bytes of {@code dst}.
     *
     * @return dst
     */
    public static byte[] signature(ByteBuffer payload, byte[] dst) {
        return Wire.getBytes(payload, SIGNATURE_OFFSET, dst, Frames.SIGNATURE_LENGTH);
    }

    public static byte[] signature(ByteBuffer payload) {
        return signature(payload, new byte[Frames.SIGNATURE_LENGTH]);
    }

    /**
     * Copies the public key into the first 32 bytes of {@code dst}.
     *
     * @return dst
     */
    public static byte[] publicKey(ByteBuffer payload, byte[] dst) {
        return Wire.getBytes(payload, PUBLIC_KEY_OFFSET, dst, Frames.HASH_LENGTH);
    }

    public static byte[] publicKey(ByteBuffer payload) {
        return publicKey(payload, new byte[Frames.HASH_LENGTH]);
    }
}
