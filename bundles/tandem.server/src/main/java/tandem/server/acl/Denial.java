package tandem.server.acl;

/**
 * Why a command was refused, as Redis's {@code ACL_DENIED_*}: its reason (the larger the more specific, which decides
 * among several selectors' refusals) and the argument it names (a key's or a channel's index).
 */
public record Denial(int reason, int index) {

    public static final int COMMAND = 1;
    public static final int KEY = 2;
    public static final int AUTH = 3;
    public static final int CHANNEL = 4;

    /** @return {@code ACL LOG}'s {@code reason} */
    public String reasonName() {
        return switch (reason) {
            case COMMAND -> "command";
            case KEY -> "key";
            case CHANNEL -> "channel";
            case AUTH -> "auth";
            default -> "unknown";
        };
    }
}
