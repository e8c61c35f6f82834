package tandem.protocol.replication;

import java.nio.ByteBuffer;

/**
 * The frames that are a tag and nothing more, all primary to replica: one flyweight, an instance per kind.
 *
 * <pre>
 *  0     1
 *  +-----+
 *  | tag |
 *  +-----+
 * </pre>
 *
 * <ul>
 * <li>{@link #AUTH_OK} (0x05): the ChallengeResponse verified against an authorized key; the replica sends its
 * Handshake next.</li>
 * <li>{@link #AUTH_FAILED} (0x06): the signature or the key was refused; the primary closes the link after it.</li>
 * <li>{@link #NEED_SNAPSHOT} (0x11): the replica's position is no longer in the retained journal; the snapshot flow
 * (SnapshotBegin, chunks, SnapshotEnd) follows.</li>
 * <li>{@link #HASH_MISMATCH} (0x12): the replica's journal diverged from the primary's lineage; the replica archives
 * its lineage, then the snapshot flow follows.</li>
 * </ul>
 */
public enum Signal {

    /** AuthOk: the replica's key is authorized; its Handshake comes next. */
    AUTH_OK(Frames.TAG_AUTH_OK),
    /** AuthFailed: the replica's key or signature was refused. */
    AUTH_FAILED(Frames.TAG_AUTH_FAILED),
    /** NeedSnapshot: the replica's position is no longer retained; a snapshot follows. */
    NEED_SNAPSHOT(Frames.TAG_NEED_SNAPSHOT),
    /** HashMismatch: the replica's journal diverged; a snapshot follows. */
    HASH_MISMATCH(Frames.TAG_HASH_MISMATCH);

    /** Bytes of the payload: the tag. */
    public static final int LENGTH = 1;

    private final byte tag;

    Signal(byte tag) {
        this.tag = tag;
    }

    /** @return this frame's tag, one of {@link Frames}' */
    public byte tag() {
        return tag;
    }

    public void write(ByteBuffer dst) {
        int p = Wire.begin(dst, LENGTH, tag);
        Wire.end(dst, p, LENGTH);
    }

    public byte[] frame() {
        return Wire.frame(LENGTH, this::write);
    }

    /** @throws FrameException when {@code payload} is empty or not this frame */
    public void check(ByteBuffer payload) {
        Wire.check(payload, tag, LENGTH);
    }
}
