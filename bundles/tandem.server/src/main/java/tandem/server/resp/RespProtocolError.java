package tandem.server.resp;

/**
 * A malformed request: the connection answers {@code reply} (null when Redis answers nothing) and closes.
 *
 * @param reply  the error text without the leading {@code -ERR }, as Redis words it; null to close silently
 * @param reason why, for the log
 */
public record RespProtocolError(String reply, String reason) {
}
