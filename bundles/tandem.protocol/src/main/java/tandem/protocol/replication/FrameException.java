package tandem.protocol.replication;

/**
 * A received frame that cannot be decoded: empty, too short for its kind, of another kind than expected, or an
 * InputBatch whose slots do not fit. The message names the frame (and the slot) and the sizes involved, because it
 * ends up as the reason a link is closed.
 */
public final class FrameException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FrameException(String message) {
        super(message);
    }
}
