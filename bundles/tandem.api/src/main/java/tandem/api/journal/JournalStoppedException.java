package tandem.api.journal;

/**
 * The journal has stopped after a failed write or {@code fsync} (fail-stop): nothing appended after the failure
 * becomes durable, so nothing after it may be acknowledged. The message says why.
 */
public class JournalStoppedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public JournalStoppedException(String message, Throwable cause) {
        super(message, cause);
    }
}
