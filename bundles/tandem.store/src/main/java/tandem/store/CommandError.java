package tandem.store;

/**
 * A command's error reply, thrown from anywhere inside a command and turned into {@code -text} by the dispatcher.
 * Commands validate before they write, so an error never leaves a half-applied command behind.
 */
final class CommandError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    static final String SYNTAX = "ERR syntax error";
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final String NOT_FLOAT = "ERR value is not a valid float";
    static final String OVERFLOW = "ERR increment or decrement would overflow";
    static final String NAN_OR_INFINITY = "ERR increment would produce NaN or Infinity";
    /** {@code getPositiveLongFromObjectOrReply} without a message of its own: a count that is not 0 or more. */
    static final String MUST_BE_POSITIVE = "ERR value is out of range, must be positive";
    static final String TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

    CommandError(String message) {
        super(message, null, false, false); // an expected outcome: no stack trace
    }

    static CommandError arity(String command) {
        return new CommandError("ERR wrong number of arguments for '" + command + "' command");
    }

    static CommandError expireTime(String command) {
        return new CommandError("ERR invalid expire time in '" + command + "' command");
    }
}
