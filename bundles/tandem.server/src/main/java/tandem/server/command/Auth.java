package tandem.server.command;

import java.nio.charset.StandardCharsets;

import tandem.server.acl.Acl;

/**
 * {@code AUTH} and {@code HELLO … AUTH} against the node's ACL users, with Redis 7's answers: {@code AUTH <password>}
 * authenticates the {@code default} user (whose password {@code requirepass} sets), {@code AUTH <user> <password>}
 * any user that is on.
 */
public final class Auth {

    static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    static final String NO_DEFAULT_PASSWORD = "ERR AUTH <password> called without any password configured for the "
            + "default user. Are you sure your configuration is correct?";

    private Auth() {
    }

    /**
     * @param user the user named, or null for the one-argument {@code AUTH <password>}
     * @return the user's name when the credentials are accepted; else null, and {@code error[0]} holds the error
     *         reply without its {@code -}
     */
    public static String check(Acl acl, byte[] user, byte[] password, String[] error) {
        if (user == null && acl.user("default").describeFlags().contains("nopass")) {
            error[0] = NO_DEFAULT_PASSWORD;
            return null;
        }
        String name = user == null ? "default" : new String(user, StandardCharsets.ISO_8859_1);
        if (acl.authenticate(name, password) == null) {
            error[0] = WRONGPASS;
            return null;
        }
        return name;
    }

    /** @return the credentials of {@code AUTH [user] password} or of {@code HELLO … AUTH user password}, or null */
    public static byte[][] credentials(byte[][] args) {
        String name = new String(args[0], StandardCharsets.ISO_8859_1);
        if (name.equalsIgnoreCase("auth")) {
            if (args.length == 2) {
                return new byte[][] {null, args[1]};
            }
            return args.length == 3 ? new byte[][] {args[1], args[2]} : null;
        }
        for (int i = 2; i < args.length; i++) {
            String option = new String(args[i], StandardCharsets.ISO_8859_1);
            if (option.equalsIgnoreCase("auth") && i + 2 < args.length) {
                return new byte[][] {args[i + 1], args[i + 2]};
            } else if (option.equalsIgnoreCase("setname")) {
                i++;
            } else {
                return null;
            }
        }
        return null;
    }
}
