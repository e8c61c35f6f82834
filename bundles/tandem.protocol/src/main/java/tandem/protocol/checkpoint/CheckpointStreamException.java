package tandem.protocol.checkpoint;

/**
 * A checkpoint stream that breaks the grammar or its limits, or whose trailer does not match what was received. The
 * message names the field and quotes the offending bytes (non-printable ones escaped), because it ends up as the
 * reason a full sync failed. The receiver discards what it staged; the next sync starts over.
 */
public final class CheckpointStreamException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CheckpointStreamException(String message) {
        super(message);
    }
}
