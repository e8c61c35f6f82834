package tandem.api.transport;

import java.nio.ByteBuffer;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a protocol does with one link. The transport calls these methods one at a time, on its own thread, in
 * order; they must not block for long.
 */
@ConsumerType
public interface FrameSession {

    /** The link is open; frames may be sent. */
    void opened(FrameLink link);

    /**
     * One frame arrived.
     *
     * @param payload the frame without its length prefix (the tag first), little-endian, positioned at the tag;
     *                valid only during the call
     */
    void frame(ByteBuffer payload);

    /** The link's outbound buffer went below its low-water mark (after {@link FrameLink#writable} was false). */
    default void writable() {
    }

    /** The link is closed (or could not be opened); called exactly once. */
    void closed(String reason);
}
