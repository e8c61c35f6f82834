package tandem.server.resp;

/**
 * One framed client request.
 *
 * @param args   the command name followed by its arguments, as received; never empty
 * @param inline true when the request came in the inline form
 */
public record RespRequest(byte[][] args, boolean inline) {
}
