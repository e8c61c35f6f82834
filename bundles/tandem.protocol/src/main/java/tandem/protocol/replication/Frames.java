package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * Framing of the journal replication protocol: sizes, limits and the tag of every frame kind.
 *
 * <pre>
 *  0                 4     5
 *  +-----------------+-----+---------------------------+
 *  |   len (u32 LE)  | tag |  rest of the payload      |
 *  +-----------------+-----+---------------------------+
 *                    |&lt;---------- len bytes ----------&gt;|
 * </pre>
 *
 * {@code len} counts the payload only, never itself, and is never 0. Tag 0x20 (melin's retired data batch) is never
 * reused. Limits are checked by the transport against the length prefix, before a payload reaches a decoder.
 */
public final class Frames {

    /** The version a replica announces in its Handshake; the primary drops a connection that announces another. */
    /** 6: journal entries may be Publish ({@code tandem.api.journal.EntryTag#PUBLISH}), which version 5 refuses. */
    public static final int PROTOCOL_VERSION = 6;
    /** Bytes of the u32 length before every payload. */
    public static final int LENGTH_PREFIX = 4;
    /** The largest payload accepted before the handshake is done (auth frames, Handshake, early control frames). */
    public static final int MAX_CONTROL_FRAME = 256;
    /** The default largest payload once streaming: InputBatch and snapshot/seed chunks. */
    public static final int DEFAULT_MAX_DATA_FRAME = 768 * 1024;
    /** The data a sender puts in one SnapshotChunk. */
    public static final int SNAPSHOT_CHUNK = 64 * 1024;

    /** Where the tag sits in every payload. */
    public static final int TAG_OFFSET = 0;
    /** Chain values, anchors, nonces and public keys. */
    public static final int HASH_LENGTH = 32;
    /** Ed25519 signatures. */
    public static final int SIGNATURE_LENGTH = 64;

    public static final byte TAG_HANDSHAKE = 0x01;
    public static final byte TAG_ACK = 0x02;
    public static final byte TAG_CHALLENGE = 0x03;
    public static final byte TAG_CHALLENGE_RESPONSE = 0x04;
    public static final byte TAG_AUTH_OK = 0x05;
    public static final byte TAG_AUTH_FAILED = 0x06;
    public static final byte TAG_STREAM_START = 0x10;
    public static final byte TAG_NEED_SNAPSHOT = 0x11;
    public static final byte TAG_HASH_MISMATCH = 0x12;
    public static final byte TAG_SNAPSHOT_BEGIN = 0x13;
    public static final byte TAG_SNAPSHOT_CHUNK = 0x14;
    public static final byte TAG_SNAPSHOT_END = 0x15;
    public static final byte TAG_ROTATE = 0x16;
    public static final byte TAG_CHAIN_CHECK = 0x17;
    public static final byte TAG_SEGMENT_SEED_BEGIN = 0x18;
    public static final byte TAG_INPUT_BATCH = 0x21;
    public static final byte TAG_HEARTBEAT = 0x30;

    private Frames() {
    }

    /** @return the frame kind's name ({@code "Handshake"}), or {@code "unknown 0x7f"} for a tag outside the protocol */
    public static String name(byte tag) {
        return switch (tag) {
            case TAG_HANDSHAKE -> "Handshake";
            case TAG_ACK -> "Ack";
            case TAG_CHALLENGE -> "Challenge";
            case TAG_CHALLENGE_RESPONSE -> "ChallengeResponse";
            case TAG_AUTH_OK -> "AuthOk";
            case TAG_AUTH_FAILED -> "AuthFailed";
            case TAG_STREAM_START -> "StreamStart";
            case TAG_NEED_SNAPSHOT -> "NeedSnapshot";
            case TAG_HASH_MISMATCH -> "HashMismatch";
            case TAG_SNAPSHOT_BEGIN -> "SnapshotBegin";
            case TAG_SNAPSHOT_CHUNK -> "SnapshotChunk";
            case TAG_SNAPSHOT_END -> "SnapshotEnd";
            case TAG_ROTATE -> "Rotate";
            case TAG_CHAIN_CHECK -> "ChainCheck";
            case TAG_SEGMENT_SEED_BEGIN -> "SegmentSeedBegin";
            case TAG_INPUT_BATCH -> "InputBatch";
            case TAG_HEARTBEAT -> "Heartbeat";
            default -> String.format("unknown 0x%02x", tag & 0xFF);
        };
    }

    /** The largest {@code maxFrame} a link can be given: a declared length plus its prefix must fit an int. */
    public static final int MAX_FRAME_LIMIT = Integer.MAX_VALUE - LENGTH_PREFIX;

    /**
     * The transports' one check of a frame's declared length, made before anything is kept for its payload: every
     * payload starts with its tag, so 0 is refused, and so is anything over the link's limit.
     *
     * @param declared the length prefix, read as unsigned
     * @return why the length is refused, naming it, or null when it is acceptable
     */
    public static String lengthRefusal(long declared, int maxFrame) {
        if (declared == 0) {
            return "empty frame (declared length 0)";
        }
        if (declared > maxFrame) {
            return "frame length " + declared + " exceeds the limit of " + maxFrame + " bytes";
        }
        return null;
    }

    /** @throws IllegalArgumentException unless {@code maxFrame} is between 1 and {@link #MAX_FRAME_LIMIT} */
    public static int checkMaxFrame(int maxFrame) {
        if (maxFrame < 1 || maxFrame > MAX_FRAME_LIMIT) {
            throw new IllegalArgumentException("maxFrame=" + maxFrame + " must be between 1 and " + MAX_FRAME_LIMIT);
        }
        return maxFrame;
    }

    /**
     * @param payload a frame without its length prefix, positioned at the tag (not consumed)
     * @return the tag
     * @throws FrameException "empty frame" when no byte remains
     */
    public static byte tag(ByteBuffer payload) {
        if (!payload.hasRemaining()) {
            throw new FrameException("empty frame");
        }
        return payload.get(payload.position());
    }

    /** {@code "Ack (0x02)"}, or {@code "unknown 0x7f"}: both name and number, for error messages. */
    static String describe(byte tag) {
        String name = name(tag);
        return name.startsWith("unknown") ? name : String.format("%s (0x%02x)", name, tag & 0xFF);
    }
}
